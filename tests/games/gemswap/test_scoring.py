"""Exact scores and events on constructed boards (see boards.py for the background)."""

from collections import Counter

import pytest

from playbench.core import StateError
from tests.games.gemswap.boards import GAME, board, cascades, cell, gem_counts, play, start


def first_step(outcome) -> dict:
    step = cascades(outcome)[0]
    assert step["step"] == 1
    return step


def test_plain_three_match_scores_30():
    state = start(2, C4="R", D4="R", F4="R")
    outcome = play(state, "swap E4 right")
    step = dict(first_step(outcome))
    assert [drop["cell"] for drop in step.pop("dropped")] == ["C1", "D1", "E1"]
    assert step == {
        "type": "cascade",
        "step": 1,
        "cleared": ["C4", "D4", "E4"],
        "created": [],
        "setOff": [],
        "points": 30,
    }
    assert len(cascades(outcome)) == 1
    assert outcome.reward == 30
    assert GAME.score(outcome.state) == 30
    assert outcome.events[0] == {"type": "swap", "cells": ["E4", "F4"]}


def test_reward_is_the_sum_of_the_cascade_steps():
    outcome = play(start(0, C4="R", D4="R", F4="R"), "swap E4 right")
    steps = cascades(outcome)
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert outcome.reward == sum(s["points"] for s in steps)
    assert GAME.score(outcome.state) == outcome.reward


def test_four_in_a_row_makes_a_row_blaster_on_the_moved_gem():
    outcome = play(start(0, A4="R", B4="R", D4="R", C5="R"), "swap C4 down")
    step = first_step(outcome)
    assert step["cleared"] == ["A4", "B4", "C4", "D4"]
    assert step["created"] == [{"cell": "C4", "gem": "R-"}]
    assert step["points"] == 4 * 10 + 50
    assert cell(outcome.state, "C4") == "R-"


def test_four_in_a_column_makes_a_column_blaster():
    outcome = play(start(0, C1="R", C2="R", C4="R", B3="R"), "swap B3 right")
    step = first_step(outcome)
    assert step["cleared"] == ["C1", "C2", "C3", "C4"]
    assert step["created"] == [{"cell": "C3", "gem": "R|"}]
    assert step["points"] == 90
    # C4 below it was cleared, so the blaster fell one row
    assert cell(outcome.state, "C4") == "R|"


def test_an_l_makes_an_area_bomb():
    outcome = play(start(1, A4="R", B4="R", D4="R", C5="R", C6="R"), "swap C4 right")
    step = first_step(outcome)
    assert step["cleared"] == ["A4", "B4", "C4", "C5", "C6"]
    assert step["created"] == [{"cell": "C4", "gem": "R+"}]
    assert step["points"] == 5 * 10 + 100
    assert outcome.reward == 150


def test_a_t_makes_an_area_bomb():
    outcome = play(start(0, B4="R", D4="R", C5="R", C6="R", C3="R"), "swap C3 down")
    step = first_step(outcome)
    assert step["cleared"] == ["B4", "C4", "D4", "C5", "C6"]
    assert step["created"] == [{"cell": "C4", "gem": "R+"}]
    assert step["points"] == 150


def test_five_in_a_row_makes_a_color_bomb():
    outcome = play(start(0, A4="R", B4="R", D4="R", E4="R", C5="R"), "swap C4 down")
    step = first_step(outcome)
    assert step["cleared"] == ["A4", "B4", "C4", "D4", "E4"]
    assert step["created"] == [{"cell": "C4", "gem": "@"}]
    assert step["points"] == 5 * 10 + 200
    assert cell(outcome.state, "C4") == "@"


def test_a_straight_five_with_a_crossing_line_still_makes_a_color_bomb():
    cells = dict(A4="R", B4="R", D4="R", E4="R", C5="R", C2="R", C3="R")
    outcome = play(start(1, **cells), "swap C4 down")
    step = first_step(outcome)
    assert len(step["cleared"]) == 7
    assert step["created"] == [{"cell": "C4", "gem": "@"}]
    assert step["points"] == 7 * 10 + 200


