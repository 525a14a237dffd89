"""The session API: new -> act -> finish, the agent check, logs that replay exactly."""

from __future__ import annotations

import time

import pytest

from playbench.core import CommandError, canonical_json, get_game
from playbench.core.match import Match
from playbench.server import sessions
from tests.server.conftest import served_slugs
from tests.server.helpers import Player, answer_headers, solve

pytestmark = pytest.mark.databases("sqlite", "postgresql")

WINNING = ["step 2", "step 2", "step 2", "step 2"]


def test_new_shows_the_game_a_token_and_a_puzzle(client, slug):
    game = get_game(slug)
    player = Player(client, slug, seed=7)
    body, state = player.last, game.new(7)
    assert len(body["token"]) >= 43, "at least 32 random bytes, url-safe"
    assert body["seed"] == 7 and body["slug"] == slug
    assert body["observation"] == game.observe(state)
    assert body["board"] == game.render(state)
    assert body["legalActions"] == game.legal_actions(state)
    assert body["moves"] == 0 and body["finished"] is False
    assert solve(body["agentCheck"]) > 0 and len(body["agentCheck"]["token"]) >= 32


def test_state_shows_the_stored_game(client, slug):
    player = Player(client, slug, seed=5)
    reply = client.get(
        f"/games/{slug}/api/state", headers={"Authorization": f"Bearer {player.token}"}
    )
    assert reply.status_code == 200
    assert reply.json()["observation"] == get_game(slug).observe(get_game(slug).new(5))
    assert reply.json()["agentCheck"]["token"] != player.last["agentCheck"]["token"]


def test_spec_examples_play_and_the_log_replays_exactly(client, slug):
    game = get_game(slug)
    player = Player(client, slug, seed=7)
    examples = [command.example for command in game.spec().commands]
    for _ in range(3):
        for example in examples:
            reply = player.act(example)
            assert reply.status_code == 200, reply.text
            (result,) = reply.json()["results"]
            assert result["command"] == example
    services = client.app.state.services
    row = services.storage.session_by_token(slug, sessions.token_hash(player.token))
    log = services.storage.log(row.id)
    assert len(log) == row.version == 3 * len(examples)
    # an applied command is stored in the game's canonical text ("d" as "down")
    match = Match.start(game, 7)
    stored = []
    for example in examples * 3:
        result = match.command(example)
        stored.append(game.command_text(result.action) if result.advanced else example)
    assert [entry.command for entry in log] == stored
    replayed = sessions.replay(game, row, log).state
    assert canonical_json(game.to_json(replayed)) == row.state


def test_unknown_command_is_refused_with_the_games_own_text(client, slug):
    game = get_game(slug)
    player = Player(client, slug)
    reply = player.act("fly to the moon")
    assert reply.status_code == 200
    (result,) = reply.json()["results"]
    with pytest.raises(CommandError) as info:
        game.parse_command("fly to the moon")
    assert result == {
        "command": "fly to the moon",
        "ok": False,
        "reason": str(info.value),
        "reward": 0,
        "events": [],
    }
    assert reply.json()["moves"] == 0


def test_commands_run_in_order_and_stop_at_the_first_refusal(client):
    player = Player(client, "tally", seed=7)
    reply = player.act("step 1", "step 2", "step 9", "step 1")
    results = reply.json()["results"]
    assert [r["ok"] for r in results] == [True, True, False]
    assert results[2]["reason"] == "unknown command 'step 9': try 'step 1', 'step 2' or 'fumble'"
    assert reply.json()["observation"]["pos"] == 3
    assert reply.json()["moves"] == 2


def test_a_refusal_that_counts_is_stored(client):
    player = Player(client, "tally")
    reply = player.act("fumble", "step 1")
    assert [r["ok"] for r in reply.json()["results"]] == [False]
    assert reply.json()["observation"]["fumbles"] == 1
    again = client.get(
        "/games/tally/api/state", headers={"Authorization": f"Bearer {player.token}"}
    )
    assert again.json()["observation"]["fumbles"] == 1


def drawn_seeds(monkeypatch, *seeds: int) -> None:
    """The seeds the server draws for the next ranked sessions, in order."""
    queue = iter(seeds)
    monkeypatch.setattr(sessions, "draw_seed", lambda: next(queue))


