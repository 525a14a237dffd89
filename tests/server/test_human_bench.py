"""A published suite played by a person: their finished practice sessions, one per
episode in order, published as a bench result of agent ``human`` under their name."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from playbench.runner.suite import load_suite
from playbench.server import Settings, create_app
from playbench.server.bench import ARCHIVES, VERDICTS, shelf_for
from playbench.server.guards import Rate
from playbench.server.human_bench import episodes
from tests.server.helpers import Player, register

NAME = "suite person"
#: commands a batch sends, drawn at random from the legal ones (a refusal stops it)
BATCH = 100
MAX_ACTS = 400


def played(client, slug: str, seed: int, options: dict) -> Player:
    """A practice session of the episode under NAME, played to its end and finished."""
    person = Player(client, slug, seed=seed, options=options or None, player=NAME)
    draw = random.Random(f"{slug}-{seed}")
    for _ in range(MAX_ACTS):
        if person.last["gameOver"]:
            break
        batch = [draw.choice(person.last["commands"]) for _ in range(BATCH)]
        assert person.act(*batch).status_code == 200
    assert person.last["gameOver"], (slug, seed)
    reply = person.post("finish", {"rating": 6, "review": "played by hand"})
    assert reply.status_code == 200, reply.text
    return person


def test_a_person_plays_the_quick_suite_and_it_is_listed_under_their_name(client) -> None:
    suite = load_suite("quick")
    wanted = episodes(suite)
    sessions = [
        played(client, slug, seed, options).last["sessionId"] for slug, seed, options, _ in wanted
    ]
    key = {"X-Player-Key": register(client, NAME)}
    body = {"suite": "quick", "player": NAME, "sessions": sessions}
    # out of order, it is not the suite played through
    swapped = {**body, "sessions": [sessions[1], sessions[0], *sessions[2:]]}
    refused = client.post("/api/bench/human", json=swapped, headers=key)
    assert refused.status_code == 422
    assert refused.json()["error"].startswith("episode 1 (delvewick, seed 1): session ")
    # without the key, no one publishes in the name
    assert client.post("/api/bench/human", json=body).status_code == 401
    reply = client.post("/api/bench/human", json=body, headers=key)
    assert reply.status_code == 201, reply.text
    published = reply.json()
    assert (published["agent"], published["player"], published["suite"]) == ("human", NAME, "quick")
    listed = client.get("/api/bench").json()
    rows = [r for r in listed["results"] if r["id"] == published["id"]]
    assert len(rows) == 1, listed
    assert rows[0]["agent"] == "human" and rows[0]["player"] == NAME
    # the same sessions again: their result, nothing built, simulated or stored again
    shelf = client.app.state.services.settings.data_dir / "bench"
    stored = sorted(
        path.name for folder in (VERDICTS, ARCHIVES) for path in (shelf / folder).iterdir()
    )
    checks = REGISTRY.get_sample_value("playbench_bench_checks_total")
    for _ in range(2):
        again = client.post("/api/bench/human", json=body, headers=key)
        assert again.status_code == 201 and again.json() == published
    assert REGISTRY.get_sample_value("playbench_bench_checks_total") == checks
    assert stored == sorted(
        path.name for folder in (VERDICTS, ARCHIVES) for path in (shelf / folder).iterdir()
    )


def test_the_human_bench_has_the_publishing_rate_and_the_configured_cpu_budget(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "data",
        rate_publish_per_player=Rate(per_second=1 / 3600, burst=1.0),
        bench_cpu_seconds=7,
    )
    with TestClient(create_app(settings)) as client:
        key = {"X-Player-Key": register(client, NAME)}
        body = {"suite": "quick", "player": NAME, "sessions": []}
        first = client.post("/api/bench/human", json=body, headers=key)
        assert first.status_code == 422 and "0 sessions were named" in first.json()["error"]
        assert shelf_for(settings.data_dir).limits.cpu_seconds == 7
        again = client.post("/api/bench/human", json=body, headers=key)
        assert again.status_code == 429
        assert again.json()["error"].startswith("too many bench results published by this player")


def test_an_unfinished_or_foreign_session_is_refused_by_episode(client) -> None:
    suite = load_suite("quick")
    slug, seed, options, _ = episodes(suite)[0]
    assert options == {"startLevel": 1}  # each slot of Delvewick its own level
    open_game = Player(client, slug, seed=seed, options=options, player=NAME)
    others = Player(client, slug, seed=seed, options=options, player="someone else")
    key = {"X-Player-Key": register(client, NAME)}
    count = len(episodes(suite))
    for first, said in (
        (open_game.last["sessionId"], "is not finished yet"),
        (others.last["sessionId"], "is not 'suite person''s"),
        ("0123456789abcdef", "no session '0123456789abcdef'"),
    ):
        body = {"suite": "quick", "player": NAME, "sessions": [first] * count}
        reply = client.post("/api/bench/human", json=body, headers=key)
        assert reply.status_code == 422 and said in reply.json()["error"], reply.text
    short = {"suite": "quick", "player": NAME, "sessions": []}
    reply = client.post("/api/bench/human", json=short, headers=key)
    assert reply.json()["error"].startswith(f"suite 'quick' has {count} episodes; 0 sessions")
    unknown = {"suite": "no-such-suite", "player": NAME, "sessions": []}
    assert client.post("/api/bench/human", json=unknown, headers=key).status_code == 404
