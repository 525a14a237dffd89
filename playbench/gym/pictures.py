"""Pictures of a board: ``uint8`` arrays of shape (height, width, 3), drawn with numpy.

Each picture is drawn from the game's public JSON observation with the colours of
``palette.json``, one square per cell with a one-pixel gap of the background colour.

- Delvewick: 16-pixel cells, the level only (no padding).
- Chimestep: 24-pixel tiles, each tier centred under the one above; a Hush is a square
  in its tile's centre (grey while dormant), the chick a smaller square on top.
- Gem Swap: 24-pixel cells; a row blaster has a white bar across, a column blaster one
  down, an area bomb a white centre, a colour bomb a white centre on black.
- Cogcrawl: 8-pixel cells, each glyph in its colour, monsters red.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from playbench.core.game import JSON
from playbench.games.chimestep.board import TIERS
from playbench.games.gemswap.board import (
    COLOR_BOMB_TOKEN,
    COLOR_LETTERS,
    COLUMN_BLASTER,
    ROW_BLASTER,
    SIZE,
)
from playbench.gym.observations import GEM_CODES
from playbench.gym.palette import palette, rgb

DELVEWICK_CELL = 16
CHIMESTEP_CELL = 24
GEMSWAP_CELL = 24
COGCRAWL_CELL = 8
#: the part of a cell a centre mark covers, in pixels from each side
MARK_INSET = 7
BAR_WIDTH = 4


@cache
def _lookup(slug: str) -> np.ndarray:
    """A 256-entry colour table by character code: the background where the palette
    names no colour (Cogcrawl's monsters, which are letters, get the monster colour)."""
    colours = palette(slug)
    table = np.empty((256, 3), dtype=np.uint8)
    table[:] = rgb(colours["background"])
    if "monster" in colours:
        monster = rgb(colours["monster"])
        for letter in range(ord("A"), ord("z") + 1):
            if chr(letter).isalpha():
                table[letter] = monster
    for glyph, colour in colours["cells"].items():
        table[ord(glyph)] = rgb(colour)
    return table


def _cells(codes: np.ndarray, table: np.ndarray, cell: int, background: np.ndarray) -> np.ndarray:
    """Each code as a ``cell``-pixel square of its colour with a one-pixel gap."""
    picture = np.repeat(np.repeat(table[codes], cell, axis=0), cell, axis=1)
    picture[cell - 1 :: cell, :, :] = background
    picture[:, cell - 1 :: cell, :] = background
    return picture


def _fill(picture: np.ndarray, top: int, left: int, size: int, inset: int, colour: object) -> None:
    """Paint the square of a ``size``-pixel cell at (``top``, ``left``), ``inset`` pixels in
    from each side (the cell's last pixel row and column are its gap)."""
    far = size - 1 - inset
    picture[top + inset : top + far, left + inset : left + far] = colour


def _text_grid(rows: list[str]) -> np.ndarray:
    height = len(rows)
    return np.frombuffer("".join(rows).encode(), dtype=np.uint8).reshape(height, -1)


def delvewick(view: JSON) -> np.ndarray:
    table = _lookup("delvewick")
    background = np.array(rgb(palette("delvewick")["background"]), dtype=np.uint8)
    return _cells(_text_grid(view["board"]), table, DELVEWICK_CELL, background)


def cogcrawl(view: JSON) -> np.ndarray:
    table = _lookup("cogcrawl")
    background = np.array(rgb(palette("cogcrawl")["background"]), dtype=np.uint8)
    return _cells(_text_grid(view["map"]), table, COGCRAWL_CELL, background)


def gemswap(view: JSON) -> np.ndarray:
    colours = palette("gem-swap")
    gem_colours = colours["gems"]
    letters = [*COLOR_LETTERS, COLOR_BOMB_TOKEN]  # by colour code: the colour bomb is NO_COLOR
    table = np.array([rgb(gem_colours[letter]) for letter in letters], dtype=np.uint8)
    background = np.array(rgb(colours["background"]), dtype=np.uint8)
    mark = np.array(rgb(colours["mark"]), dtype=np.uint8)
    pairs = np.array([GEM_CODES[token] for row in view["board"] for token in row])
    color_codes = pairs[:, 0].reshape(SIZE, SIZE)
    kind_codes = pairs[:, 1].reshape(SIZE, SIZE)
    cell = GEMSWAP_CELL
    picture = _cells(color_codes, table, cell, background)
    bar = slice(cell // 2 - BAR_WIDTH // 2, cell // 2 + BAR_WIDTH // 2)
    for row, col in zip(*np.nonzero(kind_codes), strict=True):
        top, left = row * cell, col * cell
        square = picture[top : top + cell - 1, left : left + cell - 1]
        kind = kind_codes[row, col]
        if kind == ROW_BLASTER:
            square[bar, :] = mark
        elif kind == COLUMN_BLASTER:
            square[:, bar] = mark
        else:
            _fill(picture, top, left, cell, MARK_INSET, mark)
    return picture


def chimestep(view: JSON) -> np.ndarray:
    colours = palette("chimestep")
    cell = CHIMESTEP_CELL
    background = rgb(colours["background"])
    levels = [rgb(colour) for colour in colours["levels"]]
    hush_colours = {kind: rgb(colour) for kind, colour in colours["hush"].items()}
    dormant = rgb(colours["dormant"])
    picture = np.empty((TIERS * cell, TIERS * cell, 3), dtype=np.uint8)
    picture[:] = background

    def corner(row: int, col: int) -> tuple[int, int]:
        return row * cell, (TIERS - 1 - row) * cell // 2 + col * cell

    for row, tier in enumerate(view["tiles"]):
        for col, level in enumerate(tier):
            _fill(picture, *corner(row, col), cell, 0, levels[level])
    inset = MARK_INSET - 2
    for entries, fixed in ((view["dormantHush"], dormant), (view["hushCells"], None)):
        for entry in entries:
            colour = fixed if fixed is not None else hush_colours[entry["kind"]]
            _fill(picture, *corner(entry["row"], entry["col"]), cell, inset, colour)
    chick = corner(view["position"]["row"], view["position"]["col"])
    _fill(picture, *chick, cell, MARK_INSET, rgb(colours["chick"]))
    return picture


PAINTERS: dict[str, Callable[[JSON], np.ndarray]] = {
    "delvewick": delvewick,
    "chimestep": chimestep,
    "gem-swap": gemswap,
    "cogcrawl": cogcrawl,
}
