"""The text grammar, select/deselect, refusals, options, the JSON form and the views."""

import json

import pytest

from playbench.core import CommandError, OptionsError, StateError
from playbench.core.controls import controls_of
from playbench.core.match import Match
from playbench.terminal import TerminalSession
from tests.games.gemswap.boards import GAME, board, cell, play, start


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("swap C4 right", "swap C4 right"),
        ("SWAP c4 RIGHT", "swap C4 right"),
        ("  swap   c4   right ", "swap C4 right"),
        ("swap D4 left", "swap C4 right"),
        ("swap C4 D4", "swap C4 right"),
        ("swap d4 c4", "swap C4 right"),
        ("swap C4 down", "swap C4 down"),
        ("swap C5 up", "swap C4 down"),
        ("swap C5 C4", "swap C4 down"),
        ("swap H7 down", "swap H7 down"),
        ("hint", "hint"),
        ("Moves", "moves"),
        ("select c4", "select C4"),
        ("DESELECT", "deselect"),
    ],
)
def test_commands_parse_to_one_normal_form(text, normal):
    assert GAME.parse_command(text) == {"command": normal}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("swap A1 left", "no neighbour left"),
        ("swap H8 down", "no neighbour down"),
        ("swap A1 up", "no neighbour up"),
        ("swap H3 right", "no neighbour right"),
        ("swap C4 E4", "not neighbours"),
        ("swap C4 D5", "not neighbours"),
        ("swap C4 C4", "not neighbours"),
        ("swap I4 right", "'i4' is not a cell"),
        ("swap C9 up", "'c9' is not a cell"),
        ("swap C4 sideways", "neither a direction"),
        ("swap C4", "swap takes a cell and a direction"),
        ("swap", "swap takes a cell and a direction"),
        ("hint please", "hint takes nothing after it"),
        ("select", "select takes one cell"),
        ("select A0", "'a0' is not a cell"),
        ("jump C4", "unknown command 'jump'"),
    ],
)
def test_bad_commands_say_what_is_wrong(text, words):
    with pytest.raises(CommandError) as info:
        GAME.parse_command(text)
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"command": "swap A1 left"}, "no neighbour left"),
        ({"command": 3}, "must be text"),
        ({}, "exactly one key"),
        ({"command": "hint", "extra": 1}, "exactly one key"),
        ({"type": "swap"}, "exactly one key"),
        ("swap C4 right", "an action is an object"),
    ],
)
def test_step_refuses_bad_actions_with_the_reason(action, words):
    state = start(0, C4="R", D4="R", F4="R")
    outcome = GAME.step(state, action)
    assert not outcome.ok and outcome.state is state
    assert words in outcome.reason


def test_legal_actions_are_normal_swaps_then_hint_and_moves():
    state = start(0, C4="R", D4="R", F4="R", A8="W", B8="W", C7="W")
    assert GAME.legal_actions(state) == [
        {"command": "swap E4 right"},
        {"command": "swap C7 down"},
        {"command": "hint"},
        {"command": "moves"},
    ]


def test_a_color_bomb_can_swap_with_every_neighbour():
    state = start(0, A1="@", C4="R", D4="R", F4="R")
    swaps = [a["command"] for a in GAME.legal_actions(state) if a["command"].startswith("swap")]
    assert swaps == ["swap A1 right", "swap A1 down", "swap E4 right"]


def test_select_then_a_neighbour_swaps():
    state = start(2, C4="R", D4="R", F4="R")
    picked = play(state, "select F4")
    assert picked.events == [{"type": "select", "cell": "F4"}]
    assert GAME.observe(picked.state)["selected"] == "F4"
    assert "selected F4" in GAME.render(picked.state)
    swapped = play(picked.state, "select E4")
    assert swapped.events[0] == {"type": "swap", "cells": ["E4", "F4"]}
    assert swapped.reward == 30
    assert GAME.observe(swapped.state)["selected"] is None
    assert GAME.observe(swapped.state)["movesMade"] == 1


def test_select_of_a_neighbour_that_makes_no_line_is_refused_keeping_the_selection():
    picked = play(start(0, C4="R", D4="R", F4="R"), "select A1").state
    outcome = GAME.step(picked, {"command": "select B1"})
    assert not outcome.ok and outcome.state is picked
    assert GAME.observe(picked)["selected"] == "A1"


