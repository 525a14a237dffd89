"""A game's colours: ``palette.json`` beside its package, found by convention.

Every picture of a game (the Gymnasium door's frames, the browser's boards) reads the
same file. Colours are ``#rrggbb`` text; ``background`` is always there, the rest is the
game's own (named cells, levels, gems).

A palette that also names its board is the game's *picture*, from which any door can
draw the board with no painter of its own (the browser's ``boards/picture.js``, the
Gymnasium door's glyph frames):

- ``board``: the observation field holding the board, a list of rows, each a string of
  one-character glyphs or a list of glyph tokens;
- ``cells``: each glyph's colour;
- ``labels``: each glyph's word for people (a legend).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from playbench.core.game import Game, game_package

PALETTE_FILE = "palette.json"


@cache
def read_palette(package: str) -> dict[str, Any] | None:
    """The palette in ``package``'s folder, or None when it has none."""
    found = resources.files(package).joinpath(PALETTE_FILE)
    if not found.is_file():
        return None
    return json.loads(found.read_text(encoding="utf-8"))


def palette_of(game: Game) -> dict[str, Any] | None:
    """The palette beside the game's class, or None."""
    return read_palette(game_package(game))


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as three bytes."""
    value = int(colour.removeprefix("#"), 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF
