"""The MCP server driven by the official ``mcp`` client: over stdio (``playbench mcp`` as
a subprocess) and over streamable HTTP (``/mcp`` on the arena app, served on 127.0.0.1)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from starlette.applications import Starlette
from starlette.routing import Route

from playbench.mcp.http import McpHttp
from playbench.mcp.matches import MatchTable
from playbench.server import Settings, create_app
from playbench.server.store import Storage
from tests.mcp.helpers import call, error_of, match_table, play_through, serving

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


def test_stdio_logs_nothing_for_refused_commands(tmp_path: Path) -> None:
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "playbench.cli", "mcp"], cwd=str(ROOT)
    )
    log = tmp_path / "stderr.txt"

    async def main() -> None:
        with log.open("w") as errlog:
            async with Client(stdio_client(command, errlog=errlog)) as client:
                match_id = (await call(client, "new_game", game="delvewick", seed=1))["matchId"]
                for _ in range(3):
                    await error_of(client, "act", match_id=match_id, command="dance")
                await error_of(client, "new_game", game="delvewick", seed=-1)
                await error_of(client, "get_view", match_id="feed")

    anyio.run(main)
    # (a warning about the installed package's metadata may stand there; no call's log)
    said = log.read_text()
    assert [line for line in said.splitlines() if "Tool" in line or "dance" in line] == []
    assert "INFO" not in said


def test_http_a_match_id_works_from_any_session(tmp_path: Path) -> None:
    """As the MCP Inspector's CLI plays: a new session (a new client) for every call."""
    app = create_app(Settings(data_dir=tmp_path / "data"))
    with serving(app) as url:

        async def once(tool: str, **arguments: object) -> dict:
            async with Client(f"{url}/mcp", mode="legacy") as client:
                return await call(client, tool, **arguments)

        async def main() -> None:
            match_id = (await once("new_game", game="chimestep", seed=1))["matchId"]
            assert (await once("act", match_id=match_id, command="start"))["ok"]
            assert (await once("act", match_id=match_id, command="tick"))["moves"] == 2
            async with Client(f"{url}/mcp", mode="auto") as modern:
                assert (await call(modern, "get_view", match_id=match_id))["moves"] == 2

        anyio.run(main)


@contextmanager
def _capped_app(per_client: int, matches_per_client: int) -> Iterator[Starlette]:
    with match_table(per_client=matches_per_client) as table:
        door = McpHttp(table, per_client=per_client)
        yield Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app: door.running())


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
STREAMABLE = {"Accept": "application/json, text/event-stream"}


def test_http_sessions_per_address_are_capped_and_others_served() -> None:
    with _capped_app(per_client=2, matches_per_client=64) as app, serving(app) as url:

        async def main() -> None:
            async with (
                Client(f"{url}/mcp", mode="legacy") as first,
                Client(f"{url}/mcp", mode="legacy") as second,
            ):
                await call(first, "list_games")
                refused = httpx.post(f"{url}/mcp", json=INITIALIZE, headers=STREAMABLE)
                assert refused.status_code == 429
                assert refused.json()["error"]["message"] == (
                    "this address already has 2 MCP sessions open, the most it may: close one "
                    "(DELETE /mcp) or reuse it; an idle one closes after 30 minutes"
                )
                elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
                with httpx.Client(transport=elsewhere) as other_client:
                    other = other_client.post(f"{url}/mcp", json=INITIALIZE, headers=STREAMABLE)
                assert other.status_code == 200
                await call(second, "list_games")
            # both closed (DELETE): the address may open sessions again
            async with Client(f"{url}/mcp", mode="legacy") as again:
                await call(again, "list_games")

        anyio.run(main)


def test_http_matches_per_address_are_capped_across_sessions() -> None:
    with _capped_app(per_client=8, matches_per_client=3) as app, serving(app) as url:

        async def main() -> None:
            for _ in range(3):
                async with Client(f"{url}/mcp", mode="legacy") as client:
                    await call(client, "new_game", game="gem-swap", seed=1)
            async with Client(f"{url}/mcp", mode="legacy") as client:
                assert await error_of(client, "new_game", game="gem-swap") == (
                    "Error executing tool new_game: this address already holds 3 matches, "
                    "the most it may; leave one idle for 30 minutes to free it"
                )

        anyio.run(main)


