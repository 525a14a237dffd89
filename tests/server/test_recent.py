"""A session this process acted on lately is acted on from its recent entry, never from
a stale one: what another worker changed is seen, and the answers are those of a session
read from its row every time."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from playbench.server import create_app
from playbench.server.store import token_hash
from tests.server.helpers import Player, answer_headers

pytestmark = pytest.mark.databases("sqlite", "postgresql")

VOLATILE = ("sessionId", "agentCheck", "token")


def steady(answer: dict) -> dict:
    return {key: value for key, value in answer.items() if key not in VOLATILE}


def test_answers_from_the_recent_entry_are_those_from_the_row(client, slug):
    seed = random.SystemRandom().randrange(2**31)
    remembered, read = Player(client, slug, seed=seed), Player(client, slug, seed=seed)
    recent = client.app.state.services.recent
    picks = random.Random(seed)
    for turn in range(12):
        if remembered.last["gameOver"]:
            break
        command = picks.choice(remembered.last["commands"]) if turn % 4 else "not a command"
        one = remembered.act(command)
        other = read.act(command)
        recent.take(token_hash(read.token))  # the next act of this one reads its row
        assert one.status_code == other.status_code == 200, (seed, command, one.text)
        assert steady(one.json()) == steady(other.json()), (seed, turn, command)
    assert len(recent) == 1 and recent.take(token_hash(remembered.token)) is not None


def two_workers(settings) -> tuple[TestClient, TestClient]:
    return TestClient(create_app(settings)), TestClient(create_app(settings))


def act(client: TestClient, token: str, puzzle: dict, command: str):
    headers = answer_headers(puzzle, token)
    client.cookies.clear()
    return client.post("/games/tally/api/act", json={"command": command}, headers=headers)


def test_an_act_of_another_worker_is_seen_by_the_next_act_here(settings):
    first, second = two_workers(settings)
    with first, second:
        player = Player(first, "tally", seed=4)
        here = act(first, player.token, player.last["agentCheck"], "step 1")
        assert here.json()["observation"]["pos"] == 1
        assert len(first.app.state.services.recent) == 1
        there = act(second, player.token, here.json()["agentCheck"], "step 2")
        assert there.json()["observation"]["pos"] == 3
        again = act(first, player.token, there.json()["agentCheck"], "step 1")
        assert again.status_code == 200, again.text
        assert (again.json()["observation"]["pos"], again.json()["moves"]) == (4, 3)
        log = first.app.state.services.storage.log(again.json()["sessionId"])
        assert [entry.command for entry in log] == ["step 1", "step 2", "step 1"]


def test_a_session_finished_by_another_worker_takes_no_act_here(settings):
    first, second = two_workers(settings)
    with first, second:
        player = Player(first, "tally", seed=4)
        puzzle = player.last["agentCheck"]
        for command in ("step 2", "step 2", "step 2", "step 2"):
            reply = act(first, player.token, puzzle, command)
            assert reply.status_code == 200, reply.text
            puzzle = reply.json()["agentCheck"]
        assert reply.json()["gameOver"]
        headers = answer_headers(puzzle, player.token)
        done = second.post("/games/tally/api/finish", json={"rating": 5}, headers=headers)
        assert done.status_code == 200, done.text
        late = act(first, player.token, done.json()["agentCheck"], "step 1")
        assert late.status_code == 409
        assert late.json()["error"].startswith("this session is finished")


def test_a_refused_act_leaves_no_entry_and_the_next_reads_the_row(client):
    player = Player(client, "tally", seed=9)
    recent = client.app.state.services.recent
    assert player.act("step 1").status_code == 200 and len(recent) == 1
    wrong = {**player.last["agentCheck"], "question": "What is 1 + 1 * 1?"}
    player.last = {**player.last, "agentCheck": wrong}
    assert player.act("step 1").status_code == 403 and len(recent) == 0
    assert player.act("step 2").json()["observation"]["pos"] == 3 and len(recent) == 1
