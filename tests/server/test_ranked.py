"""Ranked and practice sessions, player names, the kernel's view on the session API."""

from __future__ import annotations

import random
import sqlite3

import pytest

from playbench.core.match import Match
from playbench.core.rng import MAX_SEED
from playbench.mcp.matches import MatchTable
from playbench.server.store import Storage
from tests.server.helpers import Player, register
from tests.server.test_sessions import WINNING, drawn_seeds

pytestmark = pytest.mark.databases("sqlite", "postgresql")


def test_a_session_without_seed_or_options_is_ranked_and_hides_its_seed(
    client, monkeypatch, database
):
    drawn_seeds(monkeypatch, 987_654_321)
    player = Player(client, "tally", seed=None)
    assert player.last["ranked"] is True and player.last["seed"] is None
    state = client.get("/games/tally/api/state", headers=player.auth())
    reply = player.act("step 1")
    for response in (state, reply):
        assert response.json()["seed"] is None and "987654321" not in response.text
    assert player.post("finish", {"rating": 5}).status_code == 409


def test_finish_reveals_the_seed_and_a_log_that_replays_to_the_score(client, monkeypatch, database):
    drawn_seeds(monkeypatch, 4242)
    player = Player(client, "tally", seed=None, player="ada")
    player.act("fumble", "step 2")
    player.act("step 2", "step 2", "step 2", "step 2")
    done = player.post("finish", {"rating": 7}).json()
    assert done["seed"] == 4242 and done["options"] == {} and done["player"] == "ada"
    assert done["log"] == [{"type": "fumble"}] + [{"type": "step", "by": 2}] * 4
    again = Match.replay("tally", done["seed"], done["options"], done["log"])
    assert again.score == done["score"] and again.fingerprint() == done["fingerprint"]
    assert done["rank"] == 1


def test_a_client_seed_makes_practice_that_never_reaches_the_leaderboard(client, database):
    player = Player(client, "tally", seed=5, player="bob")
    assert player.last["ranked"] is False and player.last["seed"] == 5
    player.act(*WINNING)
    done = player.post("finish", {"rating": 3}).json()
    assert done["rank"] is None and done["seed"] == 5
    assert client.get("/api/leaderboard/tally").json()["entries"] == []


def test_the_players_name_is_on_the_leaderboard(client, monkeypatch, database):
    drawn_seeds(monkeypatch, 3)
    player = Player(client, "tally", seed=None, player="Grace H.")
    player.act(*WINNING)
    player.post("finish", {"rating": 9})
    (entry,) = client.get("/api/leaderboard/tally").json()["entries"]
    assert entry["player"] == "Grace H." and entry["seed"] == 3


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "tab\there", "new\nline", 7, True])
def test_a_bad_player_name_is_refused_with_422_and_nothing_is_stored(client, name, database):
    response = client.post("/games/tally/api/new", json={"player": name})
    assert response.status_code == 422, response.text
    assert "player" in response.text
    storage = client.app.state.services.storage
    with storage.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM sessions").scalar_one() == 0


def test_a_forty_character_name_is_taken(client, database):
    assert Player(client, "tally", player="é" * 40).last["player"] == "é" * 40


def test_the_session_view_offers_legal_moves_as_commands_it_accepts(client, slug, database):
    player = Player(client, slug, seed=11)
    view = player.last
    assert view["game"] == slug and len(view["commands"]) == len(view["legalActions"])
    assert 0.0 <= view["progress"] <= 1.0 and view["moves"] == 0 and view["accepted"] == 0
    reply = player.act(view["commands"][0]).json()
    assert reply["results"][0]["ok"] is True, reply["results"]


def test_a_gem_swap_query_is_accepted_but_is_no_move(client, database):
    player = Player(client, "gem-swap", seed=2)
    reply = player.act("moves").json()
    assert reply["results"][0]["ok"] is True
    assert reply["moves"] == 0 and reply["accepted"] == 1
    swap = reply["commands"][0]
    reply = player.act(swap).json()
    assert reply["moves"] == 1 and reply["accepted"] == 2
    assert reply["observation"]["movesMade"] == 1


def test_a_counted_refusal_is_a_move_of_the_session(client, database):
    player = Player(client, "cogcrawl", seed=3)
    reply = player.act("{oops").json()
    assert reply["results"][0]["ok"] is False and reply["moves"] == 1
    assert reply["accepted"] == 0 and reply["observation"]["retry"] is True


