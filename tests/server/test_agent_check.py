"""The agent check as issue 12 tightened it: bound to a session, canonical answers only,
signed puzzles (issuing writes nothing), and a puzzle on every error answer."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from playbench.server import agent_check
from playbench.server.agent_check import PuzzleSigner
from tests.server.helpers import Player, answer_headers, solve

pytestmark = pytest.mark.databases("sqlite", "postgresql")


def _act(client, player, headers):
    return client.post(
        "/games/tally/api/act", json={"command": "step 1"}, headers={**player.auth(), **headers}
    )


def _spent(client) -> int:
    with client.app.state.services.storage.engine.connect() as conn:
        return conn.execute(text("SELECT COUNT(*) FROM spent_puzzles")).scalar_one()


def test_a_puzzle_issued_to_another_session_is_refused(client, database):
    mine, theirs = Player(client, "tally"), Player(client, "tally", seed=8)
    reply = _act(client, mine, answer_headers(theirs.last["agentCheck"]))
    assert reply.status_code == 403
    assert "not issued to this session" in reply.json()["error"]
    assert _spent(client) == 0
    assert _act(client, theirs, answer_headers(theirs.last["agentCheck"])).status_code == 200


@pytest.mark.parametrize("form", ["{:_}", "+{}", "0{}", " {}", "{} ", "{}.0", "{:,}"])
def test_only_a_plain_whole_number_answers(client, form, database):
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    answer = form.format(solve(puzzle) + 10_000)  # the form, not the value, is refused
    headers = {"X-Agent-Check": puzzle["token"], "X-Agent-Answer": answer}
    reply = _act(client, player, headers)
    assert reply.status_code == 403 and "not a plain whole number" in reply.json()["error"]


def test_the_plain_answer_as_text_or_number_passes(client, database):
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    body = {"command": "step 1", "agent_check": puzzle["token"], "agent_answer": solve(puzzle)}
    reply = client.post("/games/tally/api/act", json=body, headers=player.auth())
    assert reply.status_code == 200
    assert _act(client, player, answer_headers(reply.json()["agentCheck"])).status_code == 200


def test_issuing_puzzles_writes_nothing(client, database):
    player = Player(client, "tally")
    for _ in range(5):
        client.get("/games/tally/api/state", headers=player.auth())
        client.post("/games/tally/api/act", json={"command": "step 1"})  # no token: 401
        client.post("/games/tally/api/new", json={"player": ""})  # 422
    assert _spent(client) == 0


def test_a_forged_token_is_unknown_and_spends_nothing(client, database):
    player = Player(client, "tally")
    token = player.last["agentCheck"]["token"]
    body, seal, tag = token.rsplit(".", 2)
    forged = f"{body}.{'A' * len(seal)}.{tag}"
    reply = _act(client, player, {"X-Agent-Check": forged, "X-Agent-Answer": "5"})
    assert reply.status_code == 403 and "unknown" in reply.json()["error"]
    assert _spent(client) == 0


def test_every_session_error_answer_carries_a_puzzle_bound_to_that_session(client, database):
    player = Player(client, "tally")
    bad = client.post("/games/tally/api/act", json={"nope": 1}, headers=player.auth())
    assert bad.status_code == 422
    assert _act(client, player, answer_headers(bad.json()["agentCheck"])).status_code == 200
    for reply in (
        client.post("/games/tally/api/new", json={"seed": -1}),
        client.post("/games/tally/api/act", json={"command": "step 1"}),
        client.get("/games/tally/api/state", headers={"Authorization": "Bearer nobody"}),
    ):
        assert reply.status_code in (401, 403, 404, 422) and "token" in reply.json()["agentCheck"]


def test_the_puzzle_route_needs_the_sessions_token(client, database):
    reply = client.get("/api/v1/agent-check?slug=tally", headers={"Authorization": "Bearer x"})
    assert reply.status_code == 404 and "no tally session" in reply.json()["error"]
    missing = client.get("/api/v1/agent-check?slug=tally")
    assert missing.status_code == 401
    assert missing.json()["error"] == "send the session's token as Authorization: Bearer <token>"


def test_a_signer_with_another_key_cannot_answer_for_this_one():
    ours, theirs = PuzzleSigner(b"one"), PuzzleSigner(b"two")
    puzzle = theirs.issue("abc", 60)
    with pytest.raises(agent_check.AgentCheckFailed, match="unknown"):
        ours.verify(None, "abc", puzzle["token"], "1")  # refused before any storage use
