"""The MCP server driven by the official ``mcp`` client: over stdio (``playbench mcp`` as
a subprocess) and over streamable HTTP (``/mcp`` on the arena app, served on 127.0.0.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from playbench.server import Settings, create_app
from tests.mcp.helpers import call, error_of, play_through, serving

ROOT = Path(__file__).resolve().parents[2]


def test_stdio_play_through() -> None:
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "playbench.cli", "mcp"], cwd=str(ROOT)
    )

    async def main() -> None:
        async with Client(command) as client:
            await play_through(client)

    anyio.run(main)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_http_play_through(tmp_path: Path, mode: str) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with serving(app) as url:

        async def main() -> None:
            async with Client(f"{url}/mcp", mode=mode) as client:
                await play_through(client)

        anyio.run(main)


def test_http_matches_belong_to_their_session(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with serving(app) as url:

        async def main() -> None:
            async with (
                Client(f"{url}/mcp", mode="legacy") as mine,
                Client(f"{url}/mcp", mode="legacy") as theirs,
            ):
                match_id = (await call(mine, "new_game", game="chimestep", seed=1))["matchId"]
                assert (await call(mine, "get_view", match_id=match_id))["game"] == "chimestep"
                assert await error_of(theirs, "act", match_id=match_id, command="start") == (
                    f"Error executing tool act: no live match {match_id!r} in this session: "
                    "matches expire after 30 minutes idle; start one with new_game"
                )
                assert (await call(mine, "act", match_id=match_id, command="start"))["ok"]

        anyio.run(main)