def test_a_blaster_made_earlier_clears_its_row_when_matched_later():
    state = start(0, A4="R", B4="R", D4="R", C5="R", C6="R", D5="R")
    made = play(state, "swap C4 down")
    assert cell(made.state, "C4") == "R-"
    outcome = play(made.state, "swap D5 left")
    step = first_step(outcome)
    row_4 = [f"{c}4" for c in "ABCDEFGH"]
    assert step["cleared"] == sorted([*row_4, "C5", "C6"], key=_board_order)
    assert step["setOff"] == [{"cell": "C4", "gem": "R-"}]
    assert step["points"] == 10 * 10 + 50
    assert GAME.score(outcome.state) == made.reward + outcome.reward


def test_a_column_blaster_clears_its_column():
    outcome = play(start(0, C2="R|", C3="R", D4="R"), "swap D4 left")
    step = first_step(outcome)
    assert step["cleared"] == [f"C{r}" for r in range(1, 9)]
    assert step["setOff"] == [{"cell": "C2", "gem": "R|"}]
    assert step["points"] == 8 * 10 + 50


def test_an_area_bomb_clears_the_three_by_three_around_it():
    outcome = play(start(0, E5="R+", E6="R", D7="R"), "swap D7 right")
    step = first_step(outcome)
    around = {f"{c}{r}" for c in "DEF" for r in (4, 5, 6)}
    assert set(step["cleared"]) == around | {"E7"}
    assert step["setOff"] == [{"cell": "E5", "gem": "R+"}]
    assert step["points"] == 10 * 10 + 80


def test_an_area_bomb_at_the_edge_clears_what_is_on_the_board():
    outcome = play(start(0, A1="R+", B1="R", D1="R"), "swap D1 left")
    step = first_step(outcome)
    assert set(step["cleared"]) == {"A1", "B1", "C1", "A2", "B2"}
    assert step["points"] == 5 * 10 + 80


def test_a_blast_that_hits_a_special_sets_it_off():
    outcome = play(start(0, A4="R", B4="R", D4="R-", C5="R", H4="W|"), "swap C4 down")
    step = first_step(outcome)
    # the 4-match makes R- on C4 after the clears; D4's row blast hits the W| on H4
    assert step["setOff"] == [{"cell": "D4", "gem": "R-"}, {"cell": "H4", "gem": "W|"}]
    expected = {f"{c}4" for c in "ABCDEFGH"} | {f"H{r}" for r in range(1, 9)}
    assert set(step["cleared"]) == expected
    assert step["created"] == [{"cell": "C4", "gem": "R-"}]
    assert step["points"] == 15 * 10 + 50 + 50 + 50
    assert cell(outcome.state, "C4") == "R-"


def test_color_bomb_with_a_gem_clears_that_color():
    outcome = play(start(2, C4="@", D4="W", F1="W", H8="W"), "swap C4 right")
    step = first_step(outcome)
    assert step["cleared"] == ["F1", "C4", "D4", "H8"]
    assert step["setOff"] == [{"cell": "C4", "gem": "@"}]
    assert step["points"] == 4 * 10 + 150
    assert outcome.reward == 190


def test_color_bomb_works_from_either_side_and_any_direction():
    state = start(2, C4="@", D4="W", F1="W", H8="W")
    for command in ("swap D4 left", "swap C4 D4", "swap D4 C4"):
        assert first_step(play(state, command))["points"] == 190


def test_color_bomb_with_a_special_clears_the_color_and_sets_the_special_off():
    outcome = play(start(0, C4="@", D4="W-", F1="W"), "swap C4 right")
    step = first_step(outcome)
    assert step["setOff"] == [{"cell": "C4", "gem": "@"}, {"cell": "D4", "gem": "W-"}]
    assert set(step["cleared"]) == {f"{c}4" for c in "ABCDEFGH"} | {"F1"}
    assert step["points"] == 9 * 10 + 150 + 50


def test_two_color_bombs_clear_the_board_for_500():
    outcome = play(start(0, C4="@", D4="@"), "swap C4 right")
    step = first_step(outcome)
    assert len(step["cleared"]) == 64
    assert step["points"] == 64 * 10 + 500
    assert step["setOff"] == [{"cell": "C4", "gem": "@"}, {"cell": "D4", "gem": "@"}]


def test_two_color_bombs_also_set_off_the_specials_on_the_board():
    outcome = play(start(0, C4="@", D4="@", A1="R+", H8="W-"), "swap D4 left")
    step = first_step(outcome)
    assert step["points"] == 64 * 10 + 500 + 80 + 50


