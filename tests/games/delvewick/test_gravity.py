"""The gravity pass: cases a-d, the scan order, one action per movable per pass."""

import pytest

from .helpers import board, custom, play, types


def test_a_fall_moves_one_cell_per_tick_then_lands():
    rows = ["#####", "#.O.#", "#...#", "#...#", "#M.X#", "#####"]
    state, outcomes = play(custom(rows), "WWWW")
    assert [types(o) for o in outcomes] == [["fall"], ["fall"], ["fall"], ["land"]]
    assert board(state)[1:5] == ["#...#", "#...#", "#...#", "#MOX#"]
    assert outcomes[0].events[0] == {
        "type": "fall",
        "object": "boulder",
        "from": {"row": 1, "col": 2},
        "to": {"row": 2, "col": 2},
    }


def test_a_stack_falls_together_bottom_first():
    rows = ["#####", "#.O.#", "#.*.#", "#...#", "#M.X#", "#####"]
    state, _ = play(custom(rows), "W")
    assert board(state)[1:4] == ["#...#", "#.o.#", "#.v.#"]


def test_b_you_hold_up_a_resting_boulder_indefinitely():
    rows = ["#####", "#.O.#", "#.M.#", "#..X#", "#####"]
    state, outcomes = play(custom(rows), "WWW")
    assert all(o.events == [] for o in outcomes)
    assert board(state)[1:3] == ["#.O.#", "#.M.#"]


def test_b_stepping_out_from_under_lets_it_fall_that_tick():
    rows = ["#####", "#.O.#", "#.M.#", "#..X#", "#####"]
    state, (outcome,) = play(custom(rows), "R")
    assert board(state)[1:3] == ["#...#", "#.oM#"]
    assert types(outcome) == ["move", "fall"]


@pytest.mark.parametrize(("glyph", "fallen", "name"), [("O", "o", "boulder"), ("G", "g", "geode")])
def test_b_a_falling_rock_crushes_you(glyph, fallen, name):
    rows = ["#####", f"#.{glyph}.#", "#...#", "#.M.#", "#..X#", "#####"]
    state, outcomes = play(custom(rows), "WW")
    assert state.status == "crushed"
    assert board(state)[2:4] == ["#...#", f"#.{fallen}.#"]
    assert outcomes[1].events == [
        {
            "type": "crushed",
            "object": name,
            "from": {"row": 2, "col": 2},
            "cell": {"row": 3, "col": 2},
        }
    ]
    assert state.oil == 48 and state.score == 0


def test_b_a_falling_gem_is_caught():
    rows = ["#####", "#.*.#", "#...#", "#.M.#", "#..X#", "#####"]
    state, outcomes = play(custom(rows, quota=2), "WW")
    assert outcomes[1].events == [
        {"type": "caught", "cell": {"row": 3, "col": 2}, "points": 25, "chain": 1}
    ]
    assert board(state)[2:4] == ["#...#", "#.M.#"]
    assert (state.gems, state.score, state.status) == (1, 25, "playing")


