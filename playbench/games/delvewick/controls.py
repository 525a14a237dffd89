"""Delvewick's keys (arrows and WASD move, space or ``.`` waits) and board colours."""

import re

from playbench.core.controls import Controls, PadButton
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
    pad=(
        PadButton("up", "KEY_UP", "↑", 1),
        PadButton("left", "KEY_LEFT", "←", 3),
        PadButton("wait", " ", "wait", 4),
        PadButton("right", "KEY_RIGHT", "→", 5),
        PadButton("down", "KEY_DOWN", "↓", 7),
    ),
    swipes={"up": "KEY_UP", "down": "KEY_DOWN", "left": "KEY_LEFT", "right": "KEY_RIGHT"},
    focus="M",
    board_line=re.compile(f"[{re.escape(BOARD_GLYPHS)}]+"),
)