def test_a_color_bomb_caught_in_a_blast_clears_the_most_common_color():
    rows = board(A4="R", B4="R", D4="R-", C5="R", H4="@")
    outcome = play(GAME.new(0, {"board": rows}), "swap C4 down")
    step = first_step(outcome)
    counts = Counter(gem for row in rows for gem in row if gem in "GBYPO")
    most = max(counts.values())
    common = next(color for color in "RGBYPOW" if counts.get(color) == most)
    common_cells = {
        f"{'ABCDEFGH'[c]}{r + 1}" for r in range(8) for c in range(8) if rows[r][c] == common
    }
    assert step["setOff"] == [{"cell": "D4", "gem": "R-"}, {"cell": "H4", "gem": "@"}]
    assert set(step["cleared"]) == {f"{c}4" for c in "ABCDEFGH"} | common_cells
    assert step["created"] == [{"cell": "C4", "gem": "R-"}]
    assert step["points"] == len(step["cleared"]) * 10 + 50 + 150 + 50


def test_a_cascade_step_is_scored_twice():
    cells = dict(C5="R", C6="R", B4="R", C3="W", B6="W", D6="W")
    outcome = play(start(1, **cells), "swap B4 right")
    steps = cascades(outcome)
    assert steps[0]["cleared"] == ["C4", "C5", "C6"]
    assert steps[0]["points"] == 30
    # C3's W fell three rows onto C6, between B6 and D6
    assert steps[1]["cleared"] == ["B6", "C6", "D6"]
    assert steps[1]["points"] == 3 * 10 * 2
    assert len(steps) == 2
    assert outcome.reward == 90


def test_specials_created_in_a_cascade_go_on_the_middle_of_the_line():
    # C3's W falls onto C6 beside A6, B6 and D6: a cascade line of 4 with no moved gem
    cells = dict(C5="R", C6="R", B4="R", C3="W", A6="W", B6="W", D6="W")
    outcome = play(start(1, **cells), "swap B4 right")
    second = cascades(outcome)[1]
    assert second["cleared"] == ["A6", "B6", "C6", "D6"]
    assert second["created"] == [{"cell": "B6", "gem": "W-"}]
    assert second["points"] == (4 * 10 + 50) * 2


def test_a_rejected_swap_costs_nothing():
    state = start(0, C4="R", D4="R", F4="R")
    outcome = GAME.step(state, {"command": "swap A1 right"})
    assert not outcome.ok
    assert outcome.state is state
    assert outcome.reward == 0 and outcome.events == []
    assert "lines up no 3" in outcome.reason
    assert GAME.observe(state)["movesMade"] == 0


def test_hint_costs_50_and_names_the_biggest_swap():
    state = start(0, A4="R", B4="R", D4="R", E4="R", C5="R", G1="W", G2="W", G4="W", H3="W")
    scored = play(state, "swap H3 left")
    before = GAME.score(scored.state)
    assert before >= 50
    outcome = play(scored.state, "hint")
    assert outcome.events == [{"type": "hint", "swap": "swap C4 down", "gems": 5, "cost": 50}]
    assert outcome.reward == -50
    assert GAME.score(outcome.state) == before - 50
    assert GAME.observe(outcome.state)["movesMade"] == 1


def test_a_bought_hint_stands_in_the_observation_and_the_render_until_the_next_swap():
    state = start(0, A4="R", B4="R", D4="R", E4="R", C5="R", G1="W", G2="W", G4="W", H3="W")
    assert GAME.observe(state)["hint"] is None
    hinted = play(state, "hint").state
    answer = {"swap": "swap C4 down", "gems": 5}
    assert GAME.observe(hinted)["hint"] == answer
    assert "hint: swap C4 down lines up 5 gems" in GAME.render(hinted)
    selected = play(hinted, "select A1", "deselect").state
    assert GAME.observe(selected)["hint"] == answer
    assert GAME.observe(play(hinted, "moves").state)["hint"] == answer
    again = GAME.from_json(GAME.to_json(hinted))
    assert GAME.to_json(hinted)["hinted"] is True
    assert GAME.observe(again)["hint"] == answer
    assert GAME.fingerprint(again) == GAME.fingerprint(hinted) != GAME.fingerprint(state)
    swapped = play(hinted, "swap C4 down").state
    assert GAME.observe(swapped)["hint"] is None and "hinted" not in GAME.to_json(swapped)
    assert "hint:" not in GAME.render(swapped)


