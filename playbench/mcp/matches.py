"""The matches an MCP server holds: who made each, how many, and for how long.

A match id, 128 random bits, is a capability: whoever holds it plays the match, from any
MCP session or none (clients that open a session per call, as the MCP Inspector's CLI
does, play on). What one client can hold is bounded where a match is made: an MCP session
(``owner``) makes at most ``per_owner`` matches, one client address (``client``) at most
``per_client``, the whole table at most ``total``; stdio has neither owner nor address.
A match nobody touched for ``idle_seconds`` is dropped.

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

#: defaults: per session, per client address, in all, and seconds idle before a match goes
PER_OWNER = 16
PER_CLIENT = 64
TOTAL = 4096
IDLE_SECONDS = 30 * 60
ID_BYTES = 16


class MatchLimitError(PlaybenchError):
    """No room for another match (the owner's or the table's cap)."""


class NoMatchError(PlaybenchError, LookupError):
    """No live match of that id."""


@dataclass(slots=True)
class Held:
    """A match in the table, with the session and the address that made it, when it was
    last used and its lock."""

    match: Match
    owner: str | None
    client: str | None
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
        per_client: int = PER_CLIENT,
        on_change: Callable[[int], None] | None = None,
    ) -> None:
        self.per_owner = per_owner
        self.per_client = per_client
        #: told the number of matches held whenever it may have changed (the metrics)
        self.on_change = on_change
        self.total = total
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._held: dict[str, Held] = {}
        self._lock = threading.Lock()

    def start(
        self,
        owner: str | None,
        game: str,
        seed: int | None,
        options: JSON | None,
        client: str | None = None,
    ) -> tuple[str, Match]:
        """A new match made by session ``owner`` from address ``client``: its id and the
        match. ``seed`` None draws one.

        Raises :class:`MatchLimitError` when the session, the address or the table is
        full, and the game's own errors (unknown game, bad seed or options) as they are.
        """
        match = Match.start(game, draw_seed() if seed is None else seed, options)
        with self._lock:
            now = self._sweep()
            free = f"leave one idle for {self._idle_text()} to free it"
            if owner is not None:
                mine = sum(1 for held in self._held.values() if held.owner == owner)
                if mine >= self.per_owner:
                    raise MatchLimitError(
                        f"this session already holds {mine} matches, the most it may; {free}"
                    )
            if client is not None:
                ours = sum(1 for held in self._held.values() if held.client == client)
                if ours >= self.per_client:
                    raise MatchLimitError(
                        f"this address already holds {ours} matches, the most it may; {free}"
                    )
            if len(self._held) >= self.total:
                raise MatchLimitError(
                    f"the server holds {len(self._held)} matches, the most it may; try again later"
                )
            match_id = secrets.token_hex(ID_BYTES)
            self._held[match_id] = Held(match, owner, client, now)
            self._changed()
        return match_id, match

    @contextmanager
    def using(self, match_id: str) -> Iterator[Match]:
        """The live match ``match_id``, touched, with its lock held for the block.
        Raises :class:`NoMatchError`."""
        with self._lock:
            now = self._sweep()
            held = self._held.get(match_id)
            if held is None:
                raise NoMatchError(
                    f"no live match {match_id!r}: use the matchId new_game returned (a match "
                    f"left idle for {self._idle_text()} is dropped); start one with new_game"
                )
            held.used = now
        with held.lock:
            yield held.match

    def held_by(self, client: str | None) -> int:
        """Matches made from address ``client``."""
        with self._lock:
            self._sweep()
            return sum(1 for held in self._held.values() if held.client == client)

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._held)

    def _sweep(self) -> float:
        """Drop idle matches; the current time."""
        now = self._clock()
        limit = now - self.idle_seconds
        idle = [key for key, held in self._held.items() if held.used < limit]
        for match_id in idle:
            del self._held[match_id]
        if idle:
            self._changed()
        return now

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(len(self._held))

    def _idle_text(self) -> str:
        minutes, seconds = divmod(int(self.idle_seconds), 60)
        if seconds:
            return f"{int(self.idle_seconds)} seconds"
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