def test_select_the_same_gem_again_deselects_it():
    picked = play(start(0, C4="R", D4="R", F4="R"), "select A1").state
    outcome = play(picked, "select A1")
    assert outcome.events == [{"type": "deselect"}]
    assert GAME.observe(outcome.state)["selected"] is None


def test_select_a_far_gem_moves_the_selection():
    picked = play(start(0, C4="R", D4="R", F4="R"), "select A1").state
    outcome = play(picked, "select H8")
    assert GAME.observe(outcome.state)["selected"] == "H8"


def test_deselect_clears_and_is_refused_with_nothing_selected():
    state = start(0, C4="R", D4="R", F4="R")
    refused = GAME.step(state, {"command": "deselect"})
    assert not refused.ok and refused.reason == "nothing is selected"
    picked = play(state, "select C4").state
    cleared = play(picked, "deselect")
    assert cleared.events == [{"type": "deselect"}]
    assert GAME.observe(cleared.state)["selected"] is None


def test_a_swap_command_clears_the_selection():
    picked = play(start(2, C4="R", D4="R", F4="R"), "select A1").state
    outcome = play(picked, "swap E4 right")
    assert GAME.observe(outcome.state)["selected"] is None


def test_step_does_not_change_the_state_it_is_given():
    state = start(0, A4="R", B4="R", D4="R", C5="R")
    before = GAME.to_json(state)
    play(state, "swap C4 down")
    play(state, "hint")
    play(state, "select C4")
    assert GAME.to_json(state) == before


def test_observation_has_exactly_the_listed_keys():
    state = start(0, A1="R-", B1="W|", C1="P+", D1="@", C4="R", D4="R", F4="R")
    seen = GAME.observe(state)
    assert set(seen) == {
        "board",
        "movesLeft",
        "movesMade",
        "score",
        "selected",
        "gameOver",
        "hint",
    }
    assert seen["board"][0][:4] == ["R-", "W|", "P+", "@"]
    assert len(seen["board"]) == 8 and all(len(row) == 8 for row in seen["board"])
    assert (seen["movesLeft"], seen["movesMade"], seen["score"]) == (30, 0, 0)
    assert seen["selected"] is None and seen["gameOver"] is False
    assert seen["hint"] is None


def test_observation_does_not_depend_on_the_future_refills():
    rows = board(C4="R", D4="R", F4="R")
    one, two = GAME.new(1, {"board": rows}), GAME.new(2, {"board": rows})
    assert GAME.observe(one) == GAME.observe(two)
    assert GAME.render(one) == GAME.render(two)
    assert GAME.to_json(one)["rng"] != GAME.to_json(two)["rng"]


def test_render_shows_the_board_and_status():
    state = start(0, A1="R-", D1="@", C4="R", D4="R", F4="R")
    lines = GAME.render(state).splitlines()
    assert lines[0] == "   A  B  C  D  E  F  G  H"
    assert lines[1].startswith(" 1 R- B  Y  @  O ")
    assert lines[4] == " 4 " + "  ".join(["B", "Y", "R", "R", "G", "R", "Y", "P"])
    assert lines[9] == "score 0   moves 0/30 (30 left)"
    assert len(lines) == 10


def test_render_says_when_the_game_is_over():
    state = GAME.from_json({**GAME.to_json(GAME.new(3)), "movesMade": 30, "score": 70})
    assert GAME.render(state).splitlines()[-1] == "game over: final score 70"


def test_board_option_accepts_letter_strings():
    rows = ["".join(row) for row in board(C4="R", D4="R", F4="R")]
    state = GAME.new(0, {"board": [row.lower() for row in rows]})
    assert ["".join(row) for row in GAME.observe(state)["board"]] == rows


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ("RGB", "a list of 8 rows, got str"),
        (board()[:7], "a list of 8 rows, got 7 rows"),
        ([*board()[:7], ["R"] * 7], "row 8 must have 8 cells, got 7"),
        ([*board()[:7], "RGBYPOWRG"], "row 8 must have 8 cells, got 9"),
        ([*board()[:7], 5], "row 8 must be a string"),
        (board(E2="X"), "cell E2 holds 'X', not a gem"),
        (board(E2="R*"), "cell E2 holds 'R*', not a gem"),
        (board(E2="@-"), "cell E2 holds '@-', not a gem"),
        (board(E2="R\n"), "cell E2 holds 'R\\n', not a gem"),
        (board(E2="r"), "cell E2 holds 'r', not a gem"),
        (board(A1="R", B1="R", C1="R"), "already has a line of R at A1-C1"),
        (board(B2="W", B3="W-", B4="W+"), "already has a line of W at B2-B4"),
    ],
)
def test_bad_board_options_are_refused_naming_the_problem(rows, words):
    with pytest.raises(OptionsError) as info:
        GAME.new(0, {"board": rows})
    assert words in str(info.value)