def test_full_flow_new_act_finish_and_leaderboard(client, monkeypatch):
    drawn_seeds(monkeypatch, 7)
    player = Player(client, "tally", seed=None)
    early = player.post("finish", {"rating": 8, "review": "Too soon."})
    assert early.status_code == 409 and "not over" in early.json()["error"]
    reply = player.act(*WINNING)
    assert reply.json()["gameOver"] is True and reply.json()["moves"] == 4
    score = reply.json()["score"]
    done = player.post("finish", {"rating": 8, "review": "Short and fair."})
    assert done.status_code == 200
    assert done.json()["score"] == score and done.json()["rank"] == 1
    assert done.json()["rating"] == 8 and done.json()["review"] == "Short and fair."
    twice = player.post("finish", {"rating": 9})
    assert twice.status_code == 409 and "already finished" in twice.json()["error"]
    board = client.get("/api/leaderboard/tally").json()
    assert board["slug"] == "tally"
    (entry,) = board["entries"]
    assert entry["sessionId"] == done.json()["sessionId"] and entry["score"] == score
    assert entry["rank"] == 1 and entry["moves"] == 4 and entry["rating"] == 8


def test_leaderboard_orders_by_score_and_keeps_unfinished_out(client, monkeypatch):
    drawn_seeds(monkeypatch, 1, 2, 3, 4, 9)
    scores = []
    for seed in (1, 2, 3, 4):
        player = Player(client, "tally", seed=None)
        player.act(*(["step 1"] * 8 if seed % 2 else WINNING))
        player.post("finish", {"rating": 5})
        scores.append(player.last.get("score"))
    Player(client, "tally", seed=None).act("step 1")
    entries = client.get("/api/leaderboard/tally?limit=3").json()["entries"]
    assert [e["score"] for e in entries] == sorted(scores, reverse=True)[:3]
    assert [e["rank"] for e in entries] == [1, 2, 3]


SHORT_LEVEL = {"name": "Short", "quota": 1, "oil": 50, "rows": ["#####", "#M*X#", "#####"]}


def test_sessions_started_with_options_are_not_ranked(client):
    player = Player(client, "delvewick", seed=1, options={"level": SHORT_LEVEL})
    assert player.act("right", "right").json()["gameOver"] is True
    done = player.post("finish", {"rating": 9, "review": "A level of my own."})
    assert done.status_code == 200 and done.json()["score"] == 370
    assert done.json()["rank"] is None
    assert client.get("/api/leaderboard/delvewick").json()["entries"] == []


def test_finish_validates_the_rating(client):
    player = Player(client, "tally")
    player.act(*WINNING)
    for body in ({"rating": 0}, {"rating": 11}, {"rating": "8"}, {"review": "no rating"}):
        reply = player.post("finish", body)
        assert reply.status_code == 422 and "body.rating" in reply.json()["error"]
        assert "agentCheck" in reply.json()


def test_act_needs_exactly_one_of_command_or_commands(client):
    player = Player(client, "tally")
    for body in ({}, {"command": "step 1", "commands": ["step 1"]}, {"commands": []}):
        reply = player.post("act", body)
        assert reply.status_code == 422
        assert reply.json()["agentCheck"]["question"]


# -- tokens -----------------------------------------------------------------------------
def test_missing_token_is_401_and_another_token_sees_nothing(client):
    mine, theirs = Player(client, "tally"), Player(client, "tally")
    client.cookies.clear()
    reply = client.get("/games/tally/api/state")
    assert reply.status_code == 401 and "Bearer" in reply.json()["error"]
    reply = client.get("/games/tally/api/state", headers={"Authorization": "Bearer nope"})
    assert reply.status_code == 404
    headers = answer_headers(mine.last["agentCheck"], "forged-token")
    reply = client.post("/games/tally/api/act", json={"command": "step 1"}, headers=headers)
    assert reply.status_code == 404 and reply.json()["agentCheck"]
    mine.act("step 2")
    view = client.get("/games/tally/api/state", headers={"Authorization": f"Bearer {theirs.token}"})
    assert view.json()["observation"]["pos"] == 0


def test_a_token_only_opens_its_own_game(client, slug):
    player = Player(client, slug)
    client.cookies.clear()
    headers = {"Authorization": f"Bearer {player.token}"}
    for other in served_slugs():
        reply = client.get(f"/games/{other}/api/state", headers=headers)
        assert reply.status_code == (200 if other == slug else 404), other


def test_the_cookie_carries_the_session_for_browsers(client):
    player = Player(client, "tally")
    assert client.cookies.get("playbench_tally") == player.token
    reply = client.get("/games/tally/api/state")
    assert reply.status_code == 200 and reply.json()["sessionId"] == player.last["sessionId"]


# -- the agent check --------------------------------------------------------------------
def _act_with(client, player, headers=None, body=None):
    headers = {"Authorization": f"Bearer {player.token}", **(headers or {})}
    return client.post(
        "/games/tally/api/act", json={"command": "step 1", **(body or {})}, headers=headers
    )


def _refused(reply, reason):
    assert reply.status_code == 403
    assert reason in reply.json()["error"]
    assert solve(reply.json()["agentCheck"]) > 0


def test_agent_check_missing(client):
    player = Player(client, "tally")
    _refused(_act_with(client, player), "agent check missing")
    token = player.last["agentCheck"]["token"]
    _refused(_act_with(client, player, {"X-Agent-Check": token}), "answer missing")


def test_agent_check_wrong_answer_spends_the_puzzle(client):
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    wrong = {"X-Agent-Check": puzzle["token"], "X-Agent-Answer": str(solve(puzzle) + 1)}
    _refused(_act_with(client, player, wrong), "is wrong")
    _refused(_act_with(client, player, answer_headers(puzzle)), "already used")


def test_agent_check_reuse_and_unknown(client):
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    assert _act_with(client, player, answer_headers(puzzle)).status_code == 200
    _refused(_act_with(client, player, answer_headers(puzzle)), "already used")
    forged = {"X-Agent-Check": "x" * 32, "X-Agent-Answer": "1"}
    _refused(_act_with(client, player, forged), "unknown")
    _refused(_act_with(client, player, {"X-Agent-Check": "x", "X-Agent-Answer": "abc"}), "unknown")


def test_a_reused_puzzle_stores_nothing_of_the_act_it_came_with(client):
    # the puzzle is spent in the same transaction as the act's first command
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    first = _act_with(client, player, answer_headers(puzzle))
    assert first.status_code == 200 and first.json()["accepted"] == 1
    _refused(_act_with(client, player, answer_headers(puzzle)), "already used")
    state = client.get("/games/tally/api/state", headers=player.auth()).json()
    assert (state["accepted"], state["score"]) == (1, first.json()["score"])


def test_agent_check_expired(client, monkeypatch):
    player = Player(client, "tally")
    puzzle = player.last["agentCheck"]
    later = time.time() + puzzle["expiresIn"] + 1
    monkeypatch.setattr("playbench.server.agent_check.time.time", lambda: later)
    _refused(_act_with(client, player, answer_headers(puzzle)), "expired")


def test_agent_check_from_body_fields_and_from_the_puzzle_route(client):
    player = Player(client, "tally")
    puzzle = client.get("/api/v1/agent-check?slug=tally", headers=player.auth()).json()
    body = {"agent_check": puzzle["token"], "agent_answer": solve(puzzle)}
    reply = _act_with(client, player, body=body)
    assert reply.status_code == 200 and reply.json()["results"][0]["ok"] is True
    puzzle = reply.json()["agentCheck"]
    wrong = {"agent_check": puzzle["token"], "agent_answer": str(solve(puzzle) - 1)}
    _refused(_act_with(client, player, body=wrong), "is wrong")


def test_puzzle_route_gives_fresh_puzzles(client):
    player = Player(client, "tally")
    first, second = (
        client.get("/api/v1/agent-check?slug=tally", headers=player.auth()).json() for _ in range(2)
    )
    assert first["token"] != second["token"]
    assert first["expiresIn"] == client.app.state.services.settings.puzzle_ttl_seconds
    assert "X-Agent-Check" in first["how"]
