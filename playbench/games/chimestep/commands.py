"""The Chimestep text grammar: ``start``, ``hop upLeft`` / ``hop ul`` / ``ul``, ``toll``,
``tick`` and ``tick 4``. Words are case-insensitive."""

from __future__ import annotations

import re

from playbench.core import Action, CommandError
from playbench.games.chimestep.board import DIRECTIONS
from playbench.games.chimestep.tables import MAX_TICK_COUNT, MIN_TICK_COUNT

#: every word that names a direction (lower case) -> its name in actions
DIRECTION_WORDS = {name.lower(): name for name in DIRECTIONS} | {
    "ul": "upLeft",
    "ur": "upRight",
    "dl": "downLeft",
    "dr": "downRight",
}
COUNT_PATTERN = re.compile(r"([+-]?)0*(\d+)")
HELP = "commands: start, hop upLeft|upRight|downLeft|downRight (or ul ur dl dr), toll, tick, tick N"


def command_text(action: object) -> str:
    """The command of an action: ``start``, ``toll``, ``hop upLeft``, ``tick`` or
    ``tick 4``."""
    if isinstance(action, dict):
        kind = action.get("type")
        if kind in ("start", "toll") and len(action) == 1:
            return kind
        if kind == "hop" and set(action) == {"type", "dir"} and action["dir"] in DIRECTIONS:
            return f"hop {action['dir']}"
        if kind == "tick" and len(action) == 1:
            return "tick"
        count = action.get("count")
        if kind == "tick" and set(action) == {"type", "count"} and type(count) is int:
            return f"tick {count}"
    raise CommandError(f"{action!r} is not a Chimestep action")


def parse_command(text: str) -> Action:
    if not isinstance(text, str):
        raise CommandError(f"a command is text, got {type(text).__name__}")
    words = text.lower().split()
    if not words:
        raise CommandError(f"empty command; {HELP}")
    head, rest = words[0], words[1:]
    if head in DIRECTION_WORDS:
        if rest:
            raise CommandError(f"{head} is a hop and takes nothing after it")
        return {"type": "hop", "dir": DIRECTION_WORDS[head]}
    if head in ("start", "toll"):
        if rest:
            raise CommandError(f"{head} takes nothing after it, got {' '.join(rest)!r}")
        return {"type": head}
    if head == "hop":
        if len(rest) != 1 or rest[0] not in DIRECTION_WORDS:
            raise CommandError(
                f"hop needs one direction: upLeft, upRight, downLeft, downRight "
                f"(or ul, ur, dl, dr); got {' '.join(rest) or 'nothing'!r}"
            )
        return {"type": "hop", "dir": DIRECTION_WORDS[rest[0]]}
    if head == "tick":
        if not rest:
            return {"type": "tick"}
        count = COUNT_PATTERN.fullmatch(rest[0]) if len(rest) == 1 else None
        if count is not None:
            return {"type": "tick", "count": _clamped(*count.groups())}
        raise CommandError(
            f"tick takes one whole number of ticks (clamped to {MIN_TICK_COUNT}..{MAX_TICK_COUNT}),"
            f" got {' '.join(rest)!r}"
        )
    raise CommandError(f"unknown command {text.strip()!r}; {HELP}")


def _clamped(sign: str, digits: str) -> int:
    """A tick count as the rules read it, clamped to 1..30 (as the stateless API's count
    is): ``tick 99`` plays 30 ticks, ``tick 0`` and ``tick -3`` one, at every door."""
    if sign == "-":
        return MIN_TICK_COUNT
    if len(digits) > len(str(MAX_TICK_COUNT)):
        return MAX_TICK_COUNT
    return min(MAX_TICK_COUNT, max(MIN_TICK_COUNT, int(digits)))
