"""POST /api/games/{slug}/frames: a replay's boards in one answer, for the replay viewer."""

from __future__ import annotations

from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS
from playbench.server.schemas import MAX_FRAMES

WORDS = {"U": "up", "D": "down", "L": "left", "R": "right", "W": "wait"}


def solution_actions() -> tuple[list[object], list[dict[str, object]]]:
    """Delvewick level 1's solution on seed 3: its actions and each frame as the kernel
    gives it (frame k after k actions)."""
    match = Match.start("delvewick", 3)
    frames = [match.view(("observation", "score", "gameOver"))]
    actions = []
    for letter in LEVELS[0].solution:
        result = match.command(WORDS[letter])
        actions.append(result.action)
        frames.append(match.view(("observation", "score", "gameOver")))
    return actions, frames


def test_frames_are_the_kernels_boards_in_one_answer(client) -> None:
    actions, expected = solution_actions()
    reply = client.post("/api/games/delvewick/frames", json={"seed": 3, "actions": actions})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["total"] == len(actions)
    assert [f["step"] for f in body["frames"]] == list(range(len(actions) + 1))
    assert [
        {k: f[k] for k in ("observation", "score", "gameOver")} for f in body["frames"]
    ] == expected


def test_a_window_of_frames_from_the_middle(client) -> None:
    actions, expected = solution_actions()
    body = {"seed": 3, "actions": actions, "start": 4, "count": 3}
    frames = client.post("/api/games/delvewick/frames", json=body).json()["frames"]
    assert [f["step"] for f in frames] == [4, 5, 6]
    assert [f["score"] for f in frames] == [e["score"] for e in expected[4:7]]


def test_an_action_the_rules_refuse_is_a_clear_422(client) -> None:
    actions, _ = solution_actions()
    body = {"seed": 3, "actions": [*actions[:2], {"move": "sideways"}]}
    reply = client.post("/api/games/delvewick/frames", json=body)
    assert reply.status_code == 422
    assert reply.json()["error"].startswith('action 3 ({"move":"sideways"}) was refused')


def test_more_frames_than_one_answer_holds_is_refused_by_name(client) -> None:
    body = {"seed": 3, "actions": [], "count": MAX_FRAMES + 1}
    reply = client.post("/api/games/delvewick/frames", json=body)
    assert reply.status_code == 422
    assert "count" in reply.json()["error"]


def test_the_stateless_answers_carry_the_fingerprint_at_init_and_at_the_end(client) -> None:
    """Delvewick on seed 7 is over after 40 waits: the last answer's fingerprint is the
    kernel's, as is init's; the steps between carry none (it costs a share of a step)."""
    match = Match.start("delvewick", 7)
    start = client.get("/api/games/delvewick/init?seed=7").json()
    assert start["fingerprint"] == match.fingerprint()
    step = start
    for count in range(1, 41):
        step = client.post(
            "/api/games/delvewick/action", json={"state": step["state"], "action": {"type": "wait"}}
        ).json()
        match.command("wait")
        assert ("fingerprint" in step) == (count == 40), count
    assert step["gameOver"] and step["fingerprint"] == match.fingerprint()


def test_an_action_that_is_not_an_object_or_holds_a_number_past_64_bits_is_a_422(client):
    """The schema says an action is an object (a number is refused before the rules), and
    an object holding a whole number JSON's 64-bit writers cannot write is refused by
    the rules and named in the error, not a 500."""
    for action, words in (
        (-(2**63) - 1, "valid dictionary"),
        ({"command": 2**70}, str(2**70)),
        ({"type": "hop", "dir": -(2**64)}, str(-(2**64))),
    ):
        for slug in ("gem-swap", "chimestep"):
            reply = client.post(f"/api/games/{slug}/frames", json={"seed": 1, "actions": [action]})
            assert reply.status_code == 422, reply.text
            assert words in reply.json()["error"], reply.text
