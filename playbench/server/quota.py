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

A lease is written without waiting for the disk (a bucket lost in a crash comes back
full, which costs nothing): on PostgreSQL in the arena's database with
``synchronous_commit`` off for that transaction, on SQLite in a file of its own beside
the database (``playbench.db-limits``, WAL, ``synchronous=OFF``), so the sessions' writer
never waits for a lease nor a lease for the sessions' sync. Every process and host on the
same database opens the same file or database.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    Float,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    literal,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url

from playbench.server.guards import Rate
from playbench.server.store.schema import (
    RATE_KEY_CHARS,
    SQLITE_BUSY_TIMEOUT_MS,
    create_tables,
    rate_buckets,
)

T = TypeVar("T")

#: a lease is this share of the burst (at least one token)
LEASE_SHARE = 20
#: keys remembered per process; the least recently used go first
MAX_KEYS = 100_000

DIALECTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
#: a PostgreSQL transaction that commits without waiting for its WAL to reach the disk
NO_SYNC = "SET LOCAL synchronous_commit TO OFF"
#: on SQLite, the buckets' file is the database's name and this
LIMITS_SUFFIX = "-limits"


def _limits_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def limits_engine(url: str) -> Engine:
    """The engine the buckets of the database ``url`` are kept with (its table made):
    PostgreSQL's own database, or SQLite's file beside the database."""
    parsed = make_url(url)
    dialect = parsed.get_backend_name()
    if dialect not in DIALECTS:
        raise ValueError(f"shared rate limits need PostgreSQL or SQLite, not {dialect}")
    if dialect == "sqlite" and parsed.database and parsed.database != ":memory:":
        parsed = parsed.set(database=parsed.database + LIMITS_SUFFIX)
    engine = create_engine(parsed)
    if dialect == "sqlite":
        event.listen(engine, "connect", _limits_pragmas)
    create_tables(engine, [rate_buckets])
    return engine


class Compiled:
    """A statement compiled once for ``engine``'s driver: its SQL, and its parameters in
    the driver's form for given values."""

    def __init__(self, statement: Any, engine: Engine) -> None:
        self.compiled = statement.compile(dialect=engine.dialect)
        self.sql = str(self.compiled)
        self.order = self.compiled.positiontup

    def params(self, values: dict[str, Any]) -> Any:
        every = self.compiled.construct_params(values)
        return every if not self.order else [every[name] for name in self.order]


def lease_of(rate: Rate) -> float:
    """Tokens a process leases at once for ``rate``: a twentieth of its burst, at least 1."""
    return float(max(1, int(rate.burst // LEASE_SHARE)))


class SharedBuckets:
    """Token buckets by key in the database (``kind`` prefixes the keys), leased out to
    this process ``lease`` tokens at a time. Thread-safe."""

    def __init__(
        self,
        engine: Engine,
        kind: str,
        rate: Rate,
        clock: Callable[[], float] = time.time,
        lease: float | None = None,
    ) -> None:
        """``engine``: one :func:`limits_engine` made (every kind may share it)."""
        dialect = engine.dialect.name
        self.engine = engine
        self.kind = kind
        self.rate = rate
        self.clock = clock
        self.lease = min(lease_of(rate) if lease is None else max(1.0, lease), rate.burst)
        self._insert = DIALECTS[dialect]
        self._lease_statements = self._statements()
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

    def _statements(self) -> tuple[Compiled, Compiled]:
        """Made once: the statement that takes up to a lease of tokens for ``:key`` at
        ``:now`` (it returns what it granted, or no row), and the one that reads what the
        bucket holds. The bucket holds what it held plus what flowed in since, at most
        full (a clock behind the last take adds nothing)."""
        least, greatest = (
            (func.least, func.greatest)
            if self.engine.dialect.name == "postgresql"
            else (func.min, func.max)
        )
        table = rate_buckets
        now = bindparam("now", type_=Float)
        flowed = greatest(literal(0.0), now - table.c.at) * self.rate.per_second
        refilled = least(literal(float(self.rate.burst)), table.c.tokens + flowed)
        grant = least(literal(self.lease), refilled)
        lease = (
            self._insert(table)
            .values(
                key=bindparam("key"),
                tokens=self.rate.burst - self.lease,
                at=now,
                granted=self.lease,
            )
            .on_conflict_do_update(
                index_elements=[table.c.key],
                set_={"tokens": refilled - grant, "at": now, "granted": grant},
                where=refilled >= 1,
            )
            .returning(table.c.granted)
        )
        left = select(refilled).where(table.c.key == bindparam("key"))
        return Compiled(lease, self.engine), Compiled(left, self.engine)

    def _lease(self, key: str) -> tuple[float, float]:
        """One statement: take up to a lease of tokens for ``key``. The tokens granted
        (0 or at least 1), and when none, the seconds until there is one.

        It runs on the driver's own connection, with the statements compiled once: the
        lease is on the path of the requests it limits, and the SQL toolkit's work per
        execution cost several times the database's."""
        values = {"key": self._key(key), "now": self.clock()}
        lease, left_now = self._lease_statements
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            if self.engine.dialect.name == "postgresql":
                cursor.execute(NO_SYNC)
            cursor.execute(lease.sql, lease.params(values))
            granted = cursor.fetchone()
            left = None
            if granted is None:
                cursor.execute(left_now.sql, left_now.params(values))
                left = float(cursor.fetchone()[0])
            cursor.close()
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
        finally:
            raw.close()
        if left is None:
            return float(granted[0]), 0.0
        return 0.0, max(0.0, (1 - left) / self.rate.per_second)

    def _write(self, work: Callable[[Connection], T]) -> T:
        """``work`` in a transaction committed without waiting for the disk."""
        with self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":
                conn.exec_driver_sql(NO_SYNC)
            return work(conn)

    def prune(self, now: float | None = None) -> int:
        """Forget the buckets that are full again (a full bucket is what a new key gets)."""
        now = self.clock() if now is None else now
        full_after = self.rate.burst / self.rate.per_second
        prefix = f"{self.kind}:"
        stale = delete(rate_buckets).where(
            rate_buckets.c.key.startswith(prefix, autoescape=True),
            rate_buckets.c.at < now - full_after,
        )
        return self._write(lambda conn: conn.execute(stale).rowcount)
