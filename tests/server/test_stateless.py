"""The stateless API over every registered game: list, init, the seeds' curl flow."""

from __future__ import annotations

import json

import pytest

from playbench.core import Rng, canonical_json, get_game

FLOW_STEPS = 12


def test_games_list_names_every_game_with_its_urls(client):
    body = client.get("/api/games").json()
    slugs = [entry["slug"] for entry in body["games"]]
    assert body["count"] == len(slugs) and "tally" in slugs
    assert (
        body["service"] == "playbench" and body["howToPlay"] and body["docs"].endswith("/llms.txt")
    )
    tally = body["games"][slugs.index("tally")]
    assert tally == {
        "slug": "tally",
        "name": "Tally",
        "genre": "test",
        "description": "Walk a token to the goal.",
        "goal": "Reach cell 8.",
        "initUrl": "http://testserver/api/games/tally/init",
        "actionUrl": "http://testserver/api/games/tally/action",
        "docsUrl": "http://testserver/docs/api/tally",
    }


def test_init_with_seed_matches_the_engine(client, slug):
    game = get_game(slug)
    body = client.get(f"/api/games/{slug}/init", params={"seed": 7}).json()
    state = game.new(7)
    assert body["seed"] == 7
    assert body["observation"] == game.observe(state)
    assert body["legalActions"] == game.legal_actions(state)
    assert body["score"] == game.score(state)
    assert body["gameOver"] is game.is_over(state)
    assert body["spec"] == game.spec().to_json()
    assert isinstance(body["state"], str)


def test_post_init_equals_get_init(client, slug):
    got = client.get(f"/api/games/{slug}/init?seed=11").json()
    posted = client.post(f"/api/games/{slug}/init", json={"seed": 11}).json()
    assert posted["observation"] == got["observation"]
    assert posted["legalActions"] == got["legalActions"]
    assert posted["state"] != got["state"], "every seal is fresh (random IV)"


def test_init_without_seed_draws_one(client, slug):
    first = client.get(f"/api/games/{slug}/init").json()["seed"]
    second = client.post(f"/api/games/{slug}/init").json()["seed"]
    assert isinstance(first, int) and isinstance(second, int) and first != second


def test_curl_flow_carries_state_forward_like_the_engine(client, slug):
    """The seeds' loop: init with seed 7, then POST {state, action} with the returned state."""
    game = get_game(slug)
    chooser = Rng.from_seed(7, 1)
    body = client.get(f"/api/games/{slug}/init?seed=7").json()
    sealed, state = body["state"], game.new(7)
    for _ in range(FLOW_STEPS):
        if game.is_over(state):
            break
        action = chooser.choice(game.legal_actions(state))
        reply = client.post(f"/api/games/{slug}/action", json={"state": sealed, "action": action})
        assert reply.status_code == 200
        body = reply.json()
        outcome = game.step(state, action)
        state = outcome.state
        assert body["ok"] is True
        assert body["reward"] == outcome.reward and body["events"] == outcome.events
        assert body["observation"] == game.observe(state)
        assert body["legalActions"] == game.legal_actions(state)
        assert body["score"] == game.score(state)
        assert body["gameOver"] is game.is_over(state)
        sealed = body["state"]
    opened = client.app.state.services.sealer.open(slug, sealed)
    assert canonical_json(opened) == canonical_json(game.to_json(state))


def test_illegal_action_is_a_200_refusal_with_the_legal_actions(client, slug):
    game = get_game(slug)
    body = client.get(f"/api/games/{slug}/init?seed=7").json()
    for bad in (None, 7, "up", ["move", "up"]):
        reply = client.post(
            f"/api/games/{slug}/action", json={"state": body["state"], "action": bad}
        )
        assert reply.status_code == 200
        refused = reply.json()
        start = game.new(7)
        outcome = game.step(start, bad)
        assert refused["ok"] is False and refused["reason"] == outcome.reason
        assert refused["legalActions"] == game.legal_actions(outcome.state)
        if outcome.state is start:
            assert "state" not in refused
        else:
            assert refused["observation"] == game.observe(outcome.state)


def test_plain_refusal_returns_no_state(client):
    sealed = client.get("/api/games/tally/init?seed=7").json()["state"]
    body = client.post(
        "/api/games/tally/action", json={"state": sealed, "action": {"type": "step", "by": 3}}
    ).json()
    assert body == {
        "ok": False,
        "reason": "by must be 1 or 2",
        "legalActions": [{"type": "step", "by": 1}, {"type": "step", "by": 2}],
    }


def test_refusal_that_counts_returns_the_new_state(client):
    sealed = client.get("/api/games/tally/init?seed=7").json()["state"]
    for fumbles in (1, 2, 3):
        body = client.post(
            "/api/games/tally/action", json={"state": sealed, "action": {"type": "fumble"}}
        ).json()
        assert body["ok"] is False and body["reason"] == "fumbled: counted"
        assert body["observation"]["fumbles"] == fumbles
        sealed = body["state"]
    assert body["gameOver"] is True and body["legalActions"] == []


