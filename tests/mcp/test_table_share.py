"""A full MCP match table over real HTTP on 127.0.0.1: clients of the newer protocol (no
MCP session), each from its own address, fill it; one more address is still served, the
least recently used match of the largest holders making room. A client of the newer
protocol is capped by the client it declares (its ``clientInfo``) at its address, and by
its address whatever it declares, on a real ``playbench serve``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation
from starlette.applications import Starlette
from starlette.routing import Route

from playbench.mcp.http import McpHttp
from playbench.mcp.matches import MatchTable, declared_client
from playbench.server.settings import (
    ENV_MCP_MATCHES,
    ENV_MCP_MATCHES_PER_ADDRESS,
    ENV_MCP_MATCHES_PER_CLIENT,
    Settings,
)
from tests.mcp.helpers import match_table, serving
from tests.web.serving import serve_process

CLIENTS = 64


@contextmanager
def _door(total: int) -> Iterator[tuple[Starlette, MatchTable]]:
    with match_table(total=total) as table:
        door = McpHttp(table)
        yield Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app: door.running()), table


#: the newer protocol: every request stands alone, with no MCP session
NEWER = "2026-07-28"


async def _new_game(url: str, address: str, declared: str = "mcp", mode: str = "auto") -> str:
    """A ``new_game`` over the newer protocol from ``address`` by a client declaring the
    name ``declared``: its match id, or the error it got."""
    transport = httpx2.AsyncHTTPTransport(local_address=address)
    info = Implementation(name=declared, version="1.0")
    async with (
        httpx2.AsyncClient(transport=transport) as http,
        Client(
            streamable_http_client(f"{url}/mcp", http_client=http), mode=mode, client_info=info
        ) as client,
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


@pytest.fixture
def small_table(tmp_path, monkeypatch):
    """A real ``playbench serve`` whose MCP table holds 128 matches, 2 per address, 1 per
    client."""
    monkeypatch.setenv(ENV_MCP_MATCHES, str(2 * CLIENTS))
    monkeypatch.setenv(ENV_MCP_MATCHES_PER_ADDRESS, "2")
    monkeypatch.setenv(ENV_MCP_MATCHES_PER_CLIENT, "1")
    quiet = ["--no-access-log", "--log-level", "warning", "--rate-per-address", "0"]
    with serve_process(tmp_path, *quiet) as served:
        yield served.base


def test_64_newer_protocol_clients_leave_a_65th_served_by_a_real_server(small_table) -> None:
    """64 addresses, each with two clients of the newer protocol (one match each, each
    address at its cap), fill the table of 128; a 65th address is served, the least
    recently used match making room, and a full address or client is refused."""

    async def main() -> None:
        for n in range(CLIENTS):
            for declared in ("first", "second"):
                made = await _new_game(small_table, _address(n), declared, NEWER)
                assert len(made) == 32, made
        # a client is its declaration at its address: one match each
        refused = await _new_game(small_table, _address(0), "first", NEWER)
        assert "this client already holds 1 matches, the most it may" in refused
        # an address is capped whatever its clients declare
        refused = await _new_game(small_table, _address(0), "third", NEWER)
        assert "this address already holds 2 matches, the most it may" in refused
        newcomer = await _new_game(small_table, _address(CLIENTS), "first", NEWER)
        assert len(newcomer) == 32, newcomer
        # the room came from the least recently used match: address 0's first client
        # may start again, its second still holds its own
        again = await _new_game(small_table, _address(0), "first", NEWER)
        assert len(again) == 32, again
        refused = await _new_game(small_table, _address(0), "second", NEWER)
        assert "this client already holds 1 matches" in refused

    anyio.run(main)


def test_a_declared_client_is_its_declaration_at_its_address():
    one = declared_client("agent/1.0", "203.0.113.5")
    assert one == declared_client("agent/1.0", "203.0.113.5")
    assert len(one) <= 64 and one.startswith("client:")
    others = {
        declared_client("agent/1.1", "203.0.113.5"),
        declared_client("agent/1.0", "203.0.113.6"),
        declared_client("", "203.0.113.5"),
    }
    assert one not in others and len(others) == 3


def test_the_mcp_caps_are_read_from_the_environment():
    env = {ENV_MCP_MATCHES: "128", ENV_MCP_MATCHES_PER_ADDRESS: "4"}
    settings = Settings.from_env(env)
    assert (settings.mcp_matches, settings.mcp_matches_per_address) == (128, 4)
    assert settings.mcp_matches_per_client == 16
    with pytest.raises(ValueError, match="PLAYBENCH_MCP_MATCHES_PER_CLIENT must be at least 1"):
        Settings.from_env({ENV_MCP_MATCHES_PER_CLIENT: "0"})
    with pytest.raises(ValueError, match="PLAYBENCH_MCP_MATCHES must be a whole number"):
        Settings.from_env({ENV_MCP_MATCHES: "lots"})
