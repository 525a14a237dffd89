"""Gem Swap's ``hint`` and ``moves`` at the HTTP doors: the answer is in what the client
reads next (the observation and the text board; the legal actions for ``moves``), on the
stateless route through its sealed state and on a session through its stored one."""

from __future__ import annotations

import random

import pytest

from playbench.core import get_game
from tests.server.helpers import Player

pytestmark = pytest.mark.databases("sqlite", "postgresql")

GEM_SWAP = get_game("gem-swap")
HINT = {"command": "hint"}


def _answer(events: list[dict]) -> dict:
    (event,) = events
    assert event["type"] == "hint"
    return {"swap": event["swap"], "gems": event["gems"]}


def test_the_stateless_route_shows_a_bought_hint_until_the_next_swap(client):
    seed = random.randrange(2**31)
    body = client.get(f"/api/games/gem-swap/init?seed={seed}").json()
    assert body["observation"]["hint"] is None
    body = client.post(
        "/api/games/gem-swap/action", json={"state": body["state"], "action": HINT}
    ).json()
    answer = _answer(body["events"])
    assert body["observation"]["hint"] == answer, seed
    counted = client.post(
        "/api/games/gem-swap/action", json={"state": body["state"], "action": {"command": "moves"}}
    ).json()
    (event,) = counted["events"]
    swaps = [a for a in counted["legalActions"] if a["command"].startswith("swap ")]
    assert event == {"type": "moves", "count": len(swaps)}
    assert counted["observation"]["hint"] == answer, seed
    swapped = client.post(
        "/api/games/gem-swap/action",
        json={"state": counted["state"], "action": {"command": answer["swap"]}},
    ).json()
    assert swapped["ok"] and swapped["observation"]["hint"] is None, seed


def test_a_session_shows_a_bought_hint_in_its_act_and_its_state(client):
    seed = random.randrange(2**31)
    player = Player(client, "gem-swap", seed=seed)
    assert player.last["observation"]["hint"] is None
    reply = player.act("hint").json()
    answer = _answer(reply["results"][0]["events"])
    assert reply["observation"]["hint"] == answer, seed
    assert f"hint: {answer['swap']} lines up {answer['gems']} gems" in reply["board"]
    stored = client.get("/games/gem-swap/api/state", headers=player.auth()).json()
    assert stored["observation"]["hint"] == answer, seed
