"""Every refusal case of the seed: refused actions cost nothing and return the same state."""

import pytest

from playbench.games.delvewick import rules

from .helpers import DOWN, GAME, LEFT, RIGHT, UP, WAIT, custom, play


def assert_refused(state, action, *words):
    outcome = GAME.step(state, action)
    assert not outcome.ok
    assert outcome.state is state
    assert outcome.reward == 0 and outcome.events == []
    for word in words:
        assert word in outcome.reason
    assert action not in GAME.legal_actions(state)
    return outcome


def test_bedrock_is_refused_and_costs_nothing():
    state = custom(["#####", "#M.X#", "#####"])
    assert_refused(state, LEFT, "bedrock", "row 1, col 0")
    assert_refused(state, UP, "bedrock")
    assert state.oil == 50 and state.tick == 0


def test_closed_exit_is_refused_with_the_gems_missing():
    state = custom(["#####", "#MX*#", "#####"], quota=1)
    assert_refused(state, RIGHT, "closed", "1 more gems")


@pytest.mark.parametrize(
    ("rows", "action", "thing"),
    [
        (["####", "#O.#", "#M.#", "#.X#", "####"], UP, "boulder"),
        (["####", "#G.#", "#M.#", "#.X#", "####"], UP, "geode"),
        (["####", "#M.#", "#O.#", "#.X#", "####"], DOWN, "boulder"),
        (["####", "#M.#", "#G.#", "#%X#", "####"], DOWN, "geode"),
    ],
)
def test_vertical_moves_into_rocks_are_refused(rows, action, thing):
    state = custom(rows)
    assert_refused(state, action, thing, "only gems")


def test_vertical_move_into_a_gem_is_accepted():
    state = custom(["####", "#M.#", "#*.#", "#%X#", "####"])
    state, _ = play(state, "D")
    assert state.gems == 1


@pytest.mark.parametrize(
    ("rows", "beyond"),
    [
        (["######", "#MO%X#", "######"], "soil"),
        (["######", "#MO#X#", "######"], "bedrock"),
        (["#######", "#MOO.X#", "#######"], "boulder"),
        (["#######", "#MG*.X#", "#######"], "gem"),
    ],
)
def test_pushes_into_a_non_empty_cell_are_refused(rows, beyond):
    state = custom(rows)
    assert_refused(state, RIGHT, "cannot push", beyond)


def test_pushing_left_into_a_blocked_cell_is_refused():
    state = custom(["######", "#%OM.#", "####X#", "######"])
    assert_refused(state, LEFT, "cannot push the boulder left", "soil")


def test_pushing_a_falling_boulder_is_refused():
    rows = ["######", "#.O..#", "#M...#", "#%%%X#", "######"]
    state, _ = play(custom(rows), "W")
    assert GAME.observe(state)["board"][2] == "#Mo..#"
    assert_refused(state, RIGHT, "falling")


def test_actions_after_the_run_ended_are_refused():
    state, _ = play(custom(["#####", "#M.X#", "#####"], oil=1), "W")
    assert state.status == "outOfOil"
    for action in (WAIT, RIGHT):
        assert_refused(state, action, "ended", "outOfOil")
    assert GAME.legal_actions(state) == []


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "move"}, ["needs 'dir'"]),
        ({"type": "move", "dir": "north"}, ["unknown dir 'north'"]),
        ({"type": "move", "dir": "up", "far": True}, ["only 'type' and 'dir'"]),
        ({"type": "wait", "dir": "up"}, ["only 'type'"]),
        ({"type": "jump"}, ["unknown action type 'jump'"]),
        ({"dir": "up"}, ["needs 'type'"]),
        ({"type": "move", "dir": 1}, ["unknown dir 1"]),
        ({"type": "move", "dir": ["up"]}, ["unknown dir ['up']"]),
        ({"type": ["move"]}, ["unknown action type ['move']"]),
        ("wait", ["JSON object"]),
        (None, ["JSON object"]),
    ],
)
def test_malformed_actions_are_refused(action, words):
    assert_refused(custom(["#####", "#M.X#", "#####"]), action, *words)


def test_off_grid_is_refused_by_the_move_check():
    state = custom(["#####", "#M.X#", "#####"])
    state.pos = 0
    assert not rules.can_move(state, rules.LEFT)
    assert not rules.can_move(state, rules.DOWN)
    assert "leaves the grid" in rules.refusal(state, rules.LEFT)


def test_wait_is_legal_even_when_every_move_is_refused():
    state = custom(["#####", "#.#X#", "#O#.#", "#M#.#", "#####"])
    assert GAME.legal_actions(state) == [WAIT]
    assert GAME.step(state, WAIT).ok


def test_legal_actions_come_in_the_fixed_order():
    state = custom(["#####", "#.%.#", "#%M*#", "#.%X#", "#####"])
    assert GAME.legal_actions(state) == [UP, DOWN, LEFT, RIGHT, WAIT]
