"""Gem Swap for learning doors: 113 actions, the board as two category planes, its picture.

Actions (113): the 112 swaps of neighbouring cells in normal form, in board order
(A1 right, A1 down, B1 right, ..., H7 down, A8 right, ..., G8 right), then ``hint``. The
``moves`` query and the ``select``/``deselect`` clicks are left out: they are a person's
aids, not play. ``hint`` is dominated (:func:`dominated`): it costs 50 points and its
answer is not in these arrays (the JSON observation and the text board hold it until the
next swap), so a door masks it unless asked.

Observation (row 1 first):
    ``colors`` uint8 (8, 8): 0 R, 1 G, 2 B, 3 Y, 4 P, 5 O, 6 W, 7 colour bomb.
    ``kinds`` uint8 (8, 8): 0 plain, 1 row blaster, 2 column blaster, 3 area bomb,
    4 colour bomb.
    ``stats`` float32 (2,): moves left / 30 (0..1), score / 10,000 (-1..1, below 0 after
    hints bought with fewer than 50 points).

Tiles: one gem colour a cell, a special gem lighter (halfway to white).

Seed: the game seed makes the starting board and every refill that falls in after a
match (one stream of draws), so one seed is one game; swaps change which draws land where.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from playbench.core.game import Action
from playbench.core.learning import ActionTable, Array
from playbench.core.palette import read_palette, rgb
from playbench.games.gemswap.board import (
    AREA_BOMB,
    COLOR_BOMB,
    COLOR_BOMB_TOKEN,
    COLOR_LETTERS,
    COLUMN_BLASTER,
    NO_COLOR,
    ROW_BLASTER,
    SIZE,
)
from playbench.games.gemswap.commands import HINT, NORMAL_SWAPS, SWAP_TEXTS
from playbench.games.gemswap.state import MOVES_PER_GAME, GemState
from playbench.games.gemswap.view import PROGRESS_SCORE

CELL = 40
#: the white marks on specials, in pixels
BAR = 8
INSET = 12


def _key(action: Action) -> Hashable:
    return action["command"]


ACTIONS = ActionTable.of([*({"command": text} for text in NORMAL_SWAPS), {"command": HINT}], _key)
#: a swap's cell pair -> its index
SWAP_INDEX = {pair: ACTIONS.indices[text][0] for pair, text in SWAP_TEXTS.items()}
HINT_INDEX = ACTIONS.size - 1


def arrays(options: Mapping[str, Any] | None) -> dict[str, Array]:
    return {
        "colors": Array((SIZE, SIZE), "uint8", 0, NO_COLOR, NO_COLOR + 1),
        "kinds": Array((SIZE, SIZE), "uint8", 0, COLOR_BOMB, COLOR_BOMB + 1),
        "stats": Array((2,), "float32", -1.0, 1.0),
    }


#: the stats' bytes (float32), after the two planes' in the buffer of one observation
STATS = struct.Struct("=2f")
PLANES_SHAPE, STATS_SHAPE, STATS_AT = (2, SIZE, SIZE), (2,), 2 * SIZE * SIZE
UINT8, FLOAT32 = np.dtype(np.uint8), np.dtype(np.float32)
_ndarray = np.ndarray


def encode(state: GemState, described: Mapping[str, Array]) -> dict[str, Any]:
    """The colour and kind bytes as they are and the counters' bytes after them, in one new
    buffer."""
    both = bytearray().join((state.colors, state.kinds, STATS.pack(*_stats(state))))
    planes = _ndarray(PLANES_SHAPE, UINT8, both)
    return {
        "colors": planes[0],
        "kinds": planes[1],
        "stats": _ndarray(STATS_SHAPE, FLOAT32, both, STATS_AT),
    }


def _stats(state: GemState) -> tuple[float, float]:
    return (
        (MOVES_PER_GAME - state.moves_made) / MOVES_PER_GAME,
        max(-1.0, min(state.score / PROGRESS_SCORE, 1.0)),
    )


_DOMINATED = (HINT_INDEX,)


def dominated(state: GemState) -> tuple[int, ...]:
    """``hint``: it can only lose points for an agent that reads the observation."""
    return _DOMINATED


def legal(state: GemState) -> list[int]:
    if state.over:
        return []
    return [*map(SWAP_INDEX.__getitem__, state.legal_swaps()), HINT_INDEX]


def encode_all(states: list[GemState], out: dict[str, Any]) -> None:
    """Every board at once: the colour and kind bytes of all boards laid end to end."""
    shape = out["colors"].shape
    out["colors"][...] = np.frombuffer(b"".join([s.colors for s in states]), np.uint8).reshape(
        shape
    )
    out["kinds"][...] = np.frombuffer(b"".join([s.kinds for s in states]), np.uint8).reshape(shape)
    out["stats"][:] = [_stats(state) for state in states]


def status(state: GemState) -> str:
    return f"score {state.score} moves {MOVES_PER_GAME - state.moves_made} left"


def paint(state: GemState) -> np.ndarray:
    """One square a gem in its colour; a row blaster has a white bar across, a column
    blaster one down, an area bomb a white centre, a colour bomb a white centre on black."""
    colours = read_palette(__package__)
    gems = colours["gems"]
    table = np.array([rgb(gems[letter]) for letter in [*COLOR_LETTERS, COLOR_BOMB_TOKEN]])
    mark = rgb(colours["mark"])
    codes = np.frombuffer(state.colors, dtype=np.uint8).reshape(SIZE, SIZE)
    picture = np.repeat(np.repeat(table[codes].astype(np.uint8), CELL, 0), CELL, 1)
    picture[CELL - 1 :: CELL] = rgb(colours["background"])
    picture[:, CELL - 1 :: CELL] = rgb(colours["background"])
    middle = slice(CELL // 2 - BAR // 2, CELL // 2 + BAR // 2)
    centre = slice(INSET, CELL - 1 - INSET)
    for cell, kind in enumerate(state.kinds):
        top, left = divmod(cell, SIZE)
        square = picture[top * CELL : (top + 1) * CELL - 1, left * CELL : (left + 1) * CELL - 1]
        if kind == ROW_BLASTER:
            square[middle, :] = mark
        elif kind == COLUMN_BLASTER:
            square[:, middle] = mark
        elif kind in (AREA_BOMB, COLOR_BOMB):
            square[centre, centre] = mark
    return picture


def frame(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return SIZE * CELL, SIZE * CELL


def _gem_colours() -> np.ndarray:
    """Row ``kind > 0`` then colour code: a plain gem's colour, and a special's halfway to
    white."""
    gems = read_palette(__package__)["gems"]
    plain = np.array([rgb(gems[letter]) for letter in [*COLOR_LETTERS, COLOR_BOMB_TOKEN]])
    return np.stack([plain, (plain + 255) // 2]).astype(np.uint8)


GEM_COLOURS = _gem_colours()


def tiles(state: GemState) -> np.ndarray:
    colors = np.frombuffer(state.colors, dtype=np.uint8).reshape(SIZE, SIZE)
    special = np.frombuffer(state.kinds, dtype=np.uint8).reshape(SIZE, SIZE) != 0
    return GEM_COLOURS[special.view(np.uint8), colors]


def tile_grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return SIZE, SIZE
