"""The scratch record of one seat turn, shared by the systems a primitive runs.

A :class:`Turn` holds the state being changed (a copy the step owns), the messages and
events made so far, and whether the cog was hit since the last primitive began. A
primitive that cannot be carried out raises :class:`PrimitiveFailed`: it took no time
and the queue stops there.
"""

from __future__ import annotations

from typing import Any

from playbench.games.cogcrawl.state import DEAD, CogState


class PrimitiveFailed(Exception):
    """A primitive that could not be carried out; the message says why (lower case, no
    full stop: it is quoted in ``last_plan.interrupted``)."""


class Turn:
    """Messages and events of one seat turn, and whether the cog was hit."""

    __slots__ = ("events", "hit", "log", "s")

    def __init__(self, state: CogState) -> None:
        self.s = state
        self.log: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.hit = False

    def message(self, text: str) -> None:
        self.log.append(text)

    def event(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, **fields})

    def die(self, cause: str) -> None:
        s = self.s
        s.hp = min(s.hp, 0)
        s.run = DEAD
        self.message("You die...")
        self.event("died", cause=cause)
