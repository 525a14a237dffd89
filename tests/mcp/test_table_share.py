"""A full MCP match table over real HTTP on 127.0.0.1: clients of the newer protocol (no
MCP session), each from its own address, fill it; one more address is still served, the
least recently used match of the largest holders making room."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.routing import Route

from playbench.mcp.http import McpHttp
from playbench.mcp.matches import MatchTable
from tests.mcp.helpers import match_table, serving

CLIENTS = 64


@contextmanager
def _door(total: int) -> Iterator[tuple[Starlette, MatchTable]]:
    with match_table(total=total) as table:
        door = McpHttp(table)
        yield Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app: door.running()), table


async def _new_game(url: str, address: str) -> str:
    """A ``new_game`` over the newer protocol from ``address``: its match id, or the
    error it got."""
    transport = httpx2.AsyncHTTPTransport(local_address=address)
    async with (
        httpx2.AsyncClient(transport=transport) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="auto") as client,
    ):
        result = await client.call_tool("new_game", {"game": "delvewick"})
        if result.is_error:
            return result.content[0].text
        return result.structured_content["matchId"]


def _address(n: int) -> str:
    return f"127.0.{n // 250}.{n % 250 + 2}"


def test_64_newer_protocol_clients_leave_a_65th_served() -> None:
    with _door(total=CLIENTS) as (app, table), serving(app) as url:

        async def main() -> None:
            made = [await _new_game(url, _address(n)) for n in range(CLIENTS)]
            assert all(len(match_id) == 32 for match_id in made) and len(table) == CLIENTS
            # each address holds one: one more from an address holding one is refused
            refused = await _new_game(url, _address(0))
            assert "the server holds 64 matches" in refused, refused
            newcomer = await _new_game(url, _address(CLIENTS))
            assert len(newcomer) == 32 and len(table) == CLIENTS
            assert table.held_by(_address(CLIENTS)) == 1
            # the match that made room: the first made (the least recently used)
            assert table.held_by(_address(0)) == 0
            assert [table.held_by(_address(n)) for n in range(1, CLIENTS)] == [1] * 63

        anyio.run(main)
