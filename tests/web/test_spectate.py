"""The spectator API: records, the live list, replays, the push feed and its limit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from playbench.core.match import Match
from playbench.server import Settings, create_app, sessions
from playbench.server.feed import MAX_STREAMS_PER_CLIENT, TooManyStreams, Watcher
from tests.server.helpers import Player

RANKED_SEED = 4242


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as test_client:
        yield test_client


def spectated(client: TestClient, session_id: str) -> dict:
    reply = client.get(f"/api/spectate/sessions/{session_id}")
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_record_of_a_practice_session_shows_the_view_and_the_last_action(client):
    player = Player(client, "delvewick", seed=7, player="Ada")
    player.act("down")
    player.act("left")
    record = spectated(client, player.last["sessionId"])
    match = Match.start("delvewick", 7)
    match.command("down")
    view = match.view()
    assert record["seed"] == 7 and record["ranked"] is False and record["player"] == "Ada"
    assert record["name"] == "Delvewick" and record["game"] == "delvewick"
    assert record["observation"] == view["observation"] and record["board"] == view["board"]
    assert record["moves"] == 1 and record["accepted"] == 1 and record["version"] == 2
    assert record["lastAction"] == {
        "command": "left",
        "ok": False,
        "reason": player.last["results"][0]["reason"],
        "reward": 0,
    }
    assert record["say"] is None and record["finished"] is False
    assert "state" not in record and "token" not in record


def test_ranked_session_hides_its_seed_and_replay_until_finished(client, monkeypatch):
    monkeypatch.setattr(sessions, "draw_seed", lambda: RANKED_SEED)
    player = Player(client, "gem-swap", seed=None)
    session_id = player.last["sessionId"]
    player.act("swap D2 right")
    record = spectated(client, session_id)
    assert record["ranked"] is True and record["seed"] is None
    assert str(RANKED_SEED) not in json.dumps(record)
    refused = client.get(f"/api/spectate/sessions/{session_id}/replay")
    assert refused.status_code == 403
    assert refused.json()["error"].startswith("a ranked session's seed stays secret")
    while not player.last["gameOver"]:
        player.act(next(c for c in player.last["commands"] if c.startswith("swap")))
    assert player.post("finish", {"rating": 5}).status_code == 200
    assert spectated(client, session_id)["seed"] == RANKED_SEED
    replay = client.get(f"/api/spectate/sessions/{session_id}/replay").json()
    assert replay["seed"] == RANKED_SEED and replay["finished"] is True
    assert [step["action"] for step in replay["steps"]] == player.last["log"]


def test_replay_of_a_practice_session_lists_the_actions_that_moved_it(client):
    player = Player(client, "gem-swap", seed=7, player="Bo")
    player.act("swap D2 right", "moves", "bogus", "hint")
    player.act("hint")
    replay = client.get(f"/api/spectate/sessions/{player.last['sessionId']}/replay").json()
    match = Match.start("gem-swap", 7)
    scores = []
    for command in ("swap D2 right", "hint"):
        match.command(command)
        scores.append(match.score)
    assert replay["game"] == "gem-swap" and replay["seed"] == 7 and replay["options"] == {}
    assert replay["agent"] == "Bo" and replay["finished"] is False
    assert replay["steps"] == [
        {"action": {"command": "swap D2 right"}, "reward": 30, "score": scores[0]},
        {"action": {"command": "hint"}, "reward": scores[1] - scores[0], "score": scores[1]},
    ]
    assert [step["action"] for step in replay["steps"]] == match.log


def test_cogcrawl_record_carries_the_say_line(client):
    player = Player(client, "cogcrawl", seed=7)
    player.act('{"actions": [{"do": "wait"}], "say": "hold the line"}')
    assert spectated(client, player.last["sessionId"])["say"] == "hold the line"


def test_live_lists_sessions_being_played_newest_first(client):
    first = Player(client, "delvewick", seed=1, player="first")
    second = Player(client, "delvewick", seed=2, player="second")
    Player(client, "chimestep", seed=3)
    first.act("down")
    live = client.get("/api/spectate/live", params={"slug": "delvewick"}).json()["sessions"]
    assert [entry["player"] for entry in live] == ["first", "second"]
    assert live[0] == {
        "sessionId": first.last["sessionId"],
        "slug": "delvewick",
        "player": "first",
        "ranked": False,
        "score": 0,
        "moves": 1,
        "watchUrl": f"/watch/{first.last['sessionId']}",
    }
    assert second.last["sessionId"] == live[1]["sessionId"]
    everything = client.get("/api/spectate/live").json()["sessions"]
    assert sorted(entry["slug"] for entry in everything) == ["chimestep", "delvewick", "delvewick"]


def test_unknown_sessions_and_games_are_clear_errors(client):
    missing = client.get("/api/spectate/sessions/abc123")
    assert missing.status_code == 404 and missing.json() == {"error": "no session abc123"}
    assert client.get("/api/spectate/sessions/not-hex!/replay").status_code == 422
    assert client.get("/api/spectate/sessions/abc123/stream").status_code == 404
    assert client.get("/api/spectate/live", params={"slug": "nope"}).status_code == 404
    assert client.get("/api/spectate/live", params={"limit": 0}).status_code == 422


def test_openapi_documents_the_push_feed(client):
    paths = client.get("/openapi.json").json()["paths"]
    stream = paths["/api/spectate/sessions/{session_id}/stream"]["get"]
    assert list(stream["responses"]["200"]["content"]) == ["text/event-stream"]
    assert "429" in stream["responses"]
    for path in (
        "/api/spectate/live",
        "/api/spectate/sessions/{session_id}",
        "/api/spectate/sessions/{session_id}/replay",
    ):
        assert path in paths
    assert not any(path.startswith(("/play", "/watch", "/assets")) for path in paths)


def test_docs_page_serves_swagger_ui_from_the_app(client):
    page = client.get("/docs").text
    assert "/docs/assets/swagger-ui-bundle.js" in page and "/docs/assets/swagger-ui.css" in page
    assert "cdn" not in page.lower() and "https://" not in page
    bundle = client.get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and bundle.headers["content-type"].startswith(
        "text/javascript"
    )
    assert "Apache License" in client.get("/docs/assets/LICENSE").text
    assert client.get("/docs/assets/../../secret.key").status_code == 404


def test_watcher_limits_streams_per_client_and_wakes_on_a_new_version(client):
    player = Player(client, "delvewick", seed=7)
    session_id = player.last["sessionId"]

    async def scenario() -> list[bool]:
        watcher = Watcher(client.app.state.services.storage, period=0.01)
        held = [watcher.subscribe(session_id, "10.0.0.1", 0) for _ in range(MAX_STREAMS_PER_CLIENT)]
        with pytest.raises(TooManyStreams, match="already has 8 open streams"):
            watcher.subscribe(session_id, "10.0.0.1", 0)
        other = watcher.subscribe(session_id, "10.0.0.2", 0)
        watcher.unsubscribe(held.pop())
        held.append(watcher.subscribe(session_id, "10.0.0.1", 0))
        quiet = await _woken(other, 0.1)
        player.act("down")
        woken = await _woken(other, 2.0)
        for subscription in [*held, other]:
            watcher.unsubscribe(subscription)
        return [quiet, woken, watcher.open_streams("10.0.0.1") == 0]

    # a thread of its own: the browser tests' driver may hold this thread's event loop
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert pool.submit(asyncio.run, scenario()).result() == [False, True, True]


async def _woken(subscription, seconds: float) -> bool:
    try:
        await asyncio.wait_for(subscription.changed.wait(), seconds)
    except TimeoutError:
        return False
    return True


def test_stream_pushes_each_act_across_workers_and_limits_each_address(server):
    with httpx.Client(base_url=server, timeout=10.0) as api:
        player = Player(api, "delvewick", seed=7)  # type: ignore[arg-type]
        session_id = player.last["sessionId"]
        url = f"/api/spectate/sessions/{session_id}/stream"
        with api.stream("GET", url) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            first = _next_event(lines)
            assert first["moves"] == 0
            for command in ("down", "down", "right"):
                player.act(command)
                event = _next_event(lines)
                assert event["lastAction"]["command"] == command
            assert event["moves"] == 3 and event["score"] == player.last["score"]
        opened = [api.stream("GET", url) for _ in range(2 * MAX_STREAMS_PER_CLIENT + 1)]
        answers = [context.__enter__() for context in opened]
        try:
            codes = sorted(answer.status_code for answer in answers)
        finally:
            for context in opened:
                context.__exit__(None, None, None)
    # each of the two workers holds at most eight streams of one address: of seventeen,
    # at least eight are served (the first worker to fill) and at least one is refused
    assert codes.count(200) >= MAX_STREAMS_PER_CLIENT and codes.count(429) >= 1
    assert codes.count(200) + codes.count(429) == len(codes)


def _next_event(lines: Iterator[str]) -> dict:
    name = None
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: ") and name == "state":
            return json.loads(line.removeprefix("data: "))
    raise AssertionError("the stream ended")
