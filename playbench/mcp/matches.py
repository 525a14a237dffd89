"""The matches an MCP server holds: who made each, how many, and for how long.

A match belongs to the owner that made it: over streamable HTTP with a session, the MCP
session id; over stdio and sessionless HTTP (protocol 2026-07-28 and later has no
sessions), the owner is ``None`` and the match id itself, 128 random bits, is what only its
maker knows. A match another owner made is reported exactly like one that does not
exist. An owner with a session holds at most ``per_owner`` matches; the whole table at
most ``total``. A match nobody touched for ``idle_seconds`` is dropped.

Tools run in worker threads, so a match is used only inside :meth:`MatchTable.using`,
which holds that match's own lock: two calls on one match take turns, calls on different
matches do not wait for each other.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.rng import draw_seed

#: defaults: per session, in all, and minutes idle before a match is dropped
PER_OWNER = 16
TOTAL = 4096
IDLE_SECONDS = 30 * 60
ID_BYTES = 16


class MatchLimitError(PlaybenchError):
    """No room for another match (the owner's or the table's cap)."""


class NoMatchError(PlaybenchError, LookupError):
    """No live match of that id for this owner."""


@dataclass(slots=True)
class Held:
    """A match in the table, with its owner, when it was last used and its lock."""

    match: Match
    owner: str | None
    used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class MatchTable:
    """Live matches by id, thread-safe. ``clock`` is seconds (monotonic by default)."""

    def __init__(
        self,
        per_owner: int = PER_OWNER,
        total: int = TOTAL,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_owner = per_owner
        self.total = total
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._held: dict[str, Held] = {}
        self._lock = threading.Lock()

    def start(
        self, owner: str | None, game: str, seed: int | None, options: JSON | None
    ) -> tuple[str, Match]:
        """A new match for ``owner``: its id and the match. ``seed`` None draws one.

        Raises :class:`MatchLimitError` when the owner or the table is full, and the
        game's own errors (unknown game, bad seed or options) as they are.
        """
        match = Match.start(game, draw_seed() if seed is None else seed, options)
        with self._lock:
            now = self._sweep()
            if owner is not None:
                mine = sum(1 for held in self._held.values() if held.owner == owner)
                if mine >= self.per_owner:
                    raise MatchLimitError(
                        f"this session already holds {mine} matches, the most it may; "
                        f"finish with one or leave it idle for {self._idle_text()} to free it"
                    )
            if len(self._held) >= self.total:
                raise MatchLimitError(
                    f"the server holds {len(self._held)} matches, the most it may; try again later"
                )
            match_id = secrets.token_hex(ID_BYTES)
            self._held[match_id] = Held(match, owner, now)
        return match_id, match

    @contextmanager
    def using(self, owner: str | None, match_id: str) -> Iterator[Match]:
        """The owner's live match ``match_id``, touched, with its lock held for the block.
        Raises :class:`NoMatchError`."""
        with self._lock:
            now = self._sweep()
            held = self._held.get(match_id)
            if held is None or held.owner != owner:
                raise NoMatchError(
                    f"no live match {match_id!r} in this session: matches expire after "
                    f"{self._idle_text()} idle; start one with new_game"
                )
            held.used = now
        with held.lock:
            yield held.match

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._held)

    def _sweep(self) -> float:
        """Drop idle matches; the current time."""
        now = self._clock()
        limit = now - self.idle_seconds
        for match_id in [key for key, held in self._held.items() if held.used < limit]:
            del self._held[match_id]
        return now

    def _idle_text(self) -> str:
        minutes, seconds = divmod(int(self.idle_seconds), 60)
        if seconds:
            return f"{int(self.idle_seconds)} seconds"
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
