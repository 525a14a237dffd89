"""The sessions' fast path answers a well-formed act or new session before the framework,
as the route would (the same core, the same error table), and hands every other request
to the app with its body intact."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from playbench.server.middleware import SECURITY_HEADERS
from playbench.server.routes.sessions import SessionFastPath
from tests.server.helpers import Player, answer_headers, register

pytestmark = pytest.mark.databases("sqlite", "postgresql")

VOLATILE = ("sessionId", "agentCheck", "token")


def by_cookie(player: Player, body: dict[str, Any], puzzle: dict[str, Any]) -> httpx.Response:
    """An act with the browser's cookie and no bearer token: the route answers it."""
    player.client.cookies.clear()
    headers = answer_headers(puzzle) | {"Cookie": f"playbench_{player.slug}={player.token}"}
    reply = player.client.post(f"/games/{player.slug}/api/act", json=body, headers=headers)
    player.last = reply.json()
    return reply


def by_bearer(player: Player, body: dict[str, Any], puzzle: dict[str, Any]) -> httpx.Response:
    player.client.cookies.clear()
    headers = answer_headers(puzzle, player.token)
    reply = player.client.post(f"/games/{player.slug}/api/act", json=body, headers=headers)
    player.last = reply.json()
    return reply


def steady(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in VOLATILE}


BODIES = (
    {"command": "step 1"},
    {"command": "hop 3"},
    {"commands": ["step 2", "step 1", "fumble"]},
    {"command": "  step   2 "},
)


def test_the_fast_path_and_the_route_answer_alike(client):
    fast, routed = Player(client, "tally", seed=11), Player(client, "tally", seed=11)
    for body in BODIES:
        one = by_bearer(fast, body, fast.last["agentCheck"])
        other = by_cookie(routed, body, routed.last["agentCheck"])
        assert one.status_code == other.status_code
        assert steady(one.json()) == steady(other.json())
        assert one.json()["agentCheck"]["token"] != other.json()["agentCheck"]["token"]
    assert fast.last["moves"] == routed.last["moves"] == 5  # a fumble is refused, and counted


def wrong(puzzle: dict[str, Any]) -> dict[str, Any]:
    return {**puzzle, "question": "What is 1 + 1 * 1?"} if puzzle else puzzle


@pytest.mark.parametrize("send", [by_bearer, by_cookie], ids=["fast", "route"])
def test_refusals_are_the_error_tables_on_both_paths(client, send):
    player = Player(client, "tally", seed=5)
    puzzle = player.last["agentCheck"]
    reply = send(player, {"command": "step 1"}, wrong(puzzle))
    assert reply.status_code == 403
    assert reply.json()["error"] == "agent check answer '2' is wrong"
    assert reply.json()["agentCheck"]["question"].startswith("What is")
    reused = send(player, {"command": "step 1"}, puzzle)
    assert reused.status_code == 403
    assert reused.json()["error"] == "agent check token already used; each puzzle answers once"
    too_long = send(player, {"command": "step " + "1" * 1100}, reused.json()["agentCheck"])
    assert too_long.status_code == 413
    assert too_long.json()["error"] == (
        "command 0 is 1105 bytes; one command may have at most 1024: nothing was applied or stored"
    )
    assert (
        client.get(
            "/games/tally/api/state", headers={"Authorization": f"Bearer {player.token}"}
        ).json()["moves"]
        == 0
    )


def test_an_unknown_token_is_a_404_with_a_puzzle(client):
    headers = {"Authorization": "Bearer not-a-session", "X-Agent-Check": "x", "X-Agent-Answer": "1"}
    reply = client.post("/games/tally/api/act", json={"command": "step 1"}, headers=headers)
    assert reply.status_code == 404
    assert reply.json()["error"] == "no tally session for this token"
    assert reply.json()["agentCheck"]["question"].startswith("What is")


def test_every_answer_of_the_fast_path_carries_the_security_headers(client):
    player = Player(client, "tally", seed=3)
    good = by_bearer(player, {"command": "step 1"}, player.last["agentCheck"])
    refused = by_bearer(player, {"command": "step 1"}, wrong(player.last["agentCheck"]))
    assert (good.status_code, refused.status_code) == (200, 403)
    for reply in (good, refused):
        for name, value in SECURITY_HEADERS:
            assert reply.headers[name.decode()] == value.decode()
        assert reply.headers["content-type"] == "application/json"


