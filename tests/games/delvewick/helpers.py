"""Small builders for Delvewick tests: custom levels from row strings, letter actions."""

from __future__ import annotations

from playbench.core import get_game

GAME = get_game("delvewick")

UP = {"type": "move", "dir": "up"}
DOWN = {"type": "move", "dir": "down"}
LEFT = {"type": "move", "dir": "left"}
RIGHT = {"type": "move", "dir": "right"}
WAIT = {"type": "wait"}
BY_LETTER = {"U": UP, "D": DOWN, "L": LEFT, "R": RIGHT, "W": WAIT}


def custom(rows: list[str], quota: int = 1, oil: int = 50, name: str = "test"):
    """A fresh state on a custom single level."""
    return GAME.new(0, {"level": {"name": name, "quota": quota, "oil": oil, "rows": rows}})


def play(state, letters: str):
    """Play letters; every one must be accepted. Returns (state, outcomes)."""
    outcomes = []
    for letter in letters:
        outcome = GAME.step(state, BY_LETTER[letter])
        assert outcome.ok, f"{letter} refused: {outcome.reason}"
        outcomes.append(outcome)
        state = outcome.state
    return state, outcomes


def board(state) -> list[str]:
    return GAME.observe(state)["board"]


def types(outcome) -> list[str]:
    return [event["type"] for event in outcome.events]
