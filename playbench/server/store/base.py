"""The engine and the write path the repositories share."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Connection,
)

from playbench.server.store.commit import GroupCommit
from playbench.server.store.schema import T, create_tables, make_engine


class StoreBase:
    """The engine and the write path every repository shares: one short transaction a
    call, a write acknowledged only once committed (on SQLite through the group commit)."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        create_tables(self.engine)
        #: SQLite has one writer at a time and syncs every commit: writes go through one
        #: thread that commits together what arrived meanwhile (PostgreSQL writes directly)
        self._group = GroupCommit(url) if self.engine.dialect.name == "sqlite" else None

    def close(self) -> None:
        if self._group is not None:
            self._group.close()
        self.engine.dispose()

    def write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a write transaction; return once it is committed."""
        if self._group is not None:
            return self._group.run(work)
        with self.engine.begin() as conn:
            return work(conn)
