"""The colours of each game's board, one place for every picture of it.

The table lives in ``palette.json`` beside this module so that the browser pages can
load the very same file; :func:`palette` reads it once. Colours are ``#rrggbb`` text.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

PALETTE_FILE = "palette.json"


@cache
def palettes() -> dict[str, Any]:
    """Every game's palette, by slug."""
    text = resources.files("playbench.gym").joinpath(PALETTE_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def palette(slug: str) -> dict[str, Any]:
    """One game's palette: ``background`` and the game's own named colours."""
    return palettes()[slug]


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as three bytes."""
    value = int(colour.removeprefix("#"), 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF
