"""Ranked results that are evidence: drawn seeds a browser reads exactly, finished
sessions closed to acts, the agent check found by the token alone."""

from __future__ import annotations

import pytest

from playbench.cli import main
from playbench.core.rng import DRAWN_SEED_LIMIT, MAX_SEED
from tests.server.helpers import Player, answer_headers
from tests.server.test_sessions import WINNING

pytestmark = pytest.mark.databases("sqlite", "postgresql")
DRAWS = 24


def test_every_drawn_seed_is_below_two_to_the_53(client, database):
    """Ranked sessions reveal their seed at finish; stateless games show theirs at once.
    Drawn from 0..2^63-1, 24 draws would all fall below 2^53 once in 2^240."""
    assert DRAWN_SEED_LIMIT == 2**53
    ranked = []
    for _ in range(DRAWS):
        player = Player(client, "tally", seed=None)
        player.act(*WINNING)
        assert player.last["gameOver"] is True
        ranked.append(player.post("finish", {"rating": 5}).json()["seed"])
    stateless = [client.get("/api/games/tally/init").json()["seed"] for _ in range(DRAWS)]
    stateless += [client.post("/api/games/tally/init", json={}).json()["seed"] for _ in range(4)]
    assert all(0 <= seed < DRAWN_SEED_LIMIT for seed in ranked + stateless), ranked + stateless
    assert len(set(ranked)) == DRAWS


def test_a_client_may_still_choose_any_seed_for_practice(client, database):
    assert Player(client, "tally", seed=MAX_SEED).last["seed"] == MAX_SEED
    assert client.get(f"/api/games/tally/init?seed={MAX_SEED}").json()["seed"] == MAX_SEED


def test_the_terminal_draws_its_seed_below_two_to_the_53(monkeypatch, capsys):
    import playbench.terminal as terminal

    played = []
    monkeypatch.setattr(terminal, "require_terminal", lambda: None)
    monkeypatch.setattr(terminal, "run_curses", lambda session: played.append(session.match.seed))
    for _ in range(DRAWS):
        assert main(["play", "gem-swap"]) == 0
    assert len(played) == DRAWS and all(0 <= seed < DRAWN_SEED_LIMIT for seed in played)


def test_an_mcp_match_draws_its_seed_below_two_to_the_53(tmp_path):
    from playbench.mcp.matches import MatchTable
    from playbench.server.store import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'mcp.db'}")
    table = MatchTable(storage, per_owner=DRAWS, total=DRAWS)
    seeds = [table.start("owner", "gem-swap", None, None)[1].seed for _ in range(DRAWS)]
    storage.close()
    assert all(0 <= seed < DRAWN_SEED_LIMIT for seed in seeds) and len(set(seeds)) == DRAWS


def test_a_finished_session_takes_no_more_acts_and_stores_nothing(client, database):
    player = Player(client, "tally", seed=3)
    player.act(*WINNING)
    done = player.post("finish", {"rating": 4})
    assert done.status_code == 200
    storage = client.app.state.services.storage
    before = storage.reload(done.json()["sessionId"])
    for command in ("step 1", "fumble"):
        refused = player.act(command)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"].startswith("this session is finished")
        assert "token" in refused.json()["agentCheck"]
    after = storage.reload(before.id)
    assert after.version == before.version and after.score == before.score
    assert len(storage.log(before.id)) == len(WINNING)


def test_the_agent_check_finds_the_session_by_its_token_alone(client, database):
    player = Player(client, "tally")
    reply = client.get("/api/v1/agent-check", headers=player.auth())
    assert reply.status_code == 200, reply.text
    acted = client.post(
        "/games/tally/api/act",
        json={"command": "step 1"},
        headers=answer_headers(reply.json(), player.token),
    )
    assert acted.status_code == 200 and acted.json()["results"][0]["ok"] is True
    assert client.get("/api/v1/agent-check?slug=tally", headers=player.auth()).status_code == 200
    wrong = client.get("/api/v1/agent-check?slug=delvewick", headers=player.auth())
    assert wrong.status_code == 404 and "no delvewick session" in wrong.json()["error"]
    unknown = client.get("/api/v1/agent-check", headers={"Authorization": "Bearer nobody"})
    assert unknown.status_code == 404 and unknown.json()["error"].startswith("no session")
