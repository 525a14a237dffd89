"""Group commit: one thread applies the write transactions that arrive while it commits, in
one transaction, and syncs them to disk together."""

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
from playbench.server.store.prepared import driver_cursor
from playbench.server.store.schema import MAX_GROUP, T, make_writer_engine

#: who waits for a write: a thread (its future) or a coroutine (its event loop's future)
Waiter = Future | asyncio.Future
#: a write's waiter with its value, or with its error
Outcome = tuple[Waiter, Any, BaseException | None]

SAVEPOINT = "SAVEPOINT each_write"
ROLLBACK_TO = "ROLLBACK TO each_write"
RELEASE = "RELEASE each_write"


class GroupCommit:
    """Group commit: one thread applies the write transactions that arrived while the last
    commit was syncing, in one transaction, and commits them at once. A write that fails
    is rolled back alone and its caller hears the error (the batch runs again, each write
    in its own savepoint). Each caller returns only after the commit that holds its work,
    so nothing acknowledged is lost; the sync (SQLite's ``synchronous=FULL``, a database
    server's WAL flush) is paid once per batch instead of once per write, and on SQLite,
    which has one writer at a time, no two writes of this process wait for each other's
    lock."""

    def __init__(self, url: str) -> None:
        self.engine = make_writer_engine(url)
        self._queue: queue.SimpleQueue[tuple[Callable[[Connection], Any], Waiter] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, work: Callable[[Connection], T]) -> T:
        """Apply ``work`` in the next commit; its value once that commit is durable."""
        return self._submit(work).result()

    async def run_async(self, work: Callable[[Connection], T]) -> T:
        """:meth:`run` for a coroutine: the event loop goes on while the commit syncs, and
        hears of a whole batch at once (one wake-up a commit, not one a write)."""
        waiter: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._submit(work, waiter)
        return await waiter

    def _submit(self, work: Callable[[Connection], Any], waiter: Waiter | None = None) -> Waiter:
        """Queue ``work`` for the next commit, heard of by ``waiter`` (default: a new
        thread's future), which is returned. The writer thread starts on first use, and
        again after :meth:`close` (an app that is started twice, as the tests do, writes
        on)."""
        waiter = Future() if waiter is None else waiter
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="group-commit", daemon=True
                )
                self._thread.start()
            self._queue.put((work, waiter))
        return waiter

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

    def _commit(self, batch: list[tuple[Callable[[Connection], Any], Waiter]]) -> None:
        COMMIT_BATCH.observe(len(batch))
        try:
            try:
                results = self._apply(batch, isolated=False)
            except Exception:
                if len(batch) == 1:
                    raise
                # one write failed and took the others' back with it: again, each alone
                results = self._apply(batch, isolated=True)
        except Exception as error:
            results = [(waiter, None, error) for _work, waiter in batch]
        by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
        for outcome in results:
            waiter = outcome[0]
            if isinstance(waiter, asyncio.Future):
                by_loop.setdefault(waiter.get_loop(), []).append(outcome)
            else:
                _settle([outcome])
        for loop, outcomes in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, outcomes)
            except RuntimeError:  # that loop is closed: no one is waiting any more
                continue

    def _apply(
        self, batch: list[tuple[Callable[[Connection], Any], Waiter]], isolated: bool
    ) -> list[Outcome]:
        """Run the batch's writes in one transaction and commit it. Not ``isolated``: a
        write that fails raises, and nothing is kept (the common case pays no savepoint:
        a round trip each way to a database server). ``isolated``: each write in a
        savepoint of its own, by its SQL on the driver's cursor, and one that fails is
        rolled back alone, its error its outcome."""
        results: list[Outcome] = []
        with self.engine.begin() as conn:
            cursor = driver_cursor(conn) if isolated else None
            for work, waiter in batch:
                if cursor is None:
                    results.append((waiter, work(conn), None))
                    continue
                cursor.execute(SAVEPOINT)
                try:
                    value = work(conn)
                except Exception as error:
                    cursor.execute(ROLLBACK_TO)
                    results.append((waiter, None, error))
                else:
                    results.append((waiter, value, None))
                cursor.execute(RELEASE)
        return results


def _settle(outcomes: list[Outcome]) -> None:
    """Give each waiter its value or its error (a waiter given up on is left alone)."""
    for waiter, value, error in outcomes:
        if waiter.done():
            continue
        if error is None:
            waiter.set_result(value)
        else:
            waiter.set_exception(error)
