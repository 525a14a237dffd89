"""Token buckets kept in the database, so that every worker and every host on one database
shares them: the rate limits hold for the whole arena, not per process.

The request rates per client address and per session token, session ``new`` and player
registrations per address all take from these buckets (``--rate-per-address``,
``--rate-per-session``, ``--rate-new-per-address``, ``--rate-register``). A process
leases a few tokens at a time (``lease``: a twentieth of the burst, at least one) with one
atomic statement (``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` the refilled bucket holds
a token ``RETURNING`` what it granted), on PostgreSQL and SQLite alike, and spends them
from memory: a busy client asks the database once every ``lease`` requests, and two hosts
leasing at once never both get the last token. Tokens leased by one host and not spent
there are lost to the client, so a client spread over hosts gets at most the rate, never
more. A refusal is remembered until the bucket holds a token again (no other host can add
one), so a refused flood does not ask the database at every request.
Time is the hosts' wall clock (keep them in step, as NTP does).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, case, delete, literal, select
from sqlalchemy.dialects import postgresql, sqlite

from playbench.server.guards import Rate
from playbench.server.storage import RATE_KEY_CHARS, Storage, rate_buckets

#: a lease is this share of the burst (at least one token)
LEASE_SHARE = 20
#: keys remembered per process; the least recently used go first
MAX_KEYS = 100_000

DIALECTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def lease_of(rate: Rate) -> float:
    """Tokens a process leases at once for ``rate``: a twentieth of its burst, at least 1."""
    return float(max(1, int(rate.burst // LEASE_SHARE)))


class SharedBuckets:
    """Token buckets by key in the database (``kind`` prefixes the keys), leased out to
    this process ``lease`` tokens at a time. Thread-safe."""

    def __init__(
        self,
        storage: Storage,
        kind: str,
        rate: Rate,
        clock: Callable[[], float] = time.time,
        lease: float | None = None,
    ) -> None:
        dialect = storage.engine.dialect.name
        if dialect not in DIALECTS:
            raise ValueError(f"shared rate limits need PostgreSQL or SQLite, not {dialect}")
        self.storage = storage
        self.kind = kind
        self.rate = rate
        self.clock = clock
        self.lease = min(lease_of(rate) if lease is None else max(1.0, lease), rate.burst)
        self._insert = DIALECTS[dialect]
        #: per key: tokens leased and not spent, and until when the database refused
        self._held: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _key(self, key: str) -> str:
        return f"{self.kind}:{key}"[:RATE_KEY_CHARS]

    def take_here(self, key: str) -> float | None:
        """Take a token from this process's lease without asking the database: 0.0 when
        there was one, the seconds to wait when the database refused a moment ago, None
        when only the database can say (then call :meth:`take`)."""
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return None
            if held[0] >= 1:
                held[0] -= 1
                self._held.move_to_end(key)
                return 0.0
            wait = held[1] - self.clock()
        return wait if wait > 0 else None

    def take(self, key: str) -> float:
        """Take one token for ``key`` (leasing more from the database when this process
        has none): 0.0 when there was one, else the seconds until there is (nothing is
        taken then). Blocking: it may ask the database."""
        wait = self.take_here(key)
        if wait is not None:
            return wait
        granted, wait = self._lease(key)
        with self._lock:
            held = self._held.pop(key, [0.0, 0.0])
            held[0] += granted
            if held[0] >= 1:
                held[0] -= 1
                held[1] = wait = 0.0
            else:
                held[1] = self.clock() + wait
            self._held[key] = held
            if len(self._held) > MAX_KEYS:
                self._held.popitem(last=False)
        return wait

    def _refilled(self, now: float) -> Any:
        """The bucket's tokens at ``now``: what it held plus what flowed in, at most full
        (a clock behind the last take adds nothing)."""
        table = rate_buckets
        elapsed = case((literal(now) > table.c.at, literal(now) - table.c.at), else_=0.0)
        flowed = table.c.tokens + elapsed * self.rate.per_second
        return case((flowed > self.rate.burst, literal(self.rate.burst)), else_=flowed)

    def _lease(self, key: str) -> tuple[float, float]:
        """One statement: take up to a lease of tokens for ``key``. The tokens granted
        (0 or at least 1), and when none, the seconds until there is one."""
        now = self.clock()
        refilled = self._refilled(now)
        grant = case((refilled >= self.lease, literal(self.lease)), else_=refilled)
        stored = self._key(key)
        statement = (
            self._insert(rate_buckets)
            .values(key=stored, tokens=self.rate.burst - self.lease, at=now, granted=self.lease)
            .on_conflict_do_update(
                index_elements=[rate_buckets.c.key],
                set_={"tokens": refilled - grant, "at": now, "granted": grant},
                where=refilled >= 1,
            )
            .returning(rate_buckets.c.granted)
        )
        left_now = select(refilled).where(rate_buckets.c.key == stored)

        def leasing(conn: Connection) -> tuple[float, float]:
            granted = conn.execute(statement).scalar()
            if granted is not None:
                return float(granted), 0.0
            left = float(conn.execute(left_now).scalar_one())
            return 0.0, max(0.0, (1 - left) / self.rate.per_second)

        return self.storage.write(leasing)

    def prune(self, now: float | None = None) -> int:
        """Forget the buckets that are full again (a full bucket is what a new key gets)."""
        now = self.clock() if now is None else now
        full_after = self.rate.burst / self.rate.per_second
        prefix = f"{self.kind}:"
        stale = delete(rate_buckets).where(
            rate_buckets.c.key.startswith(prefix, autoescape=True),
            rate_buckets.c.at < now - full_after,
        )
        return self.storage.write(lambda conn: conn.execute(stale).rowcount)
