"""Constructed Gem Swap boards for exact tests.

The background uses five colours, ``(column + 2 * row) % 5`` over G B Y P O: no two
neighbours and no two gems one apart in a row or column share a colour, so it holds no
line and no legal swap. R and W never appear in it; tests place them (and specials)
with :func:`board`, so every line and every legal swap comes from what a test placed.
"""

from __future__ import annotations

from collections import Counter

from playbench.core import get_game

GAME = get_game("gem-swap")
BACKGROUND_COLORS = "GBYPO"
COLUMNS = "ABCDEFGH"


def background(row: int, col: int) -> str:
    return BACKGROUND_COLORS[(col + 2 * row) % len(BACKGROUND_COLORS)]


def board(**cells: str) -> list[list[str]]:
    """The background with ``C4="R"``-style overrides, as 8 rows of 8 gem tokens."""
    rows = [[background(r, c) for c in range(8)] for r in range(8)]
    for name, gem in cells.items():
        col, row = COLUMNS.index(name[0]), int(name[1:]) - 1
        rows[row][col] = gem
    return rows


def start(seed: int = 0, **cells: str):
    return GAME.new(seed, {"board": board(**cells)})


def play(state, *commands: str):
    """Step each command; every one must be accepted. Returns the last outcome."""
    outcome = None
    for command in commands:
        outcome = GAME.step(state, {"command": command})
        assert outcome.ok, f"{command!r} refused: {outcome.reason}"
        state = outcome.state
    return outcome


def cascades(outcome) -> list[dict]:
    return [event for event in outcome.events if event["type"] == "cascade"]


def gem_counts(state) -> Counter:
    return Counter(gem for row in GAME.observe(state)["board"] for gem in row)


def cell(state, name: str) -> str:
    col, row = COLUMNS.index(name[0]), int(name[1:]) - 1
    return GAME.observe(state)["board"][row][col]
