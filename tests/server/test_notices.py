"""A Cogcrawl reply that ran in part says so in words at every door, and the seat
protocol's counting stays as it was (the turn is spent, ``ok`` stays true)."""

from __future__ import annotations

import json

import pytest

from tests.server.helpers import Player

FLY = '{"actions": [{"do": "fly"}]}'
CASES = [
    (
        FLY,
        "entry 0 (fly) was dropped: unknown verb 'fly'; "
        "no action of the reply ran, so the turn passed as a wait",
    ),
    (
        '{"actions": [{"do": "move", "dir": "up"}, {"do": "search"}]}',
        "entry 0 (move) was dropped: dir 'up' is not one of n s e w ne nw se sw",
    ),
    ('{"actions": []}', "no action of the reply ran, so the turn passed as a wait"),
    (
        '{"actions": [' + ", ".join(['{"do": "search"}'] * 12) + "]}",
        "2 entries past the first 10 were dropped unread",
    ),
]


@pytest.mark.parametrize(("reply", "notice"), CASES)
def test_the_session_api_says_what_was_dropped(client, reply, notice):
    player = Player(client, "cogcrawl", seed=4)
    answer = player.act(reply)
    assert answer.status_code == 200
    (result,) = answer.json()["results"]
    assert (result["ok"], result["notice"]) == (True, notice)
    assert answer.json()["moves"] == 1


def test_a_reply_that_ran_whole_has_no_notice(client):
    player = Player(client, "cogcrawl", seed=4)
    (result,) = player.act('{"actions": [{"do": "wait"}]}').json()["results"]
    assert result == {
        "command": '{"actions": [{"do": "wait"}]}',
        "ok": True,
        "reward": 0,
        "events": [],
    }


@pytest.mark.parametrize(("reply", "notice"), CASES)
def test_the_stateless_route_says_what_was_dropped(client, reply, notice):
    start = client.get("/api/games/cogcrawl/init?seed=4").json()
    # the fast path and the framework's route answer alike: a compact body and a spaced one
    for body in (
        json.dumps({"state": start["state"], "action": json.loads(reply)}),
        json.dumps({"state": start["state"], "action": json.loads(reply)}, indent=1) + " ",
    ):
        answer = client.post(
            "/api/games/cogcrawl/action", content=body, headers={"content-type": "application/json"}
        ).json()
        assert (answer["ok"], answer["notice"]) == (True, notice)
