"""The observation, the text board, the JSON form, the text grammar, keys and spec."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import CommandError, StateError
from playbench.core.controls import controls_of
from playbench.core.match import Match
from playbench.games.chimestep.rules import ActionError, ParsedAction, parse_action
from playbench.terminal import TerminalSession

from .helpers import GAME, hush_entry, playing, run

OBSERVATION_KEYS = {
    "status",
    "phaseTicks",
    "stage",
    "target",
    "tiles",
    "remaining",
    "position",
    "hopCooldown",
    "bufferedHop",
    "teeter",
    "lives",
    "chain",
    "tollCharges",
    "tollCooldown",
    "shimmerTicks",
    "hushCells",
    "dormantHush",
    "stageHops",
    "stageDamped",
    "par",
    "score",
    "tick",
}


def test_observation_has_exactly_the_seed_keys_and_hides_the_queue():
    state = playing(hush=[hush_entry("muffle", 4, 1), hush_entry("stalker", 6, 6, dormant=9)])
    view = GAME.observe(state)
    assert set(view) == OBSERVATION_KEYS == set(GAME.spec().observation)
    assert view["hushCells"] == [{"kind": "muffle", "row": 4, "col": 1}]
    assert view["dormantHush"] == [{"kind": "stalker", "row": 6, "col": 6, "dormantTicks": 9}]
    assert [len(tier) for tier in view["tiles"]] == [1, 2, 3, 4, 5, 6, 7]
    text = json.dumps(view)
    assert "spawn" not in text and "rng" not in text


def test_render_draws_the_tiers_centred_with_the_chick_and_hush():
    state = playing(
        position={"row": 1, "col": 1},
        hush=[hush_entry("tumble", 2, 0), hush_entry("muffle", 6, 6, dormant=3)],
    )
    lines = GAME.render(state).splitlines()
    assert lines[0] == "Chimestep  stage 1  target 1  playing"
    assert lines[2] == "            .1."
    assert lines[3] == "          .0. @0."
    assert lines[4] == "        .0T .0. .0."
    assert lines[8] == ".0. .0. .0. .0. .0. .0. .0m"
    assert "remaining 27" in lines[10] and "lives 3" in lines[10]


def test_render_shows_teeter_buffer_and_phase():
    state, _, _ = run(playing(), "hop upLeft")
    assert "TEETER upLeft 12" in GAME.render(state)
    state, _, _ = run(playing(), "hop downLeft", "hop downRight")
    assert "buffered downRight" in GAME.render(state)
    assert "send start" in GAME.render(GAME.new(1))


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("start", {"type": "start"}),
        ("START", {"type": "start"}),
        ("hop upLeft", {"type": "hop", "dir": "upLeft"}),
        ("hop UPRIGHT", {"type": "hop", "dir": "upRight"}),
        ("Hop dl", {"type": "hop", "dir": "downLeft"}),
        ("hop dr", {"type": "hop", "dir": "downRight"}),
        ("ul", {"type": "hop", "dir": "upLeft"}),
        ("  UR ", {"type": "hop", "dir": "upRight"}),
        ("downleft", {"type": "hop", "dir": "downLeft"}),
        ("toll", {"type": "toll"}),
        ("tick", {"type": "tick"}),
        ("tick 4", {"type": "tick", "count": 4}),
        ("TICK 99", {"type": "tick", "count": 30}),
        ("tick 30", {"type": "tick", "count": 30}),
        ("tick 0", {"type": "tick", "count": 1}),
        ("tick -3", {"type": "tick", "count": 1}),
        ("tick +007", {"type": "tick", "count": 7}),
        ("tick 1000000000", {"type": "tick", "count": 30}),
        ("tick " + "9" * 5000, {"type": "tick", "count": 30}),
    ],
)
def test_commands_parse(text, action):
    assert GAME.parse_command(text) == action


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), count=st.integers(-(10**12), 10**12))
def test_tick_n_is_one_reading_as_command_and_as_action(seed, count):
    """``tick N`` (the session, the terminal, MCP's commands) plays what the action
    ``{"type": "tick", "count": N}`` plays (the stateless API, Gymnasium): N clamped."""
    by_command = Match.start(GAME, seed)
    by_action = Match.start(GAME, seed)
    for match in (by_command, by_action):
        match.command("start")
    assert by_command.command(f"tick {count}").advanced
    assert by_action.play({"type": "tick", "count": count}).advanced
    assert by_command.fingerprint() == by_action.fingerprint()
    assert by_command.log[-1] == {"type": "tick", "count": min(30, max(1, count))}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hop", "direction"),
        ("hop up", "direction"),
        ("hop ul dr", "direction"),
        ("tick four", "whole number"),
        ("tick 4 5", "whole number"),
        ("tick 2.5", "whole number"),
        ("toll now", "nothing after"),
        ("ul 3", "nothing after"),
        ("jump", "unknown command"),
    ],
)
def test_bad_commands_say_what_is_wrong(text, words):
    with pytest.raises(CommandError, match=words):
        GAME.parse_command(text)


def test_terminal_keys_drive_the_game_and_leave_q_to_quit():
    controls = controls_of(GAME)
    assert "Q" not in controls.keys
    assert controls.idle == (1 / 12, "tick")
    for command in controls.keys.values():
        GAME.parse_command(command.removesuffix("...").strip())
    session = TerminalSession(Match(GAME, GAME.new(2)))
    session.press(" ")
    for _ in range(24 + 4):  # the intro, then the cooldown of the arrival on the apex
        session.run(controls.idle[1])
    session.press("j")
    assert GAME.observe(session.state)["position"] == {"row": 1, "col": 0}
    session.press("KEY_RIGHT")
    assert GAME.observe(session.state)["bufferedHop"] == "downRight"
    session.press("Q")
    assert session.quit


def test_to_json_round_trips_every_field():
    state, _, _ = run(
        playing(hush=[hush_entry("muffle", 5, 2, clock=3, awake=40)], chain=4, tollCharges=2),
        "hop upLeft",
        "tick 2",
    )
    data = GAME.to_json(state)
    again = GAME.from_json(json.loads(json.dumps(data)))
    assert GAME.to_json(again) == data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"game": "delvewick"}, "not a chimestep state"),
        ({"status": "paused"}, "status"),
        ({"stage": 0}, "stage"),
        ({"target": 2}, "target"),
        ({"tiles": [0] * 27}, "tiles"),
        ({"tiles": [2] * 28}, "tiles"),
        ({"position": {"row": 2, "col": 3}}, "position"),
        ({"hopCooldown": 5}, "hopCooldown"),
        ({"bufferedHop": "up"}, "bufferedHop"),
        ({"bufferedHop": ["upLeft"]}, "bufferedHop"),
        ({"hush": [{**hush_entry("tumble", 1, 0), "kind": ["tumble"]}]}, "kind"),
        ({"teeter": {"dir": "upLeft", "ticks": 13}}, "ticks"),
        ({"lives": 4}, "lives"),
        ({"tollCharges": 3}, "tollCharges"),
        ({"hush": [{"kind": "ghost", "row": 0, "col": 0}]}, "hush"),
        ({"hush": [hush_entry("tumble", 1, 0, clock=9)]}, "clock"),
        ({"freeLeap": 1}, "freeLeap"),
        ({"rng": [1]}, "rng"),
        ({"score": -1}, "score"),
        ({"lives": 0}, "done"),
        ({"extra": 1}, "unexpected"),
    ],
)
def test_from_json_says_what_is_wrong(change, words):
    data = GAME.to_json(playing())
    data.update(change)
    with pytest.raises(StateError, match=words):
        GAME.from_json(data)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({}, "type"),
        ({"type": "jump"}, "type"),
        ({"type": "hop"}, "dir"),
        ({"type": "hop", "dir": "up"}, "dir"),
        ({"type": "hop", "dir": ["upLeft"]}, "dir"),
        ({"type": ["hop"]}, "type"),
        ({"type": "hop", "dir": "upLeft", "speed": 2}, "only"),
        ({"type": "toll", "count": 1}, "only"),
        ({"type": "tick", "dir": "upLeft"}, "only"),
    ],
)
def test_malformed_actions_are_refused_with_a_reason(action, words):
    state = playing()
    outcome = GAME.step(state, action)
    assert not outcome.ok and outcome.state is state and words in outcome.reason


def test_spec_writes_the_chosen_numbers():
    text = " ".join(GAME.spec().rules)
    for phrase in (
        "stageIntro (24 ticks)",
        "recovering (24 ticks)",
        "stageClear (36 ticks)",
        "36 shimmer ticks",
        "tollCooldown to 24",
        "Tumble period 7",
        "stalker 14",
        "muffle 10",
        "72 ticks at stage 1",
        "never below 30",
        "stage 1 tumble, tumble, stalker",
        "1 on stages 1 to 2",
        "2 on stage 3",
    ):
        assert phrase in text, phrase


def test_new_refuses_options():
    from playbench.core import OptionsError

    with pytest.raises(OptionsError, match="no options"):
        GAME.new(1, {"startStage": 3})


def test_spec_names_the_terminal_keys_where_the_board_says_send_start():
    rules = GAME.spec().rules
    assert "send start" in GAME.render(GAME.new(1))
    assert rules[-1].startswith("Terminal keys: u or 7 or left arrow: hop upLeft;")
    assert "space or s: start; t: toll; full stop: tick; n: tick (asks for the count)" in rules[-1]
    assert rules[-1].endswith(
        "Q quits. While no key is pressed the terminal sends tick 12 times a second."
    )
    start = GAME.spec().commands[0]
    assert start.description == "begin the run (only while waiting; in the terminal, space or s)"


def test_spec_writes_the_progress_definition():
    progress = GAME.spec().rules[-2]
    assert progress.startswith("Progress (0 to 1, reported beside the score): (stages cleared")
    assert "/ (30 - the start's free share)" in progress and "28 x target" in progress
    assert "(1/28), so a run has progress 0 at its start" in progress


def test_parse_action_raises_a_precise_error():
    assert parse_action({"type": "tick", "count": 99}) == ParsedAction("tick", 30)
    assert parse_action({"type": "hop", "dir": "downLeft"}) == ParsedAction("hop", 2)
    with pytest.raises(ActionError, match="hop dir must be one of upLeft"):
        parse_action({"type": "hop", "dir": "up"})


def test_the_phase_counts_down_in_the_observation_and_the_text_board():
    match = Match.start("chimestep", 7)
    assert match.view()["observation"]["phaseTicks"] == 0
    match.command("start")
    view = match.view()
    assert (view["observation"]["status"], view["observation"]["phaseTicks"]) == ("stageIntro", 24)
    assert "get ready: play starts in 24 ticks" in view["board"]
    assert not match.command("hop dl").ok
    match.command("tick 20")
    assert match.view()["observation"]["phaseTicks"] == 4
    assert "play starts in 4 ticks" in match.view()["board"]
    match.command("tick 4")
    view = match.view()
    assert (view["observation"]["status"], view["observation"]["phaseTicks"]) == ("playing", 0)
    assert "play starts" not in view["board"]
    assert match.command("hop dl").ok
