"""The Delvewick bot of the pinned interface, its beam solver and the state it rebuilds
from an observation."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.bots.delvewick import (
    REPLAN_WIDTH,
    Clear,
    beam_solve,
    clear_points,
    make_bot,
    play,
    splice,
    state_from_observation,
)
from playbench.core import OptionsError, get_game
from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS

GAME = get_game("delvewick")
#: the run of the 8 shipped solutions (asserted in the level tests too)
FULL_RUN_SCORE = 4760
FULL_RUN_TICKS = 376


def custom(rows, quota=1, oil=20):
    return {"level": {"name": "test", "quota": quota, "oil": oil, "rows": rows}}


def drive(match, bot, limit):
    """Let ``bot`` play ``match`` from JSON copies of the view until the run ends or the
    level changes (or ``limit`` moves); every action must be accepted."""
    level = match.view()["observation"]["level"]
    for _ in range(limit):
        view = json.loads(json.dumps(match.view()))
        if view["gameOver"] or view["observation"]["level"] != level:
            break
        result = match.play(bot.act(view))
        assert result.ok, result.reason
    return match.view()


def test_the_bot_wins_all_8_levels_from_the_view_alone_with_the_exact_score():
    match = Match.start("delvewick", 0)
    bot = make_bot(0)
    while not match.view()["gameOver"]:
        view = json.loads(json.dumps(match.view()))
        assert match.play(bot.act(view)).ok
    seen = match.view()
    assert seen["observation"]["status"] == "won"
    assert (seen["score"], seen["moves"], seen["progress"]) == (FULL_RUN_SCORE, FULL_RUN_TICKS, 1.0)


def test_off_its_plan_the_bot_replans_from_the_observation_and_clears_the_level():
    match = Match.start("delvewick", 0, {"startLevel": 3})
    for word in ("down", "down", "right", "right"):
        assert match.command(word).ok
    seen = drive(match, make_bot(0), LEVELS[2].oil)
    assert seen["observation"]["level"] == 4 and seen["observation"]["status"] == "playing"
    assert (seen["score"], seen["observation"]["tick"]) == (445, 37)


def test_the_bot_clears_a_custom_level_it_has_never_seen():
    match = Match.start("delvewick", 0, custom(["#######", "#M%*.X#", "#.O%*%#", "#######"], 2))
    seen = drive(match, make_bot(0), 20)
    assert seen["observation"]["status"] == "won" and seen["score"] == 25 + 35 + 100 + 5 * 15


def test_the_bot_is_deterministic():
    runs = []
    for _ in range(2):
        match = Match.start("delvewick", 0, {"startLevel": 2})
        for word in ("right", "down"):
            match.command(word)
        drive(match, make_bot(5), LEVELS[1].oil)
        runs.append(match.log)
    assert runs[0] == runs[1]


def test_without_a_clear_the_bot_answers_a_legal_action():
    match = Match.start("delvewick", 0, custom(["#####", "#M.X#", "#####"]))
    view = match.view()
    assert make_bot(0).act(view) in view["legalActions"]


def test_after_the_end_the_bot_answers_wait():
    match = Match.start("delvewick", 0, custom(["#####", "#M*X#", "#####"]))
    match.command("right")
    match.command("right")
    assert match.view()["gameOver"]
    assert make_bot(0).act(match.view()) == {"type": "wait"}


def test_make_bot_checks_the_seed():
    with pytest.raises(OptionsError, match="seed must be"):
        make_bot(-1)


def test_the_observation_rebuilds_every_state_of_the_shipped_run():
    state = GAME.new(0)
    for level in LEVELS:
        for letter in level.solution:
            state = play(state, letter)
            again = state_from_observation(GAME.observe(state), state.last_gem)
            assert GAME.to_json(again) == GAME.to_json(state)


def test_a_live_chain_without_its_last_gem_tick_is_read_with_the_least_time_left():
    state = play(GAME.new(0), "DDRRD")
    seen = GAME.observe(state)
    assert (seen["chain"], seen["tick"], state.last_gem) == (1, 5, 4)
    assert state_from_observation(seen).last_gem == 2
    assert state_from_observation({**seen, "chain": 0}).last_gem == 0


def test_a_board_off_the_shipped_levels_is_read_as_a_custom_level():
    state = GAME.new(0, custom(["######", "#M.O.#", "#.O%X#", "######"]))
    state = play(state, "RW")
    seen = GAME.observe(state)
    again = state_from_observation(seen)
    assert again.level.custom and again.level.name == "test"
    assert GAME.observe(again) == seen
    for letters in ("W", "RW", "WWW"):
        assert GAME.observe(play(again, letters)) == GAME.observe(play(state, letters))


def test_beam_solve_finds_the_best_clear_of_a_small_level():
    state = GAME.new(0, custom(["########", "#M*%*.X#", "########"]))
    assert beam_solve(state, REPLAN_WIDTH) == Clear("RRRRR", 25 + 35 + 100 + 5 * 16)


def test_beam_solve_returns_none_without_a_clear():
    assert beam_solve(GAME.new(0, custom(["#####", "#M.X#", "#####"]))) is None


#: a gem between two soil cells and the exit; below, a row of soil to wander in
SPLICE_ROWS = ["#######", "#M%*%X#", "#%%%%%#", "#######"]


def test_clear_points_counts_a_clear_and_refuses_anything_else():
    state = GAME.new(0, custom(SPLICE_ROWS))
    assert clear_points(state, "RRRR") == 25 + 100 + 5 * 17
    assert clear_points(state, "DURRRR") == 25 + 100 + 5 * 15
    assert clear_points(state, "RRR") is None
    assert clear_points(state, "RRRRW") is None
    assert clear_points(state, "LRRRR") is None


def test_splice_cuts_a_detour_out_of_a_clear():
    state = GAME.new(0, custom(SPLICE_ROWS))
    assert splice(state, Clear("DURRRR", 200)) == Clear("RRRR", 210)
    assert splice(state, Clear("DURRRR", 200), depth=1) == Clear("RRRR", 210)
    assert splice(state, Clear("RRRR", 210)) == Clear("RRRR", 210)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(("DU", "W", "DRUL", "RL")), max_size=3), st.integers(0, 3))
def test_splice_never_loses_points_and_its_letters_bank_them(detours, depth):
    state = GAME.new(0, custom(SPLICE_ROWS))
    letters = "".join(detours) + "RRRR"
    points = clear_points(state, letters)
    assert points == 25 + 100 + 5 * (20 - len(letters) + 1)
    better = splice(state, Clear(letters, points), depth)
    assert better.points >= points
    assert clear_points(state, better.letters) == better.points
    if depth >= 1:
        assert better == Clear("RRRR", 210)
