"""Observation, text board, spec, text commands and terminal keys."""

import pytest

from playbench.core import CommandError
from playbench.core.controls import controls_of
from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS
from playbench.terminal import TerminalSession

from .helpers import DOWN, GAME, LEFT, RIGHT, UP, WAIT, custom, play


def test_observation_has_exactly_the_issue_fields():
    assert GAME.observe(GAME.new(0)) == {
        "board": list(LEVELS[0].rows),
        "level": 1,
        "levelName": "Topsoil",
        "quota": 4,
        "gemsCollected": 0,
        "exitOpen": False,
        "oil": 40,
        "tick": 0,
        "chain": 0,
        "score": 0,
        "status": "playing",
    }


def test_render_shows_the_header_and_the_board():
    state, _ = play(custom(["#####", "#M*X#", "#####"], quota=1, name="pit"), "R")
    lines = GAME.render(state).splitlines()
    assert lines[0].startswith("Delvewick  custom level 'pit'  gems 1/1  exit open  oil 49")
    assert "score 25" in lines[0] and "[playing]" in lines[0]
    assert lines[1:4] == ["#####", "#.ME#", "#####"]


def test_render_names_the_shipped_level():
    assert GAME.render(GAME.new(0, {"startLevel": 3})).startswith(
        "Delvewick  level 3/8 'Old Workings'  gems 0/6"
    )


def test_spec_writes_down_the_chosen_readings():
    text = " ".join(GAME.spec().rules)
    for phrase in (
        "one cell sideways",
        "after a fall or a roll",
        "Fully settled means nothing is falling",
        "oil left before that step",
        "The Gemheart",
    ):
        assert phrase in text
    assert "at most 4 ticks" in GAME.spec().scoring


def test_action_schema_forbids_the_extra_keys_that_step_refuses():
    for variant in GAME.spec().action_schema["oneOf"]:
        assert variant["additionalProperties"] is False
        extra = {"type": variant["properties"]["type"]["const"], "dir": "up", "why": "x"}
        outcome = GAME.step(custom(["#####", "#M.X#", "#####"]), extra)
        assert not outcome.ok and "only 'type'" in outcome.reason


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("up", UP),
        ("U", UP),
        ("  down ", DOWN),
        ("d", DOWN),
        ("Left", LEFT),
        ("l", LEFT),
        ("RIGHT", RIGHT),
        ("r\n", RIGHT),
        ("wait", WAIT),
        (" W ", WAIT),
    ],
)
def test_commands_parse_to_actions(text, action):
    assert GAME.parse_command(text) == action


@pytest.mark.parametrize("text", ["", "north", "move up", "u p", "ww", "2", "jump"])
def test_other_commands_are_errors_listing_the_valid_ones(text):
    with pytest.raises(CommandError, match="up, down, left, right, wait"):
        GAME.parse_command(text)


def test_parsed_actions_are_fresh_objects():
    first = GAME.parse_command("up")
    first["dir"] = "down"
    assert GAME.parse_command("up") == UP


@pytest.mark.parametrize(
    ("key", "row"),
    [("KEY_RIGHT", "#.M%X#"), ("d", "#.M%X#"), (" ", "#M*%X#"), (".", "#M*%X#")],
)
def test_terminal_keys_drive_the_game(key, row):
    session = TerminalSession(Match(GAME, custom(["######", "#M*%X#", "######"], quota=2)))
    session.press(key)
    assert GAME.observe(session.state)["board"][1] == row
    assert session.state.tick == 1


def test_terminal_arrows_and_wasd_cover_every_direction():
    keys = controls_of(GAME).keys
    for arrow, letter, word in (
        ("KEY_UP", "w", "up"),
        ("KEY_DOWN", "s", "down"),
        ("KEY_LEFT", "a", "left"),
        ("KEY_RIGHT", "d", "right"),
    ):
        assert keys[arrow] == keys[letter] == word
    assert "Q" not in keys


def test_terminal_shows_the_refusal_reason():
    session = TerminalSession(Match(GAME, custom(["#####", "#M%X#", "#####"])))
    session.press("KEY_LEFT")
    assert "bedrock" in session.message and session.state.tick == 0


def test_the_cli_level_flag_starts_that_level():
    from playbench.cli import _options, build_parser

    args = build_parser().parse_args(["play", "delvewick", "--seed", "4", "--level", "5"])
    state = GAME.new(args.seed, _options(args))
    assert GAME.observe(state)["levelName"] == "Slate Gallery"
