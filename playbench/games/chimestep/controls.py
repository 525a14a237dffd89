"""Chimestep's keys and clock: the world ticks 12 times a second while nobody presses."""

import re

from playbench.core.controls import Controls, PadButton

TICKS_PER_SECOND = 12

CONTROLS = Controls(
    keys={
        "u": "hop upLeft",
        "i": "hop upRight",
        "j": "hop downLeft",
        "k": "hop downRight",
        "7": "hop upLeft",
        "9": "hop upRight",
        "1": "hop downLeft",
        "3": "hop downRight",
        "KEY_LEFT": "hop upLeft",
        "KEY_UP": "hop upRight",
        "KEY_DOWN": "hop downLeft",
        "KEY_RIGHT": "hop downRight",
        " ": "start",
        "s": "start",
        "t": "toll",
        ".": "tick",
        "n": "tick ...",
    },
    idle=(1 / TICKS_PER_SECOND, "tick"),
    colors={
        "@": "yellow",
        **dict.fromkeys("TSM", "red"),
        **dict.fromkeys("tsm", "magenta"),
        **dict.fromkeys("0", "blue"),
        **dict.fromkeys("123456789", "cyan"),
    },
    help="space or s starts, u i j k (7 9 1 3, arrows) hop, t tolls, n ticks N",
    pad=(
        PadButton("up-left", "u", "↖", 0),
        PadButton("up-right", "i", "↗", 2),
        PadButton("toll", "t", "toll", 4),
        PadButton("down-left", "j", "↙", 6),
        PadButton("down-right", "k", "↘", 8),
        PadButton("start", " ", "start"),
    ),
    swipes={"up": "KEY_UP", "down": "KEY_DOWN", "left": "KEY_LEFT", "right": "KEY_RIGHT"},
    board_line=re.compile(r"[ .@0-9TSMtsm]+"),
)