def test_bad_seed_and_options_are_422_naming_the_field(client, slug):
    for query in ("seed=-1", "seed=abc", f"seed={2**63}"):
        reply = client.get(f"/api/games/{slug}/init?{query}")
        assert reply.status_code == 422 and "query.seed" in reply.json()["error"]
    reply = client.post(f"/api/games/{slug}/init", json={"seed": "7"})
    assert reply.status_code == 422 and "body.seed" in reply.json()["error"]
    reply = client.post(f"/api/games/{slug}/init", json={"seed": 1, "colour": "red"})
    assert reply.status_code == 422 and "body.colour" in reply.json()["error"]


def test_options_the_game_refuses_are_422_with_its_reason(client):
    reply = client.post("/api/games/tally/init", json={"seed": 1, "options": {"size": 3}})
    assert reply.status_code == 422
    assert reply.json() == {"error": "tally takes no options, got ['size']"}


def test_unknown_slug_is_404_everywhere(client):
    for method, path in (
        ("get", "/api/games/nope/init"),
        ("post", "/api/games/nope/init"),
        ("post", "/games/nope/api/new"),
        ("get", "/docs/api/nope"),
        ("get", "/api/leaderboard/nope"),
    ):
        reply = getattr(client, method)(path)
        assert reply.status_code == 404, path
        assert reply.json()["error"].startswith("unknown game 'nope'")
    reply = client.post("/api/games/nope/action", json={"state": "x", "action": {}})
    assert reply.status_code == 404


def test_action_body_shape_errors_name_the_field(client):
    reply = client.post("/api/games/tally/action", json={"action": {"type": "step", "by": 1}})
    assert reply.status_code == 422 and reply.json()["error"] == "body.state: Field required"
    reply = client.post("/api/games/tally/action", json={"state": 5, "action": {}})
    assert reply.status_code == 422 and reply.json()["error"].startswith("body.state:")
    reply = client.post("/api/games/tally/action", json={"state": "x"})
    assert reply.status_code == 422 and reply.json()["error"] == "body.action: Field required"


def test_malformed_json_is_422(client):
    reply = client.post(
        "/api/games/tally/action",
        content=b'{"state": "x", "action": ',
        headers={"Content-Type": "application/json"},
    )
    assert reply.status_code == 422
    assert reply.json()["detail"][0]["type"] == "json_invalid"


BODY_ROUTES = ("/api/games/tally/init", "/games/tally/api/new")
TOO_DEEP = b'{"seed": 1, "options": {"x": ' + b"[" * 5000 + b"]" * 5000 + b"}}"


def test_json_too_deep_or_not_utf8_is_422_naming_the_body(client):
    for path in BODY_ROUTES:
        for body, why in ((TOO_DEEP, "nested too deeply"), (b'{"seed": \xff}', "not UTF-8")):
            reply = client.post(path, content=body, headers={"Content-Type": "application/json"})
            assert reply.status_code == 422, (path, reply.text)
            assert reply.json()["error"].startswith("body: ") and why in reply.json()["error"]


def test_json_syntax_error_names_the_body_and_the_place(client):
    for path in BODY_ROUTES:
        reply = client.post(
            path, content=b'{"seed": }', headers={"Content-Type": "application/json"}
        )
        assert reply.status_code == 422
        assert reply.json()["error"] == "body: invalid JSON at character 9: Expecting value"


def test_a_body_sent_as_another_content_type_is_told_to_send_json(client):
    for path in BODY_ROUTES:
        reply = client.post(path, content=b'{"seed": 1}', headers={"Content-Type": "text/plain"})
        assert reply.status_code == 422
        assert reply.json()["error"] == (
            "body: send a JSON object with Content-Type: application/json (got 'text/plain')"
        )


# -- the action route's fast path and the framework's route answer alike ----------------
def _step_both_ways(client, body: bytes):
    """The same request with Content-Length (the fast path) and chunked (the framework)."""
    headers = {"Content-Type": "application/json"}
    fast = client.post("/api/games/tally/action", content=body, headers=headers)
    framework = client.post("/api/games/tally/action", content=iter([body]), headers=headers)
    return fast, framework


def _opened(client, answer):
    body = answer.json()
    if "state" in body:
        body["state"] = client.app.state.services.sealer.open("tally", body["state"])
    return answer.status_code, body


@pytest.mark.parametrize(
    "action",
    [{"type": "step", "by": 1}, {"type": "step", "by": 3}, {"type": "fumble"}, "step", None],
)
def test_fast_path_and_framework_answer_alike(client, action):
    sealed = client.get("/api/games/tally/init?seed=7").json()["state"]
    body = json.dumps({"state": sealed, "action": action}).encode()
    fast, framework = _step_both_ways(client, body)
    assert _opened(client, fast) == _opened(client, framework)
    assert fast.headers["content-type"] == framework.headers["content-type"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"state": "x", "action": {}, "extra": 1}',
        b'{"state": "x", "action": {}}',
        b'{"state": ["x"], "action": {}}',
        b"[1, 2]",
        b'{"state": "x", "action": "\\ud800"}',
        b"",
    ],
)
def test_requests_the_fast_path_leaves_get_the_framework_answer(client, body):
    fast, framework = _step_both_ways(client, body)
    assert fast.status_code == framework.status_code and fast.status_code in (400, 422)
    assert fast.json() == framework.json()
