"""The engine and the write path the repositories share."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import ParamSpec

from anyio import to_thread
from sqlalchemy import (
    Connection,
    delete,
    insert,
)

from playbench.server.store.commit import GroupCommit
from playbench.server.store.schema import (
    ADDRESS_CHARS,
    T,
    create_tables,
    make_engine,
    ready_checks,
)

P = ParamSpec("P")


class StoreBase:
    """The engine and the write path every repository shares: one short transaction a
    call, a write acknowledged only once committed (on SQLite through the group commit)."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        create_tables(self.engine)
        #: every commit waits for its sync to disk (and SQLite has one writer at a time):
        #: writes go through one thread that commits together what arrived meanwhile
        self._group = GroupCommit(url)
        #: a read of a local SQLite file in WAL mode never waits for the writer, and costs
        #: less than a hop to a thread; a database server's read is a round trip
        self._reads_inline = self.engine.dialect.name == "sqlite"

    def close(self) -> None:
        self._group.close()
        self.engine.dispose()

    def write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a write transaction; return once it is committed."""
        return self._group.run(work)

    async def write_async(self, work: Callable[[Connection], T]) -> T:
        """:meth:`write` for a coroutine: the event loop goes on until the commit is
        durable."""
        return await self._group.run_async(work)

    def check_writes(self) -> None:
        """Raise unless the database commits a write: a row of this process stored and
        deleted in one transaction, through the same write path as every other write."""
        worker = f"{socket.gethostname()}:{os.getpid()}"[:ADDRESS_CHARS]

        def work(conn: Connection) -> None:
            conn.execute(insert(ready_checks).values(worker=worker, checked_at=time.time()))
            conn.execute(delete(ready_checks).where(ready_checks.c.worker == worker))

        self.write(work)

    async def read_async(self, read: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``read(*args)`` for a coroutine: on SQLite in the event loop itself, on a
        database server in a worker thread."""
        if self._reads_inline:
            return read(*args, **kwargs)
        return await to_thread.run_sync(lambda: read(*args, **kwargs))
