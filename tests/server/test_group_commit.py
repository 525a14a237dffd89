"""Group commit (SQLite and PostgreSQL): writes from many threads and coroutines land, each
answered after its commit, and a write that fails is rolled back alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from playbench.server.store import Storage
from playbench.server.store.commit import GroupCommit
from playbench.server.store.schema import spent_puzzles

THREADS = 16
EACH = 5


pytestmark = pytest.mark.databases("sqlite", "postgresql")


@pytest.fixture
def url(tmp_path, database) -> str:
    return database or f"sqlite:///{tmp_path / 'group.db'}"


def _storage(url: str) -> Storage:
    return Storage(url)


def _hashes(storage: Storage) -> set[str]:
    with storage.engine.connect() as conn:
        return set(conn.execute(select(spent_puzzles.c.token_hash)).scalars())


@contextmanager
def holding_the_writer(group: GroupCommit) -> Iterator[None]:
    """The writer held inside a commit: every write queued meanwhile is one batch, applied
    once the block ends."""
    started, release = threading.Event(), threading.Event()

    def hold(conn) -> None:
        started.set()
        release.wait()

    held = group._submit(hold)
    started.wait()
    try:
        yield
    finally:
        release.set()
        held.result()


def spend(token: str, fail: bool = False, runs: list[str] | None = None):
    """A write that spends puzzle ``token`` (then raises, if ``fail``), noting each run in
    ``runs``; its value is the token."""

    def write(conn) -> str:
        if runs is not None:
            runs.append(token)
        conn.execute(insert(spent_puzzles).values(token_hash=token, expires_at=4e9))
        if fail:
            raise ValueError(token)
        return token

    return write


def test_writes_go_through_one_group_commit(url):
    storage = _storage(url)
    assert isinstance(storage._group, GroupCommit)
    storage.close()


def test_concurrent_writes_all_land_once_answered(url):
    storage = _storage(url)
    wanted = {f"t{thread}-{n}" for thread in range(THREADS) for n in range(EACH)}
    seen_after_answer: list[bool] = []

    def writer(thread: int) -> None:
        for n in range(EACH):
            assert storage.spend_puzzle(f"t{thread}-{n}", 4_000_000_000.0)
            seen_after_answer.append(not storage.spend_puzzle(f"t{thread}-{n}", 4e9))

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _hashes(storage) == wanted
    assert seen_after_answer == [True] * len(wanted)
    storage.close()
    reopened = _storage(url)
    assert _hashes(reopened) == wanted
    reopened.close()


def test_a_failing_write_is_rolled_back_alone(url):
    storage = _storage(url)
    group = storage._group
    row = {"token_hash": "same", "expires_at": 4_000_000_000.0}
    other = {**row, "token_hash": "other"}
    group.run(lambda conn: conn.execute(insert(spent_puzzles).values(row)))

    def half_then_fail(conn) -> None:
        conn.execute(insert(spent_puzzles).values({**row, "token_hash": "half"}))
        conn.execute(insert(spent_puzzles).values(row))  # the same key again: refused

    with pytest.raises(IntegrityError):
        group.run(half_then_fail)
    group.run(lambda conn: conn.execute(insert(spent_puzzles).values(other)))
    assert _hashes(storage) == {"same", "other"}
    storage.close()


def test_a_failing_write_inside_a_batch_takes_only_its_own_rows_back(url):
    storage = _storage(url)
    group = storage._group

    def half_then_fail(conn) -> None:
        spend("half")(conn)
        spend("before")(conn)  # written by the batch's first write: refused

    with holding_the_writer(group):
        works = (spend("before"), half_then_fail, spend("after"))
        futures = [group._submit(work) for work in works]
    assert futures[0].result() == "before" and futures[2].result() == "after"
    with pytest.raises(IntegrityError):
        futures[1].result()
    assert _hashes(storage) == {"before", "after"}
    storage.close()


def test_a_write_returns_its_value(url):
    storage = _storage(url)
    assert storage._group.run(lambda conn: conn.exec_driver_sql("SELECT 41 + 1").scalar()) == 42
    storage.close()


def test_writes_go_on_after_close(url):
    storage = _storage(url)
    assert storage.spend_puzzle("before", 4_000_000_000.0)
    storage.close()
    assert storage.spend_puzzle("after", 4_000_000_000.0)
    assert _hashes(storage) == {"before", "after"}
    storage.close()
    storage.close()


def test_coroutines_hear_of_their_writes_and_a_cancelled_one_stops_no_other(url):
    storage = _storage(url)
    group = storage._group

    async def main() -> list:
        with holding_the_writer(group):
            tasks = [
                asyncio.create_task(group.run_async(spend(token, fail=token == "refused")))
                for token in ("a", "gone", "refused", "b")
            ]
            await asyncio.sleep(0)  # each task has queued its write
            tasks[1].cancel()
        return await asyncio.gather(*tasks, return_exceptions=True)

    a, gone, refused, b = asyncio.run(main())
    assert (a, b) == ("a", "b")
    assert isinstance(gone, asyncio.CancelledError)
    assert isinstance(refused, ValueError)
    # a write whose caller gave up still lands: the cancel came after it was queued
    assert _hashes(storage) == {"a", "gone", "b"}
    storage.close()


def test_a_batch_runs_each_write_once_unless_one_fails(url):
    storage = _storage(url)
    group = storage._group
    runs: list[str] = []

    def batch(*works) -> list:
        with holding_the_writer(group):
            futures = [group._submit(work) for work in works]
        return [future.exception() for future in futures]

    assert batch(spend("a", runs=runs), spend("b", runs=runs)) == [None, None]
    assert runs == ["a", "b"]
    runs.clear()
    outcomes = batch(spend("c", runs=runs), spend("d", fail=True, runs=runs), spend("e", runs=runs))
    assert [type(outcome) for outcome in outcomes] == [type(None), ValueError, type(None)]
    assert runs == ["c", "d", "c", "d", "e"]  # together up to the failure, then each alone
    assert _hashes(storage) == {"a", "b", "c", "e"}
    storage.close()
