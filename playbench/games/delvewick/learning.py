"""Delvewick for learning doors: 5 actions, the board as category ids, a coloured picture.

Actions (5): ``up``, ``down``, ``left``, ``right``, ``wait``.

Observation:
    ``board`` uint8 (12, 28), the size of the largest shipped level (a custom ``level``
    option: that level's size): one category id a cell, top row first, placed at the top
    left; 0 outside the level, then 1 ``#`` bedrock, 2 ``%`` soil, 3 ``.`` empty,
    4 ``O`` boulder, 5 ``o`` falling boulder, 6 ``*`` gem, 7 ``v`` falling gem, 8 ``G``
    geode, 9 ``g`` falling geode, 10 ``X`` closed exit, 11 ``E`` open exit, 12 ``M`` mole.
    ``mole`` int16 (2,): row and column of the mole, -1 -1 once crushed.
    ``stats`` float32 (6,), each in 0..1: level / 8, gems collected / quota (at most 1),
    exit open, oil left / the level's oil, chain / 3 (at most 1), score / 5,000 (at most 1).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from playbench.core.game import Action
from playbench.core.learning import ActionTable, Array
from playbench.core.palette import read_palette, rgb
from playbench.games.delvewick.levels import LEVELS, MOLE, Level
from playbench.games.delvewick.rules import DIRECTIONS, legal_dirs
from playbench.games.delvewick.state import PLAYING, State, level_from_options

#: the glyphs in category order (id 0 is outside the level)
CATEGORY_GLYPHS = "#%.Oo*vGgXEM"
CATEGORIES = len(CATEGORY_GLYPHS) + 1
#: character code -> category id
CATEGORY_OF = np.zeros(256, dtype=np.uint8)
for _id, _glyph in enumerate(CATEGORY_GLYPHS, start=1):
    CATEGORY_OF[ord(_glyph)] = _id
#: the same as a byte table, for ``bytes.translate``
CATEGORY_BYTES = CATEGORY_OF.tobytes()
MAX_CHAIN = 3
SCORE_SCALE = 5_000
WAIT = len(DIRECTIONS)
CELL = 16


def _key(action: Action) -> Hashable:
    return action.get("dir", action["type"])


ACTIONS = ActionTable.of(
    [*({"type": "move", "dir": name} for name in DIRECTIONS), {"type": "wait"}], _key
)


def shape(options: Mapping[str, Any] | None) -> tuple[int, int]:
    """The board's shape for these options: a custom level's own, else the largest level."""
    if options and "level" in options:
        level = level_from_options(options)
        return level.height, level.width
    return max(level.height for level in LEVELS), max(level.width for level in LEVELS)


def arrays(options: Mapping[str, Any] | None) -> dict[str, Array]:
    height, width = shape(options)
    return {
        "board": Array((height, width), "uint8", 0, CATEGORIES - 1, CATEGORIES),
        "mole": Array((2,), "int16", -1, max(height, width) - 1),
        "stats": Array((6,), "float32", 0.0, 1.0),
    }


def _grid(state: State) -> np.ndarray:
    """The board's glyph codes, top row first."""
    level = state.level
    return np.frombuffer(state.board, dtype=np.uint8).reshape(level.height, level.width)[::-1]


GATHERS_KEPT = 64
#: a level and a board shape -> where each cell of the shape reads the level's board
_GATHERS: dict[tuple[int, tuple[int, ...]], tuple[Level, np.ndarray]] = {}


def _gather(level: Level, shape: tuple[int, ...]) -> np.ndarray:
    """For each cell of ``shape``, its index in the level's board (bottom row first), or
    one past the end (a 0 is read there) outside the level."""
    found = _GATHERS.get((id(level), shape))
    if found is None:
        if len(_GATHERS) >= GATHERS_KEPT:  # custom levels are new objects each run
            _GATHERS.clear()
        outside = level.height * level.width
        gather = np.full(shape, outside, dtype=np.intp)
        rows = np.arange(level.height)[::-1, None] * level.width + np.arange(level.width)
        gather[: level.height, : level.width] = rows
        found = _GATHERS[id(level), shape] = (level, gather)
    return found[1]


def encode(state: State, out: dict[str, Any]) -> None:
    level = state.level
    height, width = level.height, level.width
    board = out["board"]
    codes = np.frombuffer(state.board.translate(CATEGORY_BYTES) + b"\0", dtype=np.uint8)
    board[...] = codes[_gather(level, board.shape)]
    if state.board[state.pos] == MOLE:
        row, col = divmod(state.pos, width)
        out["mole"][:] = (height - 1 - row, col)
    else:
        out["mole"][:] = -1
    out["stats"][:] = (
        level.number / len(LEVELS),
        min(state.gems / level.quota, 1.0) if level.quota else 1.0,
        state.exit_open,
        state.oil / level.oil if level.oil else 0.0,
        min(state.chain, MAX_CHAIN) / MAX_CHAIN,
        min(state.score / SCORE_SCALE, 1.0),
    )


def mask(state: State, out: Any) -> None:
    if state.status == PLAYING:
        for direction in legal_dirs(state):
            out[direction] = 1
        out[WAIT] = 1


def status(state: State) -> str:
    level = state.level
    return (
        f"L{level.number} gems {state.gems}/{level.quota} oil {state.oil} "
        f"score {state.score} {'' if state.status == PLAYING else state.status}"
    )


def _colours() -> np.ndarray:
    colours = read_palette(__package__)
    table = np.empty((256, 3), dtype=np.uint8)
    table[:] = rgb(colours["background"])
    for glyph, colour in colours["cells"].items():
        table[ord(glyph)] = rgb(colour)
    return table


COLOURS = _colours()


def paint(state: State) -> np.ndarray:
    """The level, one ``CELL``-pixel square a cell with a one-pixel gap."""
    picture = np.repeat(np.repeat(COLOURS[_grid(state)], CELL, axis=0), CELL, axis=1)
    picture[CELL - 1 :: CELL] = COLOURS[0]
    picture[:, CELL - 1 :: CELL] = COLOURS[0]
    return picture


def frame(options: Mapping[str, Any] | None) -> tuple[int, int]:
    height, width = shape(options)
    return height * CELL, width * CELL
