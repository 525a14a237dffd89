"""Command text round trips over random play, exact progress values, and the rules'
refusals as precise exceptions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import CommandError, Rng
from playbench.games.gemswap import rules
from playbench.games.gemswap.commands import DESELECT, SELECT, SWAP, Parsed
from playbench.games.gemswap.view import PROGRESS_SCORE
from tests.games.gemswap.boards import GAME, play, start

DIRECTIONS = ("up", "down", "left", "right")


def with_score(state, score: int):
    return GAME.from_json({**GAME.to_json(state), "score": score})


# -- command text ----------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_command_text_round_trips_every_legal_action_over_random_play(seed):
    state = GAME.new(seed)
    chooser = Rng.from_seed(seed, 3)
    while not GAME.is_over(state):
        actions = GAME.legal_actions(state)
        for action in actions:
            text = GAME.command_text(action)
            assert text == action["command"]
            assert GAME.parse_command(text) == action
        state = GAME.step(state, chooser.choice(actions[:-2])).state


@given(st.sampled_from("ABCDEFGH"), st.integers(1, 8), st.sampled_from(DIRECTIONS))
def test_any_spelling_of_a_swap_has_one_command_text_that_parses_back(column, row, direction):
    text = f"  SwAp {column.lower()}{row}   {direction.upper()} "
    try:
        action = {"command": text}
        normal = GAME.command_text(action)
    except CommandError as error:
        assert "on the board's edge" in str(error)
        return
    assert GAME.parse_command(normal) == {"command": normal}
    assert GAME.command_text({"command": normal}) == normal
    assert GAME.parse_command(text) == {"command": normal}


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("swap D4 left", "swap C4 right"),
        ("swap C5 up", "swap C4 down"),
        ("swap c4 d4", "swap C4 right"),
        ("swap D4 C4", "swap C4 right"),
        ("SELECT h8", "select H8"),
        (" deselect ", "deselect"),
        ("HINT", "hint"),
        ("moves", "moves"),
    ],
)
def test_command_text_is_the_normal_form(text, normal):
    assert GAME.command_text({"command": text}) == normal
    assert GAME.parse_command(normal) == {"command": normal}


# -- progress --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("score", "progress"),
    [
        (0, 0.0),
        (10, 0.001),
        (1670, 0.167),
        (5000, 0.5),
        (9990, 0.999),
        (10_000, 1.0),
        (25_000, 1.0),
        (-50, 0.0),
        (-1000, 0.0),
    ],
)
def test_progress_is_the_score_over_10000_clamped(score, progress):
    assert PROGRESS_SCORE == 10_000
    assert GAME.progress(with_score(start(0, C4="R", D4="R", F4="R"), score)) == progress


def test_progress_of_a_played_swap_is_its_points_over_10000():
    state = start(1, C4="R", D4="R", F4="R")
    assert GAME.progress(state) == 0.0
    after = play(state, "swap E4 right").state
    assert GAME.score(after) == 30
    assert GAME.progress(after) == 0.003


def test_progress_rises_with_a_cascade_and_falls_with_a_hint():
    state = start(0, C4="R", D4="R", F4="R")
    scored = play(state, "swap E4 right").state
    assert GAME.score(scored) == 90
    assert GAME.progress(scored) == 0.009
    assert GAME.progress(play(scored, "hint").state) == 0.004
    assert GAME.progress(play(scored, "hint", "hint").state) == 0.0


# -- refusals are precise exceptions ---------------------------------------------------------
def test_a_swap_that_lines_up_nothing_raises_no_line_error():
    state = start(0, C4="R", D4="R", F4="R")
    with pytest.raises(rules.NoLineError, match="swapping A1 and B1 lines up no 3 gems"):
        rules.apply(state, Parsed(SWAP, 0, 1))


def test_deselect_with_nothing_selected_raises_nothing_selected_error():
    state = start(0, C4="R", D4="R", F4="R")
    with pytest.raises(rules.NothingSelectedError, match="nothing is selected"):
        rules.apply(state, Parsed(DESELECT))


def test_any_command_after_the_last_move_raises_game_over_error():
    state = GAME.from_json({**GAME.to_json(start(0, C4="R", D4="R", F4="R")), "movesMade": 30})
    for command in (Parsed(SELECT, 0), Parsed(SWAP, 26, 27), Parsed("hint")):
        with pytest.raises(rules.GameOverError, match="the game is over after 30 moves"):
            rules.apply(state, command)


def test_every_refusal_is_a_refusal_and_step_turns_it_into_a_reason():
    assert issubclass(rules.NoLineError, rules.Refusal)
    assert issubclass(rules.NothingSelectedError, rules.Refusal)
    assert issubclass(rules.GameOverError, rules.Refusal)
    state = start(0, C4="R", D4="R", F4="R")
    outcome = GAME.step(state, {"command": "swap A1 right"})
    assert not outcome.ok and outcome.state is state
    assert outcome.reason == "swapping A1 and B1 lines up no 3 gems"
