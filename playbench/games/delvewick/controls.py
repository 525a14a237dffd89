"""Delvewick's keys (arrows and WASD move, space or ``.`` waits), board colours and its
events in words."""

import re
from collections.abc import Mapping
from typing import Any

from playbench.core.controls import Controls, PadButton
from playbench.core.wording import gained, plural
from playbench.games.delvewick.levels import BOARD_GLYPHS

#: events the board already shows (the mole's move, a dug cell, a boulder falling)
UNTOLD = frozenset({"move", "wait", "dig", "fall", "roll", "land"})


def words(event: Mapping[str, Any], view: Mapping[str, Any]) -> str | None:
    """Every event in words: a gem with its chain and points, what ends a level or the
    run; "" for what the board shows."""
    kind = event.get("type")
    points = gained(event.get("points"))
    if kind in UNTOLD:
        return ""
    if kind == "push":
        return f"you push the {event['object']}"
    if kind == "collect":
        chain = f", chain of {event['chain']}" if event["chain"] > 1 else ""
        return f"gem{chain}{points}"
    if kind == "caught":
        return f"you catch a falling gem{points}"
    if kind == "crack":
        return f"a boulder cracks a geode open{points}"
    if kind == "crushed":
        return f"crushed by a falling {event['object']}: the run is over"
    if kind == "exitOpen":
        return "enough gems: the exit is open"
    if kind == "levelClear":
        oil = plural(event["oilLeft"], "unit")
        return f"level {event['level']}, {event['name']}, cleared with {oil} of oil left{points}"
    if kind == "levelStart":
        return f"level {event['level']}: {event['name']}"
    if kind == "outOfOil":
        return "the lamp is out of oil: the run is over"
    if kind == "boxedIn":
        return "boxed in: no move is left, the run is over"
    if kind == "won":
        return f"every level cleared: you win{points}"
    return None


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
    words=words,
    focus="M",
    board_line=re.compile(f"[{re.escape(BOARD_GLYPHS)}]+"),
)
