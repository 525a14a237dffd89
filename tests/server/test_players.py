"""Names that belong to someone: registration, its key, and the key on new and finish."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select

from playbench.server import Settings, create_app, names
from playbench.server.guards import Rate
from playbench.server.store import Storage
from playbench.server.store.schema import players
from tests.server.helpers import Player, answer_headers, register
from tests.server.test_sessions import WINNING, drawn_seeds

pytestmark = pytest.mark.databases("sqlite", "postgresql")


def count(client: TestClient, table: str) -> int:
    with client.app.state.services.storage.engine.connect() as conn:
        return conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table}").scalar_one()


def test_registering_answers_the_key_once_and_stores_only_its_hash(client, database):
    reply = client.post("/api/players", json={"name": "Grace H."})
    assert reply.status_code == 201, reply.text
    body = reply.json()
    assert set(body) == {"name", "key"} and body["name"] == "Grace H." and len(body["key"]) >= 40
    with client.app.state.services.storage.engine.connect() as conn:
        (row,) = conn.exec_driver_sql("SELECT name_key, key_hash FROM players").all()
    assert row.key_hash == hashlib.sha256(body["key"].encode()).hexdigest()
    assert body["key"] not in str(row)


@pytest.mark.parametrize(
    ("first", "second"),
    [("Ada", "ADA"), ("Ada", " ada "), ("Ⅰ", "i"), ("ｐｒｏｂｅ", "Probe"), ("Straße", "STRASSE")],
)
def test_names_are_unique_after_nfkc_and_case_folding(client, first, second, database):
    assert client.post("/api/players", json={"name": first}).status_code == 201
    taken = client.post("/api/players", json={"name": second})
    assert taken.status_code == 409 and "is taken" in taken.json()["error"], taken.text
    assert count(client, "players") == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [("Ada", "ɑda"), ("BOB", "B0B"), ("Adam", "Adarn"), ("Ilse", "lIse"), ("ɑda", "ADA")],
)
def test_a_look_alike_inside_latin_is_taken_like_one_across_scripts(
    client, first, second, database
):
    assert client.post("/api/players", json={"name": first}).status_code == 201
    taken = client.post("/api/players", json={"name": second})
    assert taken.status_code == 409, taken.text
    assert taken.json()["error"] == (
        f"the name {second} is taken, or one that looks like it: choose another"
    )
    assert count(client, "players") == 1
    assert client.post("/api/players", json={"name": "Ada Lovelace"}).status_code == 201


def test_the_skeleton_is_unicodes(client, database):
    assert names.skeleton("ɑda") == "ada" and names.skeleton("Adam") == "Adarn"
    assert names.skeleton("B0B") == "BOB" and names.skeleton("lIse") == "llse"
    assert names.look_key("Ｉlse") == names.look_key("lIse") == "llse"
    assert len(names.prototypes()) > 6000


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("prоbe", "mixes scripts (CYRILLIC, LATIN)"),  # a Cyrillic о
        ("Αda", "mixes scripts (GREEK, LATIN)"),  # a Greek Α
        ("аое", "look like Latin ones"),  # all Cyrillic, all Latin look-alikes
        ("ΑΒΕ", "look like Latin ones"),
    ],
)
def test_look_alike_names_are_refused_with_the_reason(client, name, reason, database):
    refused = client.post("/api/players", json={"name": name})
    assert refused.status_code == 422 and reason in refused.json()["error"], refused.text
    assert count(client, "players") == 0


@pytest.mark.parametrize(
    "name",
    [
        "\u2800",  # the blank Braille cell: a symbol drawn as nothing
        "\u3164",  # the Hangul filler
        "\u3164\u2800 \u115f\u1160",
        "\uffa0\u17b4\u034f",  # a halfwidth filler, an inherent vowel, a grapheme joiner
        "\u0301\u0301",  # combining marks on nothing
    ],
)
def test_names_with_no_visible_character_are_refused(client, name, database):
    refused = client.post("/api/players", json={"name": name})
    assert refused.status_code == 422, refused.text
    assert "visible character" in refused.json()["error"]
    assert count(client, "players") == 0


@pytest.mark.parametrize("name", ["José", "Иван", "Ελένη", "bot_7 v2", "l33t", "李小龍", "한국"])
def test_names_in_one_script_of_their_own_are_taken(client, name, database):
    reply = client.post("/api/players", json={"name": name})
    assert reply.status_code == 201 and reply.json()["name"] == name, reply.text


def test_registration_is_rate_limited_per_address(tmp_path: Path, database):
    settings = Settings(
        data_dir=tmp_path / "data", database_url=database, rate_register=Rate(0.001, 2.0)
    )
    with TestClient(create_app(settings)) as client:
        for name in ("one", "two"):
            assert client.post("/api/players", json={"name": name}).status_code == 201
        refused = client.post("/api/players", json={"name": "three"})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert count(client, "players") == 2


def test_a_name_needs_its_key_to_start_a_session(client, database):
    key = register(client, "owner")
    new = "/games/tally/api/new"
    missing = client.post(new, json={"player": "owner"})
    wrong = client.post(new, json={"player": "Owner"}, headers={"X-Player-Key": key + "x"})
    unknown = client.post(new, json={"player": "nobody"}, headers={"X-Player-Key": key})
    assert missing.status_code == 401 and "X-Player-Key" in missing.json()["error"]
    assert wrong.status_code == 403 and "not 'owner'" in wrong.json()["error"]
    assert unknown.status_code == 404 and "POST /api/players" in unknown.json()["error"]
    assert count(client, "sessions") == 0
    good = client.post(new, json={"player": "OWNER"}, headers={"X-Player-Key": key})
    assert good.status_code == 200 and good.json()["player"] == "owner"


def test_no_one_finishes_under_anothers_name_without_its_key(client, monkeypatch, database):
    register(client, "victim")
    drawn_seeds(monkeypatch, 11, 12)
    thief = Player(client, "tally", seed=None)
    thief.act(*WINNING)
    claimed = thief.post("finish", {"rating": 9, "player": "victim"})
    assert claimed.status_code == 401, claimed.text
    headers = answer_headers(thief.last["agentCheck"], thief.token) | {"X-Player-Key": "guess"}
    forged = client.post(
        "/games/tally/api/finish", json={"rating": 9, "player": "victim"}, headers=headers
    )
    assert forged.status_code == 403
    assert client.get("/api/leaderboard/tally").json()["entries"] == []


def test_a_ranked_game_is_named_when_it_starts_not_at_finish(client, monkeypatch, database):
    """Else a player could start many anonymous ranked games and name only the best."""
    drawn_seeds(monkeypatch, 21)
    anonymous = Player(client, "tally", seed=None)
    anonymous.act(*WINNING)
    anonymous.key = register(client, "late")
    refused = anonymous.post("finish", {"rating": 9, "player": "late"})
    assert refused.status_code == 409 and "is anonymous" in refused.json()["error"]
    anonymous.key = None
    done = anonymous.post("finish", {"rating": 9})
    assert done.status_code == 200 and done.json()["player"] is None


def test_finishing_a_players_session_needs_the_key(client, monkeypatch, database):
    drawn_seeds(monkeypatch, 31)
    owned = Player(client, "tally", seed=None, player="keeper")
    owned.act(*WINNING)
    key, owned.key = owned.key, None
    assert owned.post("finish", {"rating": 5}).status_code == 401
    owned.key = key
    done = owned.post("finish", {"rating": 5})
    assert done.status_code == 200 and done.json()["player"] == "keeper"


def test_the_registration_rate_comes_from_the_environment():
    assert Settings.from_env({"PLAYBENCH_RATE_REGISTER": "1/3"}).rate_register == Rate(1.0, 3.0)
    assert Settings.from_env({}).rate_register == Rate(10 / 3600, 10.0)


def test_players_of_an_earlier_schema_get_their_looks_the_oldest_first(tmp_path):
    url = f"sqlite:///{tmp_path / 'earlier.db'}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE players (name_key TEXT PRIMARY KEY, name TEXT NOT NULL, "
            "key_hash VARCHAR(64) NOT NULL, created_at FLOAT NOT NULL)"
        )
        conn.exec_driver_sql(
            """INSERT INTO players VALUES ('"adarn"', '"Adarn"', 'k2', 2.0), """
            """('"adam"', '"Adam"', 'k1', 1.0)"""
        )
    engine.dispose()
    storage = Storage(url)
    try:
        with storage.engine.connect() as conn:
            looks = dict(conn.execute(select(players.c.name, players.c.look_key)).all())
        assert looks == {"Adam": "adarn", "Adarn": None}
        assert storage.player("adarn").key_hash == "k2"  # the later look-alike still plays
        assert not storage.create_player("ADARN", "adarn.", "k3")  # its look is Adam's
    finally:
        storage.close()
