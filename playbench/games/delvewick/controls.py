"""Delvewick's keys (arrows and WASD move, space or ``.`` waits) and board colours."""

import re

from playbench.core.controls import Controls
from playbench.games.delvewick.levels import BOARD_GLYPHS

CONTROLS = Controls(
    keys={
        "KEY_UP": "up",
        "KEY_DOWN": "down",
        "KEY_LEFT": "left",
        "KEY_RIGHT": "right",
        "w": "up",
        "s": "down",
        "a": "left",
        "d": "right",
        " ": "wait",
        ".": "wait",
    },
    colors={
        "#": "blue",
        "%": "yellow",
        "O": "white",
        "o": "white",
        "*": "cyan",
        "v": "cyan",
        "G": "magenta",
        "g": "magenta",
        "X": "red",
        "E": "green",
        "M": "green",
    },
    help="arrows or WASD move, space waits",
    focus="M",
    board_line=re.compile(f"[{re.escape(BOARD_GLYPHS)}]+"),
)
