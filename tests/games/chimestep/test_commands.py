"""The command text of every action parses back to the action."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.core import CommandError

from .helpers import GAME
from .test_properties import PLAYS, SEEDS, _play


@given(SEEDS, PLAYS)
def test_command_text_round_trips_every_legal_action_over_random_play(seed, plays):
    for state, _, _ in _play(seed, plays):
        for action in GAME.legal_actions(state):
            assert GAME.parse_command(GAME.command_text(action)) == action


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_command_text_of_any_tick_count_parses_to_the_count_the_rules_play(count):
    """The text reads the count as the rules do, clamped to 1..30: the same ticks."""
    action = {"type": "tick", "count": count}
    assert GAME.parse_command(GAME.command_text(action)) == {
        "type": "tick",
        "count": min(30, max(1, count)),
    }


@pytest.mark.parametrize(
    ("action", "text"),
    [
        ({"type": "start"}, "start"),
        ({"type": "toll"}, "toll"),
        ({"type": "tick"}, "tick"),
        ({"type": "tick", "count": 4}, "tick 4"),
        ({"type": "hop", "dir": "downRight"}, "hop downRight"),
    ],
)
def test_command_text_of_each_kind(action, text):
    assert GAME.command_text(action) == text


@pytest.mark.parametrize(
    "action",
    [{"type": "hop", "dir": "up"}, {"type": "tick", "count": "4"}, {"type": "jump"}, "start"],
)
def test_command_text_refuses_what_is_not_an_action(action):
    with pytest.raises(CommandError, match="not a Chimestep action"):
        GAME.command_text(action)
