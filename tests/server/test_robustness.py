"""Whatever a client sends as an action or a command, every game answers 200, never 500."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from playbench.core import get_game
from tests.server.helpers import Player

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def test_any_json_action_is_answered(client, slug):
    game = get_game(slug)
    sealed = client.get(f"/api/games/{slug}/init?seed=3").json()["state"]
    shaped = st.fixed_dictionaries(
        {}, optional={key: JSON_VALUES for key in ("type", "dir", "command", "reply", "do")}
    )

    @given(action=JSON_VALUES | shaped)
    def check(action):
        reply = client.post(f"/api/games/{slug}/action", json={"state": sealed, "action": action})
        assert reply.status_code == 200
        outcome = game.step(game.new(3), action)
        assert reply.json()["ok"] is outcome.ok

    check()


def test_any_text_command_is_answered(client, slug):
    player = Player(client, slug, seed=3)
    words = st.sampled_from([c.example for c in get_game(slug).spec().commands])

    @given(command=st.text(max_size=60) | words | st.builds("{} {}".format, words, st.text()))
    def check(command):
        reply = player.act(command)
        assert reply.status_code == 200, reply.text
        assert reply.json()["results"][0]["command"] == command

    check()


LONE_SURROGATE = '"\\ud800"'


def _post_raw(client, path, raw, headers=None):
    headers = {"Content-Type": "application/json", **(headers or {})}
    return client.post(path, content=raw.encode(), headers=headers)


def test_lone_surrogates_are_422_not_500(client):
    player = Player(client, "tally")
    headers = {"Authorization": f"Bearer {player.token}"}
    reply = _post_raw(client, "/games/tally/api/act", f'{{"command": {LONE_SURROGATE}}}', headers)
    assert reply.status_code == 422 and reply.json()["error"].startswith("body.command:")
    reply = _post_raw(client, "/api/games/tally/init", f'{{"options": {{{LONE_SURROGATE}: 1}}}}')
    assert reply.status_code == 422 and reply.json()["error"].startswith("body.options:")
    sealed = client.get("/api/games/tally/init").json()["state"]
    raw = f'{{"state": "{sealed}", "action": {LONE_SURROGATE}}}'
    assert _post_raw(client, "/api/games/tally/action", raw).status_code == 422