def test_a_database_from_before_gains_the_new_columns(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
        conn.execute(
            "INSERT INTO sessions VALUES ('s1','h1','tally',7,'{}','{}',4,30,4,1,1,8,NULL,0,0,1)"
        )
        conn.execute(
            "INSERT INTO sessions VALUES ('s2','h2','tally',7,'{\"x\":1}','{}',4,9,4,1,1,8,"
            "NULL,0,0,1)"
        )
    storage = Storage(f"sqlite:///{path}")
    first, second = storage.session_by_id("s1"), storage.session_by_id("s2")
    assert first.ranked is True and first.accepted == 4 and first.player is None
    assert second.ranked is False
    assert [row.id for row in storage.leaderboard("tally", 10)] == ["s1"]
    storage.close()


OLD_SCHEMA = """
CREATE TABLE sessions (
    id VARCHAR(32) PRIMARY KEY, token_hash VARCHAR(64) NOT NULL UNIQUE,
    slug VARCHAR(64) NOT NULL, seed BIGINT NOT NULL, options TEXT NOT NULL,
    state TEXT NOT NULL, version INTEGER NOT NULL, score BIGINT NOT NULL,
    moves INTEGER NOT NULL, over BOOLEAN NOT NULL, finished BOOLEAN NOT NULL,
    rating INTEGER, review TEXT, created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL,
    finished_at FLOAT
);
"""


def test_finish_of_a_practice_game_may_name_the_player_with_its_key(client, database):
    player = Player(client, "tally", seed=3)
    player.act(*WINNING)
    player.key = register(client, "Ada L.")
    done = player.post("finish", {"rating": 8, "player": "Ada L."}).json()
    assert done["player"] == "Ada L." and done["rank"] is None


def test_finish_refuses_a_bad_player_name(client, database):
    player = Player(client, "tally", seed=None)
    player.act(*WINNING)
    reply = player.post("finish", {"rating": 8, "player": "\x07"})
    assert reply.status_code == 422 and "player" in reply.text


@pytest.mark.parametrize(
    "body",
    [None, {}, {"seed": None}, {"options": {}}, {"options": None}, {"ranked": False}],
)
def test_only_an_explicit_ranked_request_is_ranked(client, body, database):
    """No body, an empty one, a seed or options field sent at all (null, {}) and ranked
    false are all practice, on a seed the server draws and shows; ranked true alone is
    ranked."""
    sent = {} if body is None else {"json": body}
    view = client.post("/games/tally/api/new", **sent).json()
    assert view["ranked"] is False and isinstance(view["seed"], int), view
    assert client.post("/games/tally/api/new", json={"ranked": True}).json()["ranked"] is True


@pytest.mark.parametrize(
    "body",
    [{"ranked": True, "seed": 5}, {"ranked": True, "seed": None}, {"ranked": True, "options": {}}],
)
def test_ranked_with_a_seed_or_options_is_refused_and_nothing_is_stored(client, body, database):
    response = client.post("/games/tally/api/new", json=body)
    assert response.status_code == 422, response.text
    assert "ranked" in response.json()["error"] and "seed" in response.json()["error"]
    storage = client.app.state.services.storage
    with storage.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM sessions").scalar_one() == 0


def test_seed_null_and_empty_options_read_alike_at_every_door(client, database):
    """The stateless, session and MCP doors: options null, {} and absent start the same
    game on the same seed; seed null is a seed the server draws and answers."""
    seed = random.randrange(1 << 62, MAX_SEED)
    fingerprints = set()
    for extra in ({}, {"options": {}}, {"options": None}):
        init = client.post("/api/games/gem-swap/init", json={"seed": seed, **extra}).json()
        fingerprints.add(init["fingerprint"])
        view = client.post("/games/gem-swap/api/new", json={"seed": seed, **extra}).json()
        assert view["seed"] == seed and view["ranked"] is False
        assert view["observation"] == init["observation"]
    table = MatchTable(client.app.state.services.storage)
    for options in (None, {}):
        _, match = table.start(None, "gem-swap", seed, options)
        assert match.options == {}
        fingerprints.add(match.fingerprint())
    assert fingerprints == {Match.start("gem-swap", seed).fingerprint()}
    drawn = client.post("/api/games/gem-swap/init", json={"seed": None}).json()
    assert 0 <= drawn["seed"] <= MAX_SEED
    assert drawn["fingerprint"] == Match.start("gem-swap", drawn["seed"]).fingerprint()
    _, match = table.start(None, "gem-swap", None, None)
    assert 0 <= match.seed <= MAX_SEED
