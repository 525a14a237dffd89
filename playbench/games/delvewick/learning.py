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

Tiles: the level one palette colour a cell, top row first.

Seed: the game draws nothing at random, so the seed changes nothing: every seed plays the
same eight levels. What varies a task is the start level (the ``startLevel`` option,
1..8; a run goes on to the levels after it), so train and test split the levels
(``playbench.gym.protocol``).
"""

from __future__ import annotations

import struct
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
#: a level's layout (width, board) and a board shape -> where each cell of the shape
#: reads the level's board
_GATHERS: dict[tuple[int, bytes, tuple[int, ...]], np.ndarray] = {}
#: the last batch's layouts and the gather of all their boards at once, as one tuple (read
#: once, so a thread that replaces it never hands another a gather of other layouts)
_BATCH: list[tuple[Any, Any]] = [(None, None)]
#: the last level and board shape one state was encoded for, and their gather (one tuple)
_LAST: list[tuple[Any, Any, Any]] = [(None, None, None)]


def _gather(level: Level, shape: tuple[int, ...]) -> np.ndarray:
    """For each cell of ``shape``, its index in the level's board (bottom row first), or
    one past the end (a 0 is read there) outside the level."""
    key = (level.width, level.board, shape)
    found = _GATHERS.get(key)
    if found is None:
        if len(_GATHERS) >= GATHERS_KEPT:
            _GATHERS.clear()
        outside = level.height * level.width
        found = np.full(shape, outside, dtype=np.intp)
        rows = np.arange(level.height)[::-1, None] * level.width + np.arange(level.width)
        found[: level.height, : level.width] = rows
        _GATHERS[key] = found
    return found


def _mole(state: State) -> tuple[int, int]:
    if state.board[state.pos] != MOLE:
        return (-1, -1)
    level = state.level
    row, col = divmod(state.pos, level.width)
    return (level.height - 1 - row, col)


def _stats(state: State) -> tuple[float, ...]:
    level = state.level
    return (
        level.number / len(LEVELS),
        min(state.gems / level.quota, 1.0) if level.quota else 1.0,
        state.exit_open,
        state.oil / level.oil if level.oil else 0.0,
        min(state.chain, MAX_CHAIN) / MAX_CHAIN,
        min(state.score / SCORE_SCALE, 1.0),
    )


#: the counters' bytes: the mole's row and column (int16), then the stats (float32)
COUNTERS = struct.Struct("=2h6f")
UINT8, INT16, FLOAT32 = np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.float32)
_frombuffer = np.frombuffer


def encode(state: State, described: Mapping[str, Array]) -> dict[str, Any]:
    """The board read through one gather of its category bytes (a 0 past the end for the
    cells outside the level), the counters from one new buffer of their bytes."""
    codes = _frombuffer(state.board.translate(CATEGORY_BYTES) + b"\0", UINT8)
    counters = bytearray(COUNTERS.pack(*_mole(state), *_stats(state)))
    level, shape = state.level, described["board"].shape
    last = _LAST[0]
    if level is not last[0] or shape != last[1]:
        last = _LAST[0] = (level, shape, _gather(level, shape))
    return {
        "board": codes[last[2]],
        "mole": _frombuffer(counters, INT16, 2, 0),
        "stats": _frombuffer(counters, FLOAT32, 6, 4),
    }


def encode_all(states: list[State], out: dict[str, Any]) -> None:
    """Every board through one gather of all boards laid end to end."""
    board = out["board"]
    shape = board.shape[1:]
    layouts = (shape, [(state.level.width, state.level.board) for state in states])
    batch = _BATCH[0]
    if batch[0] != layouts:
        gathers, offset = [], 0
        for state in states:
            level = state.level
            gathers.append(_gather(level, shape) + offset)
            offset += level.height * level.width + 1
        batch = _BATCH[0] = (layouts, np.stack(gathers))
    table = CATEGORY_BYTES
    joined = b"\0".join([state.board.translate(table) for state in states]) + b"\0"
    board[...] = np.frombuffer(joined, dtype=np.uint8)[batch[1]]
    out["mole"][:] = [_mole(state) for state in states]
    out["stats"][:] = [_stats(state) for state in states]


def legal(state: State) -> tuple[int, ...]:
    if state.status != PLAYING:
        return ()
    return (*legal_dirs(state), WAIT)


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


def tiles(state: State) -> np.ndarray:
    return COLOURS[_grid(state)]


def tile_grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return shape(options)
