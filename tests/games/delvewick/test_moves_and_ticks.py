"""Moving, digging, collecting, pushing, and the tick order steps 1-7."""

from .helpers import GAME, RIGHT, WAIT, board, custom, play, types


def test_digging_soil_enters_it_and_costs_one_oil():
    state, (outcome,) = play(custom(["#####", "#M%X#", "#####"]), "R")
    assert board(state)[1] == "#.MX#"
    assert types(outcome) == ["move", "dig"]
    assert outcome.events[1]["cell"] == {"row": 1, "col": 2}
    assert (state.oil, state.tick, outcome.reward) == (49, 1, 0)


def test_walking_into_a_gem_collects_it():
    state, (outcome,) = play(custom(["######", "#M*X*#", "######"], quota=2), "R")
    assert board(state)[1] == "#.MX*#"
    assert outcome.reward == 25
    assert outcome.events[1] == {
        "type": "collect",
        "cell": {"row": 1, "col": 2},
        "points": 25,
        "chain": 1,
    }
    assert (state.gems, state.chain, state.score) == (1, 1, 25)


def test_a_falling_gem_beside_you_can_be_collected():
    rows = ["######", "#.*..#", "#M...#", "#%%%%#", "#%%%X#", "######"]
    state, _ = play(custom(rows, quota=2), "W")
    assert board(state)[2] == "#Mv..#"
    state, (outcome,) = play(state, "R")
    assert types(outcome) == ["move", "collect"]
    assert board(state)[2] == "#.M..#"


def test_pushing_keeps_the_boulder_at_rest_and_you_take_its_place():
    state, (outcome,) = play(custom(["#######", "#MO.%X#", "#######"]), "R")
    assert board(state)[1] == "#.MO%X#"
    assert outcome.events[1] == {
        "type": "push",
        "object": "boulder",
        "from": {"row": 1, "col": 2},
        "to": {"row": 1, "col": 3},
    }


def test_a_geode_pushed_off_a_ledge_falls_in_the_same_tick():
    rows = ["######", "#MG..#", "#%%.%#", "#%%.X#", "######"]
    state, (outcome,) = play(custom(rows), "R")
    assert board(state)[1:3] == ["#.M..#", "#%%g%#"]
    assert types(outcome) == ["move", "push", "fall"]


def test_the_exit_opens_in_the_tick_the_quota_is_reached():
    state, (outcome,) = play(custom(["######", "#M*X.#", "######"], quota=1), "R")
    assert types(outcome) == ["move", "collect", "exitOpen"]
    assert board(state)[1] == "#.ME.#"
    assert GAME.observe(state)["exitOpen"] is True


def test_a_caught_gem_opens_the_exit_in_the_same_tick():
    rows = ["#####", "#.*.#", "#...#", "#.M.#", "#..X#", "#####"]
    state, outcomes = play(custom(rows, quota=1), "WW")
    assert types(outcomes[1]) == ["caught", "exitOpen"]
    assert board(state)[4] == "#..E#"


def test_stepping_onto_the_open_exit_clears_with_no_gravity_and_no_oil():
    rows = ["#######", "#M*X.O#", "#####.#", "#####.#", "#######"]
    state, _ = play(custom(rows, quota=1), "R")
    assert board(state)[2] == "#####o#"
    before = state.oil
    state, (outcome,) = play(state, "R")
    assert types(outcome) == ["move", "levelClear", "won"]
    assert outcome.events[1]["points"] == 100 + 5 * before
    assert outcome.events[2]["points"] == 0
    assert outcome.reward == 100 + 5 * 49
    assert board(state)[1:3] == ["#..M..#", "#####o#"]
    assert (state.oil, state.status, state.tick) == (49, "won", 2)
    assert GAME.is_over(state)


def test_the_clear_bonus_counts_the_oil_left_before_the_step():
    state, outcomes = play(custom(["######", "#M*X.#", "######"], quota=1, oil=2), "RR")
    assert state.status == "won"
    assert outcomes[1].reward == 100 + 5 * 1
    assert state.score == 25 + 105


def test_chain_shows_zero_once_four_ticks_pass_without_a_gem():
    state = custom(["#######", "#M*.*X#", "#######"], quota=3)
    chains = []
    for letter in "RWWWW":
        state, _ = play(state, letter)
        chains.append(state.chain)
    assert chains == [1, 1, 1, 1, 0]


def test_a_gem_four_ticks_after_the_last_continues_the_chain():
    state, outcomes = play(custom(["########", "#M*.*.X#", "########"], quota=3), "RWWRR")
    assert outcomes[-1].reward == 25 + 10
    assert state.chain == 2


def test_a_gem_five_ticks_after_the_last_starts_a_new_chain():
    state, outcomes = play(custom(["########", "#M*.*.X#", "########"], quota=3), "RWWWRR")
    assert outcomes[-1].reward == 25
    assert state.chain == 1


def test_chain_bonus_grows_to_thirty_and_stays():
    state, outcomes = play(custom(["##########", "#M*****.X#", "##########"], quota=9), "RRRRR")
    assert [o.reward for o in outcomes] == [25, 35, 45, 55, 55]
    assert state.chain == 5 and state.score == 215


def test_oil_running_out_ends_the_run():
    state, outcomes = play(custom(["######", "#M%.X#", "######"], oil=2), "RW")
    assert state.status == "outOfOil" and state.oil == 0
    assert types(outcomes[1]) == ["outOfOil"]
    assert outcomes[0].state.status == "playing"


def test_boxed_in_on_a_settled_board_ends_the_run():
    state = custom(["######", "#O#X.#", "#M#..#", "######"])
    assert state.status == "playing"
    state, (outcome,) = play(state, "W")
    assert state.status == "boxedIn"
    assert types(outcome) == ["boxedIn"] and state.oil == 49


def test_boxed_in_waits_until_the_board_has_settled():
    rows = ["#######", "#O#X.O#", "#M#...#", "#####.#", "#######"]
    state = custom(rows)
    statuses = []
    for _ in range(3):
        state, _ = play(state, "W")
        statuses.append(state.status)
    assert statuses == ["playing", "playing", "boxedIn"]
    assert board(state)[3] == "#####O#"


def test_tick_counts_accepted_actions_only():
    state = custom(["######", "#M%#X#", "######"])
    state, _ = play(state, "RW")
    refused = GAME.step(state, RIGHT)
    assert not refused.ok and refused.state.tick == 2
    assert GAME.step(state, WAIT).state.tick == 3
