"""Each tool and resource, through the official client connected in-process."""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.routing import Route

from playbench.core.registry import get_game
from playbench.mcp.http import NOT_RUNNING, McpHttp
from playbench.mcp.server import build_server
from tests.mcp.helpers import SLUGS, call, error_of, match_table, serving

Body = Callable[[Client], Awaitable[None]]


def with_client(body: Body) -> None:
    async def main() -> None:
        with match_table() as table:
            async with Client(build_server(table)) as client:
                await body(client)

    anyio.run(main)


def test_tool_schemas_name_their_arguments() -> None:
    async def body(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["new_game"].input_schema["required"] == ["game"]
        assert set(tools["new_game"].input_schema["properties"]) == {"game", "seed", "options"}
        assert tools["act"].input_schema["required"] == ["match_id", "command"]
        assert "A command the rules refuse changes nothing" in tools["act"].description
        assert tools["get_view"].output_schema["required"][:2] == ["matchId", "game"]

    with_client(body)


def test_get_rules_is_the_game_spec() -> None:
    async def body(client: Client) -> None:
        rules = await call(client, "get_rules", game="chimestep")
        spec = get_game("chimestep").spec().to_json()
        assert rules == {"slug": "chimestep", "name": "Chimestep", **spec}
        resource = await client.read_resource("playbench://games/chimestep/spec")
        assert json.loads(resource.contents[0].text) == rules

    with_client(body)


def test_spec_resources_are_listed() -> None:
    async def body(client: Client) -> None:
        listed = sorted(str(r.uri) for r in (await client.list_resources()).resources)
        assert listed == [f"playbench://games/{slug}/spec" for slug in SLUGS]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["playbench://matches/{match_id}/board"]

    with_client(body)


def test_errors_carry_the_reason() -> None:
    async def body(client: Client) -> None:
        assert await error_of(client, "get_rules", game="chess") == (
            "Error executing tool get_rules: unknown game 'chess'; "
            "known games: chimestep, cogcrawl, delvewick, gem-swap"
        )
        assert await error_of(client, "new_game", game="delvewick", options={"startLevel": 0}) == (
            "Error executing tool new_game: Delvewick options: startLevel must be an integer "
            "from 1 to 8, got 0"
        )
        assert await error_of(client, "new_game", game="delvewick", seed=-1) == (
            "bad arguments for new_game: seed: input should be greater than or equal to 0, got -1"
        )
        assert await error_of(client, "act", match_id="feed") == (
            "bad arguments for act: command is required"
        )
        assert await error_of(client, "act", match_id=7, command=["up"]) == (
            "bad arguments for act: match_id: input should be a valid string, got 7; "
            'command: input should be a valid string, got ["up"]'
        )
        match_id = (await call(client, "new_game", game="delvewick"))["matchId"]
        assert await error_of(client, "act", match_id=match_id, command="up") == (
            "Error executing tool act: 'up' was refused: cannot move up: bedrock at row 0, col 1"
        )
        assert (await call(client, "get_view", match_id=match_id))["moves"] == 0
        assert await error_of(client, "get_view", match_id="feed") == (
            "Error executing tool get_view: no live match 'feed': use the matchId new_game "
            "returned (a match left idle for 30 minutes is dropped); start one with new_game"
        )
        with pytest.raises(MCPError, match="no live match 'feed': use the matchId"):
            await client.read_resource("playbench://matches/feed/board")

    with_client(body)


def test_cogcrawl_raw_reply_a_counted_refusal_then_the_fallback() -> None:
    async def body(client: Client) -> None:
        match_id = (await call(client, "new_game", game="cogcrawl", seed=4))["matchId"]
        first = await call(client, "act", match_id=match_id, command="{not json")
        assert (first["ok"], first["moves"], first["observation"]["retry"]) == (False, 1, True)
        assert first["reason"] == (
            "the text must end with '}', it ends with '{not json'; "
            "the turn is retried once, then the delver plays it"
        )
        second = await call(client, "act", match_id=match_id, command="{not json")
        assert (second["ok"], second["moves"], second["observation"]["fallback"]) == (
            True,
            2,
            True,
        )
        searched = await call(
            client, "act", match_id=match_id, command='{"actions": [{"do": "search"}]}'
        )
        assert (searched["ok"], searched["moves"]) == (True, 3)

    with_client(body)


def test_a_question_is_answered_and_is_no_move() -> None:
    async def body(client: Client) -> None:
        view = await call(client, "new_game", game="gem-swap", seed=5)
        answer = await call(client, "act", match_id=view["matchId"], command="moves")
        assert (answer["ok"], answer["moves"], answer["reward"]) == (True, 0, 0)
        assert answer["events"] == [{"type": "moves", "count": len(view["commands"]) - 2}]

    with_client(body)


def test_a_bought_hint_is_in_the_next_view_not_only_in_the_events() -> None:
    seed = random.randrange(2**31)

    async def body(client: Client) -> None:
        view = await call(client, "new_game", game="gem-swap", seed=seed)
        assert view["observation"]["hint"] is None
        bought = await call(client, "act", match_id=view["matchId"], command="hint")
        (event,) = bought["events"]
        answer = {"swap": event["swap"], "gems": event["gems"]}
        assert bought["observation"]["hint"] == answer, seed
        assert f"hint: {answer['swap']} lines up {answer['gems']} gems" in bought["board"]
        again = await call(client, "get_view", match_id=view["matchId"])
        assert again["observation"]["hint"] == answer, seed
        played = await call(client, "act", match_id=view["matchId"], command=answer["swap"])
        assert played["observation"]["hint"] is None and "hint:" not in played["board"]

    with_client(body)


def test_same_seed_same_match() -> None:
    async def body(client: Client) -> None:
        views = []
        for _ in range(2):
            match_id = (await call(client, "new_game", game="gem-swap", seed=5))["matchId"]
            await call(client, "act", match_id=match_id, command="hint")
            views.append(await call(client, "get_view", match_id=match_id))
        first, second = views
        assert first["matchId"] != second["matchId"]
        del first["matchId"], second["matchId"]
        assert first == second

    with_client(body)


def test_http_cap_per_session() -> None:
    with match_table(per_owner=2) as table:
        door = McpHttp(table)
        app = Starlette(routes=[Route("/mcp", door)], lifespan=lambda _app: door.running())
        with serving(app) as url:
            _capped_per_session(url)


def _capped_per_session(url: str) -> None:

    async def main() -> None:
        async with Client(f"{url}/mcp", mode="legacy") as client:
            for _ in range(2):
                await call(client, "new_game", game="delvewick")
            assert await error_of(client, "new_game", game="delvewick") == (
                "Error executing tool new_game: this session already holds 2 matches, "
                "the most it may; leave one idle for 30 minutes to free it"
            )
        async with Client(f"{url}/mcp", mode="legacy") as other:
            await call(other, "new_game", game="delvewick")

    anyio.run(main)


def test_endpoint_outside_the_lifespan_says_so() -> None:
    with match_table() as table:
        door = McpHttp(table)
        app = Starlette(routes=[Route("/mcp", door)])  # no lifespan enters door.running()
        with serving(app) as url:
            answer = httpx.post(f"{url}/mcp", json={})
    assert answer.status_code == 503
    assert answer.json() == {"error": NOT_RUNNING}


def test_results_are_compact_json_and_the_board_its_own_text() -> None:
    async def body(client: Client) -> None:
        made = await client.call_tool("new_game", {"game": "delvewick", "seed": 3})
        view = made.structured_content
        data, board = made.content
        assert (
            board.text
            == view["board"]
            == get_game("delvewick").render(get_game("delvewick").new(3, None))
        )
        assert data.text == json.dumps(
            {key: value for key, value in view.items() if key != "board"},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        assert "\n" not in data.text
        played = await client.call_tool("act", {"match_id": view["matchId"], "command": "down"})
        assert [part.text for part in played.content][1] == played.structured_content["board"]
        assert json.loads(played.content[0].text)["reward"] == played.structured_content["reward"]

    with_client(body)


def test_a_cogcrawl_reply_that_ran_in_part_says_so() -> None:
    async def body(client: Client) -> None:
        match_id = (await call(client, "new_game", game="cogcrawl", seed=4))["matchId"]
        dropped = await call(
            client, "act", match_id=match_id, command='{"actions": [{"do": "fly"}]}'
        )
        assert (dropped["ok"], dropped["moves"]) == (True, 1)
        assert dropped["notice"] == (
            "entry 0 (fly) was dropped: unknown verb 'fly'; "
            "no action of the reply ran, so the turn passed as a wait"
        )
        whole = await call(client, "act", match_id=match_id, command="search")
        assert (whole["ok"], whole["moves"], whole["notice"]) == (True, 2, None)

    with_client(body)
