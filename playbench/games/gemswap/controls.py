"""Gem Swap's keys: each opens a prompt for the rest of its command."""

import re

from playbench.core.controls import Controls

CONTROLS = Controls(
    keys={
        "s": "swap ...",
        "c": "select ...",
        "d": "deselect",
        "h": "hint",
        "m": "moves",
        ":": "...",
        "\n": "...",
    },
    colors={
        "R": "red",
        "G": "green",
        "B": "blue",
        "Y": "yellow",
        "P": "magenta",
        "O": "cyan",
        "W": "white",
        "@": "white",
    },
    help="s swaps, c selects, d deselects, h hint, m moves, : any command",
    board_line=re.compile(r" ?\d [RGBYPOW@ |+-]+"),
)
