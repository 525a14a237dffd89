"""Chimestep's keys and clock (the world ticks 12 times a second while nobody presses)
and its events in words."""

import re
from collections.abc import Mapping
from typing import Any

from playbench.core.controls import Controls, PadButton
from playbench.core.wording import gained, plural, spaced

TICKS_PER_SECOND = 12
#: events the board already shows (a hop, a landing, a tick, the teeter's end)
UNTOLD = frozenset({"hop", "land", "tick", "teeterClear", "teeterEnd", "rollOff"})


def _direction(name: str) -> str:
    """``downLeft`` as "down-left"."""
    return spaced(name).replace(" ", "-")


def words(event: Mapping[str, Any], view: Mapping[str, Any]) -> str | None:
    """Every event in words: a ring with its chain and points, the bell, the Hush, what a
    stage and the run end with; "" for what the board shows."""
    kind = event.get("type")
    points = gained(event.get("points"))
    if kind in UNTOLD:
        return ""
    if kind == "start":
        return f"stage {event['stage']}: get ready"
    if kind == "stageStart":
        return f"stage {event['stage']}: ring every tile to level {event['target']}"
    if kind == "play":
        return "in play"
    if kind == "buffer":
        return f"hop {_direction(event['dir'])} queued: it goes as soon as the chick can hop"
    if kind == "ring":
        chain = f", chain of {event['chain']}" if event["chain"] > 1 else ""
        return f"ring{chain}{points}"
    if kind == "teeter":
        return f"teetering on the rim: hop {_direction(event['dir'])} again and the chick leaps off"
    if kind == "leap":
        free = " (a free leap: no life lost)" if event["free"] else ""
        return f"the chick leaps off the pyramid{free}"
    if kind == "lifeLost":
        return f"a life lost: {plural(event['lives'], 'life', 'lives')} left"
    if kind == "damped":
        return f"a {event['kind']} damped you back to the top"
    if kind == "muffle":
        return (
            f"a muffle dulls the tile at row {event['row'] + 1}, column {event['col'] + 1} "
            f"to level {event['level']}"
        )
    if kind == "spawn":
        return f"a {event['kind']} appears"
    if kind == "disperse":
        return f"a {event['kind']} fades away"
    if kind == "toll":
        return f"the bell tolls: {plural(event['scattered'], 'Hush', 'Hush')} scattered"
    if kind == "scatter":
        return f"a {event['kind']} scatters{points}"
    if kind == "charge":
        return f"the bell charges: {plural(event['charges'], 'toll')} ready"
    if kind == "stageClear":
        return (
            f"stage {event['stage']} cleared in {plural(event['stageHops'], 'hop')} "
            f"(par {event['par']}){points}"
        )
    if kind == "gameOver":
        return f"the run is over with {plural(event['score'], 'point')}"
    return None


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
    words=words,
    board_line=re.compile(r"[ .@0-9TSMtsm]+"),
)