@pytest.mark.parametrize("claim", [False, 1, "yes", None])
def test_a_state_claiming_a_hint_says_what_is_wrong(claim):
    data = {**GAME.to_json(start(0, C4="R", D4="R", F4="R")), "hinted": claim}
    with pytest.raises(StateError, match="hinted must be true when given"):
        GAME.from_json(data)
    over = {**GAME.to_json(start(0, C4="R", D4="R", F4="R")), "movesMade": 30, "hinted": True}
    with pytest.raises(StateError, match="no hint is bought after the last move"):
        GAME.from_json(over)


def test_hint_costs_50_at_a_score_of_0_and_the_score_goes_below_zero():
    state = start(0, C4="R", D4="R", F4="R")
    outcome = play(state, "hint")
    assert outcome.events == [{"type": "hint", "swap": "swap E4 right", "gems": 3, "cost": 50}]
    assert outcome.reward == -50
    assert GAME.score(outcome.state) == -50
    assert GAME.observe(outcome.state)["score"] == -50


def test_hint_costs_the_full_50_when_the_score_is_below_50():
    state = GAME.from_json({**GAME.to_json(start(0, C4="R", D4="R", F4="R")), "score": 20})
    outcome = play(state, "hint")
    assert outcome.events[0]["cost"] == 50
    assert GAME.score(outcome.state) == -30


def test_a_score_below_zero_survives_json_and_counts_as_no_progress():
    state = play(start(0, C4="R", D4="R", F4="R"), "hint", "hint").state
    again = GAME.from_json(GAME.to_json(state))
    assert GAME.score(again) == -100
    assert GAME.progress(again) == 0.0


def test_moves_counts_the_matching_swaps_for_free():
    state = start(0, C4="R", D4="R", F4="R", A8="W", B8="W", C7="W")
    outcome = play(state, "moves")
    # E4<->F4 for the R line; C7<->C8 for the W line
    assert outcome.events == [{"type": "moves", "count": 2}]
    assert outcome.reward == 0
    assert GAME.observe(outcome.state) == GAME.observe(state)


def test_moves_counts_the_swaps_of_a_color_bomb_too():
    state = start(0, A1="@", C4="R", D4="R", F4="R")
    # A1 with B1 and with A2, and E4<->F4 for the R line
    assert play(state, "moves").events == [{"type": "moves", "count": 3}]


def test_the_game_ends_after_the_30th_move():
    state = GAME.new(4)
    for move in range(1, 31):
        assert not GAME.is_over(state)
        swap = GAME.legal_actions(state)[0]
        assert swap["command"].startswith("swap")
        outcome = GAME.step(state, swap)
        assert outcome.ok
        state = outcome.state
        assert GAME.observe(state)["movesMade"] == move
        assert GAME.observe(state)["movesLeft"] == 30 - move
        ended = [e for e in outcome.events if e["type"] == "gameOver"]
        assert ended == ([{"type": "gameOver", "score": GAME.score(state)}] if move == 30 else [])
    assert GAME.is_over(state)
    assert GAME.observe(state)["gameOver"] is True
    assert GAME.legal_actions(state) == []
    for command in ("swap A1 right", "hint", "moves", "select A1", "deselect"):
        refused = GAME.step(state, {"command": command})
        assert not refused.ok and "over" in refused.reason
        assert refused.state is state


def test_free_commands_are_not_moves():
    state = start(0, C4="R", D4="R", F4="R")
    outcome = play(state, "hint", "moves", "select A1", "deselect", "select C4")
    assert GAME.observe(outcome.state)["movesMade"] == 0
    assert GAME.observe(outcome.state)["movesLeft"] == 30


def test_a_start_board_without_a_legal_swap_is_reshuffled():
    rows = board()
    state = GAME.new(0, {"board": rows})
    assert gem_counts(state) == Counter(gem for row in rows for gem in row)
    assert GAME.observe(state)["board"] != rows
    assert any(a["command"].startswith("swap") for a in GAME.legal_actions(state))
    assert GAME.score(state) == 0 and GAME.observe(state)["movesMade"] == 0


