"""Group commit for SQLite: one thread applies the write transactions that arrive while it
commits, each in a savepoint of one transaction, and syncs them to disk together."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from sqlalchemy import (
    Connection,
)

from playbench.server.metrics import COMMIT_BATCH
from playbench.server.store.schema import MAX_GROUP, T, make_writer_engine

SAVEPOINT = "SAVEPOINT each_write"
ROLLBACK_TO = "ROLLBACK TO each_write"
RELEASE = "RELEASE each_write"


class GroupCommit:
    """Group commit for SQLite: one thread applies the write transactions, each in its own
    savepoint (a failing one is rolled back alone and its caller hears the error), and
    commits all that arrived while the last commit was syncing, at once. Each caller
    returns only after the commit that holds its work, so nothing acknowledged is lost;
    the sync (``synchronous=FULL``) is paid once per batch instead of once per write."""

    def __init__(self, url: str) -> None:
        self.engine = make_writer_engine(url)
        self._queue: queue.SimpleQueue[tuple[Callable[[Connection], Any], Future] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, work: Callable[[Connection], T]) -> T:
        """Apply ``work`` in the next commit; its value once that commit is durable."""
        return self._submit(work).result()

    async def run_async(self, work: Callable[[Connection], T]) -> T:
        """:meth:`run` for a coroutine: the event loop goes on while the commit syncs."""
        return await asyncio.wrap_future(self._submit(work))

    def _submit(self, work: Callable[[Connection], T]) -> Future:
        """Queue ``work`` for the next commit. The writer thread starts on first use, and
        again after :meth:`close` (an app that is started twice, as the tests do, writes
        on)."""
        done: Future = Future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="group-commit", daemon=True
                )
                self._thread.start()
            self._queue.put((work, done))
        return done

    def close(self) -> None:
        """Commit what is queued, then stop the writer thread."""
        with self._lock:
            if self._thread is not None:
                self._queue.put(None)
                self._thread.join()
                self._thread = None
            self.engine.dispose()

    def _serve(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < MAX_GROUP:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[tuple[Callable[[Connection], Any], Future]]) -> None:
        COMMIT_BATCH.observe(len(batch))
        results: list[tuple[Future, Any, BaseException | None]] = []
        try:
            with self.engine.begin() as conn:
                for work, done in batch:
                    # a savepoint by its SQL, not conn.begin_nested(): a quarter of its cost,
                    # paid once a write
                    conn.exec_driver_sql(SAVEPOINT)
                    try:
                        value = work(conn)
                    except Exception as error:
                        conn.exec_driver_sql(ROLLBACK_TO)
                        results.append((done, None, error))
                    else:
                        results.append((done, value, None))
                    conn.exec_driver_sql(RELEASE)
        except Exception as error:
            for _work, done in batch:
                done.set_exception(error)
            return
        for done, value, error in results:
            if error is None:
                done.set_result(value)
            else:
                done.set_exception(error)
