"""The matches of the MCP server: stored in the arena's database, so that every host on
one database plays any of them and counts every client's.

A match id, 128 random bits, is a capability: whoever holds it plays the match, from any
MCP session or none and from any host (clients that open a session per call, as the MCP
Inspector's CLI does, play on; so do clients a proxy sends to another host). What one
client can hold is bounded where a match is made, counting the rows of every host, for
every protocol version: one client (``owner``: an MCP session, or on the 2026-07-28
protocol, whose requests name no session, the client a request declares in its
``clientInfo`` at its address, :func:`declared_client`) makes at most ``per_owner``
matches, one client address (``client``) at most ``per_client``, whatever clients it
declares, the whole table at most ``total``; stdio has neither owner nor
address (``playbench mcp`` keeps its matches in a database of its own, deleted when it
stops). The counts are checked and the match stored in one transaction under a lock row
(``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite has one writer at a time), so two hosts
never both take a client's last place. A match nobody touched for ``idle_seconds`` is
dropped. A full table is no refusal for an address that holds fewer matches than the
largest holders: the least recently used match of theirs makes room, so addresses that
filled the table (each under its own cap) cannot lock a new client out; only a table
shared evenly is refused.

A call on a match (:meth:`MatchTable.run`) loads it, applies the call and stores the
state only when it moved, with an optimistic version check: calls on one match in one
process take turns on that match's lock, and a call that lost a race with another host
is run again on the state that host stored.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
import weakref
from collections.abc import Callable
from typing import TypeVar

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, canonical_json
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.core.rng import draw_seed
from playbench.server.store import ADDRESS_CHARS, MatchCaps, MatchRow, Storage

T = TypeVar("T")

#: defaults: per session, per client address, in all, and seconds idle before a match goes
PER_OWNER = 16
PER_CLIENT = 64
TOTAL = 4096
IDLE_SECONDS = 30 * 60
ID_BYTES = 16
#: a call that changes nothing refreshes the match's last use at most this often
TOUCH_SECONDS = 10.0
#: times a call is run again after losing a race with another host
ATTEMPTS = 8


#: an owner that is a declared client, not an MCP session (which is a bare hex id)
DECLARED_PREFIX = "client:"


def declared_client(declared: str, address: str | None) -> str:
    """The owner of a sessionless request's matches: the client it declares (``name/
    version`` of its ``clientInfo``; empty: none) at ``address``, as a bounded key. A
    declaration is the client's word: a client that declares another gets another
    ``per_owner``, never more than its address's ``per_client``."""
    digest = hashlib.sha256(f"{declared}\n{address or ''}".encode()).hexdigest()
    return DECLARED_PREFIX + digest[:40]


class MatchLimitError(PlaybenchError):
    """No room for another match (the owner's or the table's cap)."""


class NoMatchError(PlaybenchError, LookupError):
    """No live match of that id."""


class BusyMatchError(PlaybenchError):
    """Other calls kept changing the match first."""


class _Turn:
    """One match's lock in this process (weakly held: it goes with its last user)."""

    __slots__ = ("__weakref__", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()


class MatchTable:
    """Live matches by id, in ``storage``; thread-safe. ``clock`` is wall-clock seconds
    (every host on the database reads its own: keep them in step)."""

    def __init__(
        self,
        storage: Storage,
        per_owner: int = PER_OWNER,
        total: int = TOTAL,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.time,
        per_client: int = PER_CLIENT,
    ) -> None:
        self.storage = storage
        self.per_owner = per_owner
        self.per_client = per_client
        self.total = total
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._turns: weakref.WeakValueDictionary[str, _Turn] = weakref.WeakValueDictionary()
        self._turns_lock = threading.Lock()
        storage.make_mcp_locks()

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
        match = Match.start(game, draw_seed() if seed is None else seed, options or {})
        match_id = secrets.token_hex(ID_BYTES)
        if client is not None:
            client = client[:ADDRESS_CHARS]  # what a trusted proxy named may be any text
        now = self._clock()
        row = {
            "id": match_id,
            "slug": match.game.slug,
            "seed": match.seed,
            "options": json.dumps(match.options),
            "state": canonical_json(match.to_json()),
            "moves": 0,
            "version": 0,
            "owner": owner,
            "client": client,
            "used_at": now,
        }

        caps = MatchCaps(self.per_owner, self.per_client, self.total)
        full = self.storage.add_match(row, now - self.idle_seconds, caps)
        if full is not None:
            holder, held = full
            if holder == "server":
                raise MatchLimitError(
                    f"the server holds {held} matches, the most it may; try again later"
                )
            if holder == "session" and owner is not None and owner.startswith(DECLARED_PREFIX):
                holder = "client"
            raise MatchLimitError(
                f"this {holder} already holds {held} matches, the most it may; leave one idle "
                f"for {self._idle_text()} to free it"
            )
        return match_id, match

    def run(self, match_id: str, call: Callable[[Match], T]) -> T:
        """``call`` on the live match ``match_id``, its result; the match stored after it
        when it moved on, and touched. Raises :class:`NoMatchError`, and
        :class:`BusyMatchError` when other hosts changed the match first every time."""
        turn = self._turn(match_id)  # held here: the table keeps it only while used
        with turn.lock:
            for _attempt in range(ATTEMPTS):
                now = self._clock()
                row = self._load(match_id, now)
                game = get_game(row.slug)
                state = game.from_json(json.loads(row.state))
                match = Match(game, state, row.seed, json.loads(row.options))
                match.moves = row.moves
                value = call(match)
                if self._store(row, match, now):
                    return value
        raise BusyMatchError(
            f"match {match_id!r} was changed by other calls {ATTEMPTS} times while this one "
            "ran; send it again"
        )

    def held_by(self, client: str | None) -> int:
        """Live matches made from address ``client``."""
        return self.storage.live_matches(self._clock() - self.idle_seconds, client, anyone=False)

    def __len__(self) -> int:
        return self.storage.live_matches(self._clock() - self.idle_seconds)

    def _turn(self, match_id: str) -> _Turn:
        with self._turns_lock:
            turn = self._turns.get(match_id)
            if turn is None:
                turn = self._turns[match_id] = _Turn()
            return turn

    def _load(self, match_id: str, now: float) -> MatchRow:
        row = self.storage.live_match(match_id, now - self.idle_seconds)
        if row is None:
            raise NoMatchError(
                f"no live match {match_id!r}: use the matchId new_game returned (a match "
                f"left idle for {self._idle_text()} is dropped); start one with new_game"
            )
        return row

    def _store(self, row: MatchRow, match: Match, now: float) -> bool:
        """Store the match after a call (only its last use when it did not move); False
        when another call changed it first."""
        if match.moves == row.moves:
            if now - row.used_at >= TOUCH_SECONDS:
                self.storage.touch_match(row.id, now)
            return True
        return self.storage.store_match(row, canonical_json(match.to_json()), match.moves, now)

    def _idle_text(self) -> str:
        minutes, seconds = divmod(int(self.idle_seconds), 60)
        if seconds:
            return f"{int(self.idle_seconds)} seconds"
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
