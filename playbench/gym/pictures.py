"""Frames of a game for videos and pixel agents: one fixed size per env, a status line on top.

A frame is ``uint8`` (height, width, 3): a band with the game's status line (score, oil,
lives, moves, depth as the game has them), then the board at the top left of a canvas as
large as the largest board the env's options allow, so a video holds every frame of an
episode (Delvewick's levels differ in size). The board is the game's own picture
(``Learning.paint``), or glyphs drawn as characters in the colours of the game's palette:
its glyph rows (``Learning.glyphs``), else the observation field the palette names as
``board`` (the game's generic picture), else its text board.
Characters are drawn with Pillow's default font, each glyph rendered once.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from playbench.core.game import Game
from playbench.core.learning import Learning
from playbench.core.palette import palette_of, rgb

#: a glyph cell and the status band, in pixels
GLYPH_WIDTH = 10
GLYPH_HEIGHT = 16
BAND = 18
FONT_SIZE = 13
#: the text board's size in glyphs for a game that gives no size
TEXT_GRID = (40, 80)
BLACK = (0, 0, 0)
WHITE = (235, 235, 235)


@cache
def _font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=FONT_SIZE)


@cache
def _atlas() -> np.ndarray:
    """A coverage mask (0..1) of every byte's glyph in a cell: shape (256, h, w)."""
    atlas = np.zeros((256, GLYPH_HEIGHT, GLYPH_WIDTH), dtype=np.float32)
    font = _font()
    for code in range(33, 127):
        image = Image.new("L", (GLYPH_WIDTH, GLYPH_HEIGHT))
        ImageDraw.Draw(image).text(
            (GLYPH_WIDTH / 2, GLYPH_HEIGHT / 2), chr(code), fill=255, font=font, anchor="mm"
        )
        atlas[code] = np.asarray(image, dtype=np.float32) / 255
    return atlas


class Colours:
    """A game's palette for glyph pictures: the colour of each one-byte glyph (its
    ``cells``, ``monster`` for letters it does not name, white for the rest), of each
    longer glyph token it names, and the background."""

    def __init__(self, game: Game) -> None:
        self.palette = palette_of(game) or {}
        colours = self.palette
        self.background = np.array(rgb(colours.get("background", "#000000")), dtype=np.float32)
        table = np.empty((256, 3), dtype=np.float32)
        table[:] = WHITE
        if "monster" in colours:
            for code in range(256):
                if chr(code).isascii() and chr(code).isalpha():
                    table[code] = rgb(colours["monster"])
        cells = colours.get("cells", {})
        for glyph, colour in cells.items():
            if len(glyph) == 1:
                table[ord(glyph)] = rgb(colour)
        self.table = table
        self.tokens = {glyph: rgb(colour) for glyph, colour in cells.items() if len(glyph) > 1}


def glyph_picture(rows: list[Any], size: tuple[int, int], colours: Colours) -> np.ndarray:
    """``rows`` (strings of one-character glyphs, or lists of glyph tokens, each drawn as
    its first character in its own colour) as coloured characters in a grid of ``size``
    (rows, columns) glyph cells, cropped to it and padded with the background."""
    height, width = size
    codes = np.full((height, width), ord(" "), dtype=np.uint8)
    named: list[tuple[int, int, tuple[int, int, int]]] = []
    for index, row in enumerate(rows[:height]):
        if isinstance(row, str):
            line = row[:width]
        else:
            tokens = [str(token) for token in row[:width]]
            line = "".join(token[:1] or " " for token in tokens)
            named += [
                (index, col, colours.tokens[token])
                for col, token in enumerate(tokens)
                if token in colours.tokens
            ]
        encoded = line.encode("ascii", "replace")
        codes[index, : len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
    cell_colours = colours.table[codes]
    for index, col, colour in named:
        cell_colours[index, col] = colour
    cover = _atlas()[codes].transpose(0, 2, 1, 3).reshape(height * GLYPH_HEIGHT, -1)[..., None]
    colour = np.repeat(np.repeat(cell_colours, GLYPH_HEIGHT, 0), GLYPH_WIDTH, 1)
    background = colours.background
    return (background + cover * (colour - background)).astype(np.uint8)


class Painter:
    """The frames of one env: its game, its learning description, its options.

    The board is the game's own picture (``paint``), else its glyph rows (``glyphs``),
    else the observation field its palette names as its ``board`` (the game's generic
    picture), else its text board.
    """

    def __init__(self, game: Game, learning: Learning, options: Mapping[str, Any] | None) -> None:
        self.game = game
        self.learning = learning
        self.colours = Colours(game)
        self.background = self.colours.background
        if learning.paint is not None:
            board = learning.frame(options)
        else:
            self.grid = learning.grid(options)
            if not all(self.grid):
                self.grid = TEXT_GRID
            board = (self.grid[0] * GLYPH_HEIGHT, self.grid[1] * GLYPH_WIDTH)
        self.board = board
        #: every frame's (height, width, 3)
        self.shape = (BAND + board[0], board[1], 3)

    def board_picture(self, state: Any) -> np.ndarray:
        learning = self.learning
        if learning.paint is not None:
            return learning.paint(state)
        field = self.colours.palette.get("board")
        if learning.glyphs is not None:
            rows = learning.glyphs(state)
        elif isinstance(field, str):
            rows = self.game.observe(state)[field]
        else:
            rows = self.game.render(state).splitlines()
        return glyph_picture(rows, self.grid, self.colours)

    def frame(self, state: Any) -> np.ndarray:
        picture = np.empty(self.shape, dtype=np.uint8)
        picture[:] = self.background
        board = self.board_picture(state)[: self.board[0], : self.board[1]]
        picture[BAND : BAND + board.shape[0], : board.shape[1]] = board
        band = Image.new("RGB", (self.shape[1], BAND), BLACK)
        ImageDraw.Draw(band).text(
            (4, BAND // 2), self.learning.status(state), fill=WHITE, font=_font(), anchor="lm"
        )
        picture[:BAND] = np.asarray(band)
        return picture
