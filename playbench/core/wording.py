"""Small pieces of the words every game's events are told in (the terminal's messages):
a count with its noun, the points an event gained, a machine name spaced as words.

A game's own sentences live in its ``controls`` module (``words``); these are the parts
they share, so "1 gem", "2 lives" and "(+30 points)" read the same in every game.
"""

from __future__ import annotations

import re


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` with its noun: "1 gem", "3 gems", "2 lives"."""
    return f"{count} {one if count == 1 else many or one + 's'}"


def gained(points: object) -> str:
    """What an event scored, as a message ends: " (+30 points)"; "" for none."""
    return f" (+{points} points)" if isinstance(points, int) and points > 0 else ""


def spaced(name: str) -> str:
    """A machine name as words: ``teeterClear`` as "teeter clear"."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()
