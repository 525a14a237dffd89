"""Options: startLevel and custom levels, with errors that name the problem."""

import pytest

from playbench.core import OptionsError
from playbench.games.delvewick.levels import LEVELS

from .helpers import GAME, board

GOOD = {"name": "pit", "quota": 1, "oil": 9, "rows": ["#####", "#M*X#", "#####"]}


def with_level(**changes):
    return {"level": {**GOOD, **changes}}


@pytest.mark.parametrize("number", range(1, 9))
def test_start_level_begins_fresh_on_that_level(number):
    state = GAME.new(0, {"startLevel": number})
    seen = GAME.observe(state)
    level = LEVELS[number - 1]
    assert seen["level"] == number and seen["levelName"] == level.name
    assert (seen["quota"], seen["oil"], seen["score"], seen["tick"]) == (
        level.quota,
        level.oil,
        0,
        0,
    )
    assert seen["board"] == list(level.rows)


def test_the_seed_changes_nothing():
    assert GAME.to_json(GAME.new(1)) == GAME.to_json(GAME.new(99))


@pytest.mark.parametrize("bad", [0, 9, -1, "2", 2.0, True, None])
def test_start_level_out_of_range_is_refused(bad):
    with pytest.raises(OptionsError, match="startLevel must be an integer from 1 to 8"):
        GAME.new(0, {"startLevel": bad})


def test_a_custom_level_is_played_as_given():
    state = GAME.new(0, with_level())
    seen = GAME.observe(state)
    assert seen["levelName"] == "pit" and seen["level"] == 1
    assert board(state) == GOOD["rows"]
    assert (seen["quota"], seen["oil"]) == (1, 9)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"speed": 2}, r"unknown options \['speed'\]"),
        ({"startLevel": 2, "level": GOOD}, "either startLevel or level"),
        ({"level": "pit"}, "Delvewick options: level must be a JSON object, got a string"),
        ({"level": {"name": "pit", "quota": 1, "oil": 9}}, r"missing \['rows'\]"),
        ({"level": {**GOOD, "exit": [1, 3]}}, r"unexpected \['exit'\]"),
        (with_level(rows=["#####", "#M*X#", "####"]), "not rectangular"),
        (with_level(rows=["#####", "#M*X.", "#####"]), "not framed in bedrock"),
        (with_level(rows=["#####", "%M*X#", "#####"]), "not framed in bedrock"),
        (with_level(rows=["######", "#M*XM#", "######"]), r"exactly one M \(mole\), found 2"),
        (with_level(rows=["#####", "#.*X#", "#####"]), r"exactly one M \(mole\), found 0"),
        (with_level(rows=["#####", "#M*.#", "#####"]), r"exactly one X \(exit\), found 0"),
        (with_level(rows=["######", "#MXX*#", "######"]), r"exactly one X \(exit\), found 2"),
        (with_level(rows=["#####", "#M?X#", "#####"]), "unknown glyph '\\?' at row 1, col 2"),
        (with_level(rows=["#####", "#MEX#", "#####"]), "unknown glyph 'E'"),
        (with_level(rows=["#####", "#MoX#", "#####"]), "unknown glyph 'o'"),
        (with_level(quota=0), "level: quota must be an integer from 1 to 999, got 0"),
        (with_level(oil=0), "level: oil must be an integer from 1 to 9999, got 0"),
        (with_level(oil=-3), "oil must be an integer from 1 to 9999, got -3"),
        (with_level(quota="4"), "quota must be an integer"),
        (with_level(name=""), "name must be a non-empty string"),
        (with_level(rows="#####"), "level: rows must be a list, got a string"),
        (with_level(rows=[]), "rows must be a non-empty list"),
        (with_level(rows=["#####", 5, "#####"]), "rows must all be strings"),
        (with_level(rows=["##", "##"]), "must be 3..64 wide"),
    ],
)
def test_bad_options_are_refused_naming_the_problem(options, message):
    with pytest.raises(OptionsError, match=message):
        GAME.new(0, options)


def test_options_must_be_an_object():
    with pytest.raises(OptionsError, match="Delvewick options must be a JSON object, got an array"):
        GAME.new(0, ["startLevel", 2])