# -- two hosts on one database -----------------------------------------------------------
def _open(url: str) -> httpx.Response:
    """An ``initialize`` without a session: a new session, if the address has room."""
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers=STREAMABLE)


@pytest.mark.databases("sqlite", "postgresql")
def test_two_arenas_on_one_database_share_matches_and_sessions(tmp_path, database) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=database)
    with serving(create_app(settings)) as one, serving(create_app(settings)) as other:

        async def main() -> None:
            async with Client(f"{one}/mcp", mode="legacy") as here:
                match_id = (await call(here, "new_game", game="chimestep", seed=4))["matchId"]
                assert (await call(here, "act", match_id=match_id, command="start"))["ok"]
            async with Client(f"{other}/mcp", mode="auto") as there:
                view = await call(there, "act", match_id=match_id, command="tick")
                assert (view["matchId"], view["moves"]) == (match_id, 2)

        anyio.run(main)
        opened = [_open(url) for url in [one, other] * 4]
        assert [answer.status_code for answer in opened] == [200] * 8
        for url in (one, other):
            refused = _open(url)
            assert refused.status_code == 429
            assert refused.json()["error"]["message"].startswith(
                "this address already has 8 MCP sessions open, the most it may"
            )
        closing = opened[1].headers["mcp-session-id"]
        headers = {**STREAMABLE, "mcp-session-id": closing, "mcp-protocol-version": "2025-06-18"}
        assert httpx.delete(f"{other}/mcp", headers=headers).status_code == 200
        assert _open(one).status_code == 200  # the place freed on the other host
        assert _open(other).status_code == 429


@pytest.mark.databases("sqlite", "postgresql")
def test_two_hosts_count_one_address_matches_together(tmp_path, database) -> None:
    url = database or f"sqlite:///{tmp_path / 'mcp.db'}"
    storages = [Storage(url), Storage(url)]
    doors = [McpHttp(MatchTable(storage, per_client=3), per_client=4) for storage in storages]
    apps = [
        Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app, door=door: door.running())
        for door in doors
    ]
    try:
        with serving(apps[0]) as one, serving(apps[1]) as other:

            async def main() -> None:
                for url in (one, other, one):
                    async with Client(f"{url}/mcp", mode="legacy") as client:
                        await call(client, "new_game", game="gem-swap", seed=1)
                for url in (other, one):
                    async with Client(f"{url}/mcp", mode="legacy") as client:
                        assert await error_of(client, "new_game", game="gem-swap") == (
                            "Error executing tool new_game: this address already holds 3 "
                            "matches, the most it may; leave one idle for 30 minutes to free it"
                        )

            anyio.run(main)
    finally:
        for storage in storages:
            storage.close()


def test_the_endpoint_counts_its_own_sessions() -> None:
    counts: list[int] = []
    now = [0.0]
    with match_table() as table:
        door = McpHttp(table, idle_seconds=60, on_sessions=counts.append, clock=lambda: now[0])
        app = Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app: door.running())
        with serving(app) as url:

            async def main() -> None:
                async with Client(f"{url}/mcp", mode="legacy") as client:
                    await call(client, "list_games")
                    assert door.open_sessions() == 1
                assert door.open_sessions() == 0  # the client's DELETE closed it

            anyio.run(main)
            assert _open(url).status_code == 200
            unknown = {**STREAMABLE, "mcp-session-id": "feed", "mcp-protocol-version": "2025-06-18"}
            assert httpx.post(f"{url}/mcp", json=INITIALIZE, headers=unknown).status_code == 404
            assert door.open_sessions() == 1 and counts[-1] == 1
            now[0] += 60  # idle as long as the SDK keeps a session: no longer counted
            assert door.open_sessions() == 0
