"""A real HTTP server for the MCP tests, and the play-through every transport runs."""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from mcp import Client

from playbench.core import all_games
from playbench.games.delvewick.levels import LEVELS, SOLUTION_LETTERS
from playbench.mcp.matches import MatchTable
from playbench.server.store import Storage
from tests.games.delvewick.test_levels import LEVEL_POINTS

TOOLS = ["act", "get_rules", "get_view", "legal_commands", "list_games", "new_game"]
SLUGS = sorted(game.slug for game in all_games())
WORDS = ("up", "down", "left", "right", "wait")
START_TIMEOUT = 20.0


@contextmanager
def match_table(**caps: Any) -> Iterator[MatchTable]:
    """A match table on a SQLite database of its own, gone after the block."""
    with tempfile.TemporaryDirectory() as folder:
        storage = Storage(f"sqlite:///{Path(folder) / 'mcp.db'}")
        try:
            yield MatchTable(storage, **caps)
        finally:
            storage.close()


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on 127.0.0.1 (a free port) in a thread; yield its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)
        sock.close()


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """A tool's structured result; fails the test on a tool error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def error_of(client: Client, tool: str, **arguments: Any) -> str:
    """A tool error's text; fails the test when the call succeeds."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


async def play_through(client: Client) -> None:
    """List the tools, play Gem Swap to its end and Delvewick level 1 to a clear, and get
    a refused command's reason back."""
    tools = await client.list_tools()
    assert sorted(tool.name for tool in tools.tools) == TOOLS
    assert all(tool.description and tool.input_schema for tool in tools.tools)

    games = (await call(client, "list_games"))["result"]
    assert sorted(game["slug"] for game in games) == SLUGS

    view = await call(client, "new_game", game="gem-swap", seed=21)
    match_id = view["matchId"]
    assert (view["seed"], view["moves"], view["score"]) == (21, 0, 0)
    total = 0
    while not view["gameOver"]:
        swaps = (await call(client, "legal_commands", match_id=match_id))["result"]
        view = await call(client, "act", match_id=match_id, command=swaps[0])
        total += view["reward"]
    assert view["moves"] == 30
    assert view["score"] == total > 0
    assert (await call(client, "legal_commands", match_id=match_id))["result"] == []
    assert await error_of(client, "act", match_id=match_id, command="hint") == (
        "Error executing tool act: 'hint' was refused: the game is over after 30 moves"
    )

    view = await call(client, "new_game", game="delvewick")
    match_id = view["matchId"]
    for letter in LEVELS[0].solution:
        view = await call(
            client, "act", match_id=match_id, command=WORDS[SOLUTION_LETTERS.index(letter)]
        )
    assert [event["type"] for event in view["events"]][-2:] == ["levelClear", "levelStart"]
    assert view["score"] == LEVEL_POINTS[0]
    assert view["observation"]["level"] == 2
    assert await error_of(client, "act", match_id=match_id, command="dance") == (
        "Error executing tool act: 'dance' was refused: unknown command 'dance'; "
        "valid commands: up, down, left, right, wait (or u, d, l, r, w)"
    )
    again = await call(client, "get_view", match_id=match_id)
    assert again["moves"] == len(LEVELS[0].solution)
    board = await client.read_resource(f"playbench://matches/{match_id}/board")
    assert board.contents[0].text == again["board"]