def test_unknown_options_are_refused():
    with pytest.raises(OptionsError, match=r"unknown options \['level'\]; Gem Swap takes"):
        GAME.new(0, {"level": 2})
    with pytest.raises(OptionsError, match="Gem Swap options must be a JSON object"):
        GAME.new(0, ["board"])


def test_three_color_bombs_in_a_row_are_not_a_line():
    state = start(0, A1="@", B1="@", C1="@")
    assert cell(state, "B1") == "@"


def test_json_round_trip_keeps_everything():
    state = play(start(0, A4="R", B4="R", D4="R", C5="R"), "swap C4 down", "select A1").state
    data = json.loads(json.dumps(GAME.to_json(state)))
    again = GAME.from_json(data)
    assert GAME.to_json(again) == GAME.to_json(state)
    assert GAME.legal_actions(again) == GAME.legal_actions(state)
    assert GAME.fingerprint(again) == GAME.fingerprint(state)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"game": "chimestep"}, "belongs to 'chimestep'"),
        ({"board": board()[:3]}, "got 3 rows"),
        ({"board": board(A1="R", A2="R", A3="R")}, "line of R at A1-A3"),
        ({"board": board()}, "no legal swap"),
        ({"score": 2**60}, "score must be an integer"),
        ({"score": "9"}, "score must be an integer"),
        ({"movesMade": 31}, "movesMade must be an integer from 0 to 30"),
        ({"movesMade": True}, "movesMade must be an integer from 0 to 30"),
        ({"selected": "Z9"}, "selected must be a cell"),
        ({"selected": ["A1"]}, "selected must be a cell"),
        ({"selected": {"cell": "A1"}}, "selected must be a cell"),
        ({"rng": [1]}, "rng state"),
    ],
)
def test_from_json_names_what_is_wrong(change, words):
    data = {**GAME.to_json(start(0, C4="R", D4="R", F4="R")), **change}
    with pytest.raises(StateError) as info:
        GAME.from_json(data)
    assert words in str(info.value)


def test_from_json_needs_exactly_the_state_keys():
    data = GAME.to_json(GAME.new(1))
    del data["score"]
    with pytest.raises(StateError, match=r"missing \['score'\]"):
        GAME.from_json(data)


def test_terminal_keys_prompt_for_commands_and_leave_q_alone():
    assert controls_of(GAME).keys["s"] == "swap ..."
    assert controls_of(GAME).keys[":"] == "..."
    assert controls_of(GAME).keys["\n"] == "..."
    assert controls_of(GAME).keys["h"] == "hint" and controls_of(GAME).keys["m"] == "moves"
    assert "Q" not in controls_of(GAME).keys
    assert GAME.score_can_fall is True


def test_spec_lists_the_seed_commands():
    spec = GAME.spec()
    assert [c.syntax for c in spec.commands] == [
        "swap <cell> <up|down|left|right>",
        "swap <cell> <cell>",
        "hint",
        "moves",
        "select <cell> | deselect",
    ]
    assert set(spec.observation) == set(GAME.observe(GAME.new(0)))
    assert "board" in spec.options


def test_terminal_play_prompts_then_swaps():
    session = TerminalSession(Match(GAME, start(2, C4="R", D4="R", F4="R")))
    assert session.press("s") == "swap"
    assert session.run("swap E4 right")
    assert GAME.score(session.state) == 30
    assert session.press(":") == ""
    assert not session.run("swap A1 right")
    assert session.message.startswith("refused: swapping A1 and B1")
    session.press("m")
    swaps = [a["command"] for a in GAME.legal_actions(session.state)][:-2]
    assert swaps == ["swap C1 down"]
    assert session.message == "1 swap makes a line: C1 down"
    session.press("h")
    assert session.message == "hint: swap C1 down lines up 3 gems (the hint cost 50 points)"
    assert GAME.score(session.state) == -20
    session.press("Q")
    assert session.quit
