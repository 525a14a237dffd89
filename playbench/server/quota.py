"""Token buckets kept in the database, so that every worker and every host on one database
shares them: the limits that must hold for the whole arena, not per process.

Today that is session ``new`` per client address (``--rate-new-per-address``): a new
session needs no agent check and stores a game, so its rate bounds how fast one address
can grow the database. A take is one atomic statement (``INSERT ... ON CONFLICT DO
UPDATE ... WHERE`` the refilled bucket holds a token ``RETURNING`` what is left), on
PostgreSQL and SQLite alike: two hosts taking at once never both get the last token.
Time is the hosts' wall clock (keep them in step, as NTP does).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import (
    Column,
    Engine,
    Float,
    MetaData,
    String,
    Table,
    case,
    delete,
    literal,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite

from playbench.server.guards import Rate

KEY_CHARS = 80

metadata = MetaData()

rate_buckets = Table(
    "rate_buckets",
    metadata,
    Column("key", String(KEY_CHARS), primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("at", Float, nullable=False),
)

DIALECTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


class SharedBuckets:
    """Token buckets by key in the database; ``kind`` prefixes the keys."""

    def __init__(
        self, engine: Engine, kind: str, rate: Rate, clock: Callable[[], float] = time.time
    ) -> None:
        if engine.dialect.name not in DIALECTS:
            raise ValueError(
                f"shared rate limits need PostgreSQL or SQLite, not {engine.dialect.name}"
            )
        self.engine = engine
        self.kind = kind
        self.rate = rate
        self.clock = clock
        metadata.create_all(engine)

    def _key(self, key: str) -> str:
        return f"{self.kind}:{key}"[:KEY_CHARS]

    def _refilled(self, now: float) -> object:
        """The bucket's tokens at ``now``: what it held plus what flowed in, at most full
        (a clock behind the last take adds nothing)."""
        table = rate_buckets
        elapsed = case((literal(now) > table.c.at, literal(now) - table.c.at), else_=0.0)
        flowed = table.c.tokens + elapsed * self.rate.per_second
        return case((flowed > self.rate.burst, literal(self.rate.burst)), else_=flowed)

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0 when there was one, else the seconds until
        there is (nothing is taken then)."""
        now = self.clock()
        refilled = self._refilled(now)
        statement = DIALECTS[self.engine.dialect.name](rate_buckets).values(
            key=self._key(key), tokens=self.rate.burst - 1, at=now
        )
        statement = statement.on_conflict_do_update(
            index_elements=[rate_buckets.c.key],
            set_={"tokens": refilled - 1, "at": now},
            where=refilled >= 1,
        ).returning(rate_buckets.c.tokens)
        with self.engine.begin() as conn:
            if conn.execute(statement).first() is not None:
                return 0.0
            left = conn.execute(
                select(refilled).where(rate_buckets.c.key == self._key(key))
            ).scalar_one()
        return max(0.0, (1 - float(left)) / self.rate.per_second)

    def prune(self, now: float | None = None) -> int:
        """Forget the buckets that are full again (a full bucket is what a new key gets)."""
        now = self.clock() if now is None else now
        full_after = self.rate.burst / self.rate.per_second
        prefix = f"{self.kind}:"
        with self.engine.begin() as conn:
            done = conn.execute(
                delete(rate_buckets).where(
                    rate_buckets.c.key.startswith(prefix, autoescape=True),
                    rate_buckets.c.at < now - full_after,
                )
            )
        return done.rowcount
