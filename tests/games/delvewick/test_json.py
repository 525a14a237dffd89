"""The JSON form of a state: lossless round trips and precise rejections."""

import json

import pytest

from playbench.core import StateError, canonical_json

from .helpers import GAME, board, custom, play

CASCADE = ["#######", "#.O*G.#", "#.O.O.#", "#.M...#", "#%%%%X#", "#######"]


def round_trip(state):
    return GAME.from_json(json.loads(json.dumps(GAME.to_json(state))))


def test_mid_cascade_state_round_trips_with_falling_objects():
    state, _ = play(custom(CASCADE), "L")
    assert any(ch in "ovg" for row in board(state) for ch in row)
    again = round_trip(state)
    assert canonical_json(GAME.to_json(again)) == canonical_json(GAME.to_json(state))
    assert board(again) == board(state)


def test_a_loaded_state_plays_on_exactly_like_the_original():
    state, _ = play(custom(CASCADE), "L")
    again = round_trip(state)
    left, _ = play(state, "WWWWW")
    right, _ = play(again, "WWWWW")
    assert GAME.fingerprint(left) == GAME.fingerprint(right)


KEYS = ["level", "custom", "board", "oil", "tick", "chain", "lastGem", "gems", "score", "status"]


def test_the_state_json_has_the_documented_keys():
    assert sorted(GAME.to_json(GAME.new(0))) == sorted(KEYS)
    data = GAME.to_json(GAME.new(0, {"startLevel": 2}))
    assert sorted(data) == sorted([*KEYS, "startLevel"])
    assert data["custom"] is None and data["level"] == 2 and data["startLevel"] == 2
    assert round_trip(GAME.new(0, {"startLevel": 2})).start == 2


@pytest.mark.parametrize("start", [0, 1, 3, "2", True])
def test_a_start_level_past_the_current_level_or_not_above_1_is_refused(start):
    with pytest.raises(StateError, match="startLevel must be an integer from 2 to 2"):
        GAME.from_json({**GAME.to_json(GAME.new(0, {"startLevel": 2})), "startLevel": start})


def test_a_custom_level_travels_inside_the_state():
    state = custom(CASCADE, quota=2, oil=7, name="pile")
    data = GAME.to_json(state)
    assert data["custom"] == {"name": "pile", "quota": 2, "oil": 7, "rows": CASCADE}
    assert GAME.observe(round_trip(state))["levelName"] == "pile"


def test_ended_states_round_trip():
    rows = ["#####", "#.O.#", "#...#", "#.M.#", "#..X#", "#####"]
    crushed, _ = play(custom(rows), "WW")
    won, _ = play(custom(["######", "#M*X.#", "######"]), "RR")
    for state in (crushed, won):
        assert GAME.to_json(round_trip(state)) == GAME.to_json(state)


def broken(**changes):
    data = GAME.to_json(GAME.new(0))
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**broken(), "extra": 1}, r"unexpected \['extra'\]"),
        (broken(status="asleep"), "status must be one of"),
        (broken(level=9), "level must be an integer from 1 to 8"),
        (broken(oil=41), "oil must be an integer from 1 to 40"),
        (broken(oil=0), "oil must be an integer from 1 to 40"),
        (broken(tick=-1), "tick must be an integer"),
        (broken(score="10"), "score must be an integer"),
        (broken(board=["#" * 18] * 3), "board must be 7 strings of 18 glyphs"),
        (broken(board=None), "board must be 7 strings"),
        (broken(custom={"name": "x"}), "missing"),
    ],
)
def test_malformed_states_are_rejected(data, message):
    with pytest.raises(StateError, match=message):
        GAME.from_json(data)


def _with_row(row_index, row):
    data = GAME.to_json(GAME.new(0))
    data["board"][row_index] = row
    return data


@pytest.mark.parametrize(
    ("row_index", "row", "message"),
    [
        (1, "#M%%%%%%%O%%%%%%%?", "unknown glyphs"),
        (0, "#######.##########", "bedrock"),
        (3, "##%*%%%%%%%%*%%%%#", "bedrock"),
        (2, "#%%M%%%%%*%%%%%%%#", "2 moles"),
        (1, "#.%%%%%%%O%%%%%%%#", "0 moles"),
        (5, "#%*%%%%%%%%%%%*%E#", "exit does not match"),
    ],
)
def test_inconsistent_boards_are_rejected(row_index, row, message):
    with pytest.raises(StateError, match=message):
        GAME.from_json(_with_row(row_index, row))