def test_a_stuck_board_after_a_move_is_reshuffled_keeping_its_gems():
    # seed 1: the three new gems make no swap with the background, which has none
    state = start(1, C4="R", D4="R", F4="R")
    outcome = play(state, "swap E4 right")
    assert [e["type"] for e in outcome.events] == ["swap", "cascade", "reshuffle"]
    # the event carries the new layout, so a client playing a batch can redraw from it
    assert outcome.events[-1]["board"] == GAME.observe(outcome.state)["board"]
    kept = gem_counts(state) - Counter({"R": 3})
    after = gem_counts(outcome.state)
    assert not kept - after
    assert sum((after - kept).values()) == 3
    assert any(a["command"].startswith("swap") for a in GAME.legal_actions(outcome.state))


def _board_order(name: str) -> int:
    return (int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0])


def test_one_swap_making_two_matches_makes_a_special_on_each_moved_gem():
    cells = dict(A4="R", B4="R", C4="W", D4="R", A5="W", B5="W", C5="R", D5="W")
    outcome = play(start(0, **cells), "swap C4 down")
    step = first_step(outcome)
    assert step["cleared"] == ["A4", "B4", "C4", "D4", "A5", "B5", "C5", "D5"]
    assert step["created"] == [{"cell": "C4", "gem": "R-"}, {"cell": "C5", "gem": "W-"}]
    assert step["points"] == 8 * 10 + 50 + 50


def test_an_l_made_by_a_cascade_puts_its_area_bomb_on_the_shared_gem():
    # C3's W falls onto C6: A6-C6 across and C6-C8 down share C6
    cells = dict(C5="R", C6="R", B4="R", C3="W", A6="W", B6="W", C7="W", C8="W")
    outcome = play(start(1, **cells), "swap B4 right")
    second = cascades(outcome)[1]
    assert second["cleared"] == ["A6", "B6", "C6", "C7", "C8"]
    assert second["created"] == [{"cell": "C6", "gem": "W+"}]
    assert second["points"] == (5 * 10 + 100) * 2


def test_each_step_names_the_new_gems_that_dropped_in():
    outcome = play(start(2, C4="R", D4="R", F4="R"), "swap E4 right")
    step = first_step(outcome)
    # one gem cleared in each of C, D and E: one new gem lands on row 1 of each
    assert [drop["cell"] for drop in step["dropped"]] == ["C1", "D1", "E1"]
    assert [drop["gem"] for drop in step["dropped"]] == [
        cell(outcome.state, name) for name in ("C1", "D1", "E1")
    ]


def test_a_column_clear_drops_its_new_gems_bottom_first():
    outcome = play(start(0, C2="R|", C3="R", D4="R"), "swap D4 left")
    step = first_step(outcome)
    assert [drop["cell"] for drop in step["dropped"]] == [f"C{r}" for r in range(8, 0, -1)]


def test_a_blast_chain_sets_off_a_blaster_an_area_bomb_and_a_column_blaster():
    # D4's row blast hits the W+ on G4, whose 3x3 hits the Y| on H5, which clears column H
    cells = dict(A4="R", B4="R", D4="R-", C5="R", G4="W+", H5="Y|")
    step = first_step(play(start(0, **cells), "swap C4 down"))
    assert step["setOff"] == [
        {"cell": "D4", "gem": "R-"},
        {"cell": "G4", "gem": "W+"},
        {"cell": "H5", "gem": "Y|"},
    ]
    row_4 = {f"{c}4" for c in "ABCDEFGH"}
    square = {f"{c}{r}" for c in "FGH" for r in (3, 4, 5)}
    column_h = {f"H{r}" for r in range(1, 9)}
    assert set(step["cleared"]) == row_4 | square | column_h
    assert step["points"] == 19 * 10 + 50 + 50 + 80 + 50


def test_two_blasters_in_one_row_each_go_off_once():
    # A4's row blast hits G4's, whose blast hits A4 again: each scores once
    outcome = play(start(0, A4="R-", B4="R", D4="R", C5="R", G4="W-"), "swap C4 down")
    step = first_step(outcome)
    assert step["setOff"] == [{"cell": "A4", "gem": "R-"}, {"cell": "G4", "gem": "W-"}]
    assert step["points"] == 8 * 10 + 50 + 50 + 50