def test_c_roll_left_first():
    rows = ["#######", "#..O..#", "#..O..#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "WWW")
    assert [types(o) for o in outcomes] == [["roll"], ["fall"], ["land"]]
    assert board(state)[1:3] == ["#.....#", "#.OO..#"]


def test_c_roll_right_when_the_left_is_blocked():
    rows = ["#######", "#..O..#", "#.%O..#", "#M%%%X#", "#######"]
    state, _ = play(custom(rows), "W")
    assert board(state)[1] == "#...o.#"


def test_c_your_cell_never_counts_as_empty():
    rows = ["#######", "#..O..#", "#.MO..#", "#%%%%X#", "#######"]
    state, _ = play(custom(rows), "W")
    assert board(state)[1] == "#...o.#"


def test_c_no_roll_when_the_down_side_cells_are_not_empty():
    rows = ["#######", "#..O%.#", "#.%O..#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "W")
    assert outcomes[0].events == []
    assert board(state)[1] == "#..O%.#"


@pytest.mark.parametrize("support", ["*", "G", "O"])
def test_c_every_movable_is_rounded(support):
    rows = ["#######", "#..O..#", f"#.%{support}..#", "#M%%%X#", "#######"]
    state, _ = play(custom(rows), "W")
    assert board(state)[1] == "#...o.#"


def test_c_flat_cells_do_not_roll_anything():
    rows = ["#######", "#..O..#", "#..%..#", "#..#..#", "#M.X..#", "#######"]
    state, outcomes = play(custom(rows), "W")
    assert outcomes[0].events == []
    assert board(state)[1:3] == ["#..O..#", "#..%..#"]


def test_d_a_falling_geode_cracks_into_a_gem_when_it_lands():
    rows = ["#####", "#.G.#", "#...#", "#M%X#", "#####"]
    state, outcomes = play(custom(rows), "WW")
    assert outcomes[1].events == [{"type": "crack", "cell": {"row": 2, "col": 2}, "points": 10}]
    assert board(state)[2] == "#.*.#"
    assert state.score == 10 and state.gems == 0
    state, outcomes = play(state, "UR")
    assert state.gems == 1 and state.exit_open


def test_d_a_rolled_geode_cracks_when_it_comes_to_rest():
    rows = ["#######", "#..G..#", "#.%O..#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "WWW")
    assert [types(o) for o in outcomes] == [["roll"], ["fall"], ["crack"]]
    assert board(state)[1:4] == ["#.....#", "#.%O*.#", "#M%%%X#"]


def test_a_geode_at_rest_does_not_crack():
    rows = ["#####", "#.G.#", "#.%.#", "#M%X#", "#####"]
    state, outcomes = play(custom(rows), "WW")
    assert all(o.events == [] for o in outcomes)
    assert board(state)[1] == "#.G.#"


def test_movables_never_enter_an_exit():
    rows = ["#####", "#M.O#", "#*.X#", "#####"]
    state, outcomes = play(custom(rows), "W")
    assert outcomes[0].events == []
    assert board(state)[1:3] == ["#M.O#", "#*.X#"]


def test_scan_bottom_to_top_lets_the_lower_object_take_the_cell():
    rows = ["#######", "#..O..#", "#%O...#", "#.O.%.#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "W")
    assert board(state)[1:4] == ["#.o...#", "#%.o..#", "#.O.%.#"]
    assert [e["from"] for e in outcomes[0].events] == [
        {"row": 2, "col": 2},
        {"row": 1, "col": 3},
    ]


def test_scan_left_to_right_decides_which_of_two_rolls():
    rows = ["#######", "#%O.O%#", "#%O.O%#", "#%%%%%#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "W")
    assert board(state)[1:3] == ["#%.oO%#", "#%O.O%#"]
    assert types(outcomes[0]) == ["roll"]


def test_each_movable_acts_at_most_once_per_pass():
    rows = ["#######", "#%O..%#", "#%O..%#", "#%%..%#", "#M%%%X#", "#######"]
    state, outcomes = play(custom(rows), "W")
    assert board(state)[1:3] == ["#%.o.%#", "#%O..%#"]
    state, outcomes = play(state, "W")
    assert board(state)[1:3] == ["#%...%#", "#%Oo.%#"]
    assert types(outcomes[0]) == ["fall"]


def test_stepping_under_a_falling_boulder_is_fatal():
    rows = ["######", "#.O..#", "#....#", "#....#", "#..MX#", "######"]
    state, _ = play(custom(rows), "WW")
    assert board(state)[3] == "#.o..#"
    state, (outcome,) = play(state, "L")
    assert state.status == "crushed"
    assert types(outcome) == ["move", "crushed"]
    assert board(state)[3:5] == ["#....#", "#.o.X#"]
