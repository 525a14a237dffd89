"""Progress (levels cleared plus the gem share, over 8) and the command text of actions."""

import pytest

from playbench.core import CommandError
from playbench.games.delvewick.levels import LEVELS

from .helpers import BY_LETTER, GAME, custom, play


def winning_run():
    """Every state of one run through the 8 shipped solutions, the fresh one first."""
    state = GAME.new(0)
    states = [state]
    for level in LEVELS:
        for letter in level.solution:
            outcome = GAME.step(state, BY_LETTER[letter])
            assert outcome.ok, outcome.reason
            state = outcome.state
            states.append(state)
    return states


def test_command_text_round_trips_every_legal_action_along_the_shipped_solutions():
    checked = 0
    for state in winning_run():
        for action in GAME.legal_actions(state):
            text = GAME.command_text(action)
            assert text in ("up", "down", "left", "right", "wait")
            assert GAME.parse_command(text) == action
            checked += 1
    assert checked > 1000


def test_each_solution_letter_is_one_of_the_legal_commands_where_it_is_played():
    state = GAME.new(0)
    words = {"U": "up", "D": "down", "L": "left", "R": "right", "W": "wait"}
    for level in LEVELS:
        for letter in level.solution:
            commands = [GAME.command_text(a) for a in GAME.legal_actions(state)]
            assert words[letter] in commands
            state = GAME.step(state, BY_LETTER[letter]).state


@pytest.mark.parametrize(
    "action",
    [{"type": "move", "dir": "in"}, {"type": "move"}, {"type": "wait", "x": 1}, "up", None],
)
def test_command_text_of_a_non_action_is_an_error(action):
    with pytest.raises(CommandError, match="is not a Delvewick action"):
        GAME.command_text(action)


def test_progress_is_monotone_over_the_won_run_and_exactly_1_at_the_win():
    states = winning_run()
    seen = [GAME.progress(state) for state in states]
    assert all(0.0 <= value <= 1.0 for value in seen)
    assert seen == sorted(seen)
    assert seen[0] == 0.0
    assert states[-1].status == "won" and seen[-1] == 1.0
    assert all(value < 1.0 for value, s in zip(seen, states, strict=True) if s.level.number < 8)


def test_progress_at_each_level_start_is_the_levels_cleared_over_8():
    states = winning_run()
    firsts = {}
    for state in states:
        firsts.setdefault(state.level.number, GAME.progress(state))
    assert firsts == {n: (n - 1) / 8 for n in range(1, 9)}


@pytest.mark.parametrize("number", range(1, 9))
def test_a_fresh_start_level_has_progress_0(number):
    assert GAME.progress(GAME.new(0, {"startLevel": number})) == 0.0


def test_from_a_start_level_the_scale_is_the_levels_left():
    states = winning_run()
    later = [state for state in states if state.level.number >= 6]
    first = later[0]
    assert first.start == 1 and GAME.progress(first) == 5 / 8


def test_one_gem_of_topsoil_is_a_quarter_of_an_eighth():
    state, outcomes = play(GAME.new(0), "DDDDR")
    assert outcomes[-1].events[-1]["type"] == "collect"
    assert GAME.progress(state) == 0.03125


def test_gems_of_slate_gallery_from_its_start_add_ninths_of_a_quarter():
    one, _ = play(GAME.new(0, {"startLevel": 5}), "DDDRRR")
    three, _ = play(one, "DRRRRUDDR")
    assert (one.gems, three.gems, one.start) == (1, 3, 5)
    assert GAME.progress(one) == 1 / 9 / 4
    assert GAME.progress(three) == 3 / 9 / 4


def test_a_custom_level_is_a_run_of_one_level_and_extra_gems_are_capped():
    start = custom(["########", "#M***.X#", "########"], quota=2)
    one, _ = play(start, "R")
    three, _ = play(one, "RR")
    won, _ = play(three, "RR")
    assert [GAME.progress(s) for s in (start, one, three, won)] == [0.0, 0.5, 1.0, 1.0]
    assert (three.gems, three.status, won.status) == (3, "playing", "won")


def test_an_ended_run_keeps_its_progress():
    crushed, _ = play(custom(["#####", "#.O.#", "#...#", "#.M.#", "#..X#", "#####"]), "WW")
    assert crushed.status == "crushed" and GAME.progress(crushed) == 0.0
    starved, _ = play(custom(["######", "#M*.X#", "######"], quota=2, oil=3), "RWW")
    assert starved.status == "outOfOil" and GAME.progress(starved) == 0.5


def test_the_spec_writes_down_the_progress_definition():
    text = " ".join(GAME.spec().rules)
    assert "levels cleared since the run's start plus the current level's gem share" in text
    assert "0 at the start whatever the start level, 1 once won" in text