class Behind:
    """The app behind the fast path: it records what it was handed, and answers 299."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        self.bodies.append(b"".join(chunks))
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def through(client, behind: Behind, *requests: dict[str, Any]) -> list[httpx.Response]:
    services = client.app.state.services
    fast = SessionFastPath(behind, services=services, limit=services.settings.max_body_bytes)

    async def send_all() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=fast)
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as http:
            return [await http.post("/games/tally/api/act", **request) for request in requests]

    return asyncio.run(send_all())


def test_a_well_formed_act_never_reaches_the_framework(client):
    player = Player(client, "tally", seed=2)
    behind = Behind()
    headers = answer_headers(player.last["agentCheck"], player.token)
    (reply,) = through(client, behind, {"json": {"command": "step 2"}, "headers": headers})
    assert reply.status_code == 200 and reply.json()["observation"]["pos"] == 2
    assert behind.bodies == []


def test_what_the_route_must_judge_is_handed_on_with_its_body(client):
    player = Player(client, "tally", seed=2)
    headers = answer_headers(player.last["agentCheck"], player.token)
    cookie = answer_headers(player.last["agentCheck"]) | {
        "Cookie": f"playbench_tally={player.token}"
    }
    handed = [
        {"content": b'{"commands": []}', "headers": headers | {"Content-Type": "application/json"}},
        {
            "content": b'{"command": "step 1"',
            "headers": headers | {"Content-Type": "application/json"},
        },
        {"content": b'{"command": "step 1"}', "headers": headers | {"Content-Type": "text/plain"}},
        {
            "content": b'{"command": "step 1"}',
            "headers": cookie | {"Content-Type": "application/json"},
        },
    ]
    behind = Behind()
    replies = through(client, behind, *handed)
    assert [reply.status_code for reply in replies] == [299] * 4
    assert behind.bodies == [request["content"] for request in handed]
    state = client.get("/games/tally/api/state", headers=player.auth()).json()
    assert state["moves"] == 0


def streamed(body: dict[str, Any]) -> Any:
    """A JSON body sent in chunks (no Content-Length): the fast path hands it on."""
    return iter([json.dumps(body).encode()])


def test_new_on_the_fast_path_and_the_route_answer_alike(client):
    key = register(client, "Lovelace")
    headers = {"Content-Type": "application/json", "X-Player-Key": key}
    body = {"seed": 321, "player": "Lovelace"}
    fast = client.post("/games/tally/api/new", json=body, headers={"X-Player-Key": key})
    client.cookies.clear()
    routed = client.post("/games/tally/api/new", content=streamed(body), headers=headers)
    client.cookies.clear()
    assert (fast.status_code, routed.status_code) == (200, 200)
    assert "content-length" in fast.request.headers
    assert "content-length" not in routed.request.headers
    assert steady(fast.json()) == steady(routed.json())
    assert steady(fast.json())["seed"] == 321
    for reply in (fast, routed):
        token = reply.json()["token"]
        assert reply.headers["set-cookie"] == (
            f"playbench_tally={token}; HttpOnly; Path=/games/tally; SameSite=lax"
        )
        for name, value in SECURITY_HEADERS:
            assert reply.headers[name.decode()] == value.decode()
    # the fast path's cookie plays on the route that reads it
    player = Player.__new__(Player)
    player.client, player.slug, player.token, player.last = client, "tally", "", fast.json()
    player.token = fast.json()["token"]
    moved = by_cookie(player, {"command": "step 1"}, fast.json()["agentCheck"])
    assert (moved.status_code, moved.json()["moves"]) == (200, 1)


def test_new_refusals_are_the_error_tables_on_both_paths(client):
    register(client, "Hopper")
    body = {"seed": 4, "player": "Hopper"}
    headers = {"X-Player-Key": "not-the-key"}
    fast = client.post("/games/tally/api/new", json=body, headers=headers)
    routed = client.post(
        "/games/tally/api/new",
        content=streamed(body),
        headers={**headers, "Content-Type": "application/json"},
    )
    assert fast.status_code == routed.status_code == 403
    assert steady(fast.json()) == steady(routed.json())
    assert fast.json()["error"] == "the X-Player-Key sent is not 'Hopper''s key"
    assert "set-cookie" not in fast.headers
    bad = client.post("/games/tally/api/new", json={"seed": "four"})
    assert bad.status_code == 422  # the route's own validation answers what the path handed on
