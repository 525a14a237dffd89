"""The match table: owners, caps and idle expiry, on a clock the test moves."""

from __future__ import annotations

import threading

import pytest

from playbench.core.errors import OptionsError, UnknownGameError
from playbench.core.match import Match
from playbench.mcp.matches import MatchLimitError, MatchTable, NoMatchError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def touch(table: MatchTable, owner: str | None, match_id: str) -> None:
    with table.using(owner, match_id):
        pass


def test_calls_on_one_match_take_turns() -> None:
    table = MatchTable()
    match_id, match = table.start(None, "chimestep", 3, None)
    with table.using(None, match_id):
        match.command("start")

    def tick() -> None:
        for _ in range(50):
            with table.using(None, match_id) as same:
                same.command("tick")

    threads = [threading.Thread(target=tick) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert match.moves == len(match.log) == 401
    assert Match.replay("chimestep", 3, None, match.log).fingerprint() == match.fingerprint()


def test_a_match_is_found_only_by_its_owner() -> None:
    table = MatchTable()
    match_id, match = table.start("session-a", "delvewick", 0, None)
    with table.using("session-a", match_id) as found:
        assert found is match
    for stranger in ("session-b", None):
        with (
            pytest.raises(NoMatchError, match=f"no live match {match_id!r} in this session"),
            table.using(stranger, match_id),
        ):
            pass


def test_ids_are_32_hex_digits_and_distinct() -> None:
    table = MatchTable()
    ids = {table.start(None, "gem-swap", 1, None)[0] for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_a_seedless_match_draws_its_seed() -> None:
    table = MatchTable()
    seeds = {table.start(None, "gem-swap", None, None)[1].seed for _ in range(5)}
    assert len(seeds) == 5


def test_per_session_cap() -> None:
    table = MatchTable(per_owner=2)
    table.start("a", "delvewick", 0, None)
    table.start("a", "delvewick", 0, None)
    with pytest.raises(MatchLimitError) as caught:
        table.start("a", "delvewick", 0, None)
    assert str(caught.value) == (
        "this session already holds 2 matches, the most it may; "
        "finish with one or leave it idle for 30 minutes to free it"
    )
    table.start("b", "delvewick", 0, None)
    assert len(table) == 3


def test_total_cap_covers_sessionless_callers() -> None:
    table = MatchTable(per_owner=1, total=3)
    for _ in range(3):
        table.start(None, "chimestep", 0, None)
    with pytest.raises(MatchLimitError, match="the server holds 3 matches, the most it may"):
        table.start("a", "chimestep", 0, None)


def test_idle_matches_expire_and_use_keeps_them() -> None:
    clock = Clock()
    table = MatchTable(idle_seconds=60, clock=clock)
    kept, _ = table.start("a", "delvewick", 0, None)
    dropped, _ = table.start("a", "delvewick", 0, None)
    clock.now += 50
    touch(table, "a", kept)
    clock.now += 50
    touch(table, "a", kept)
    with pytest.raises(NoMatchError, match="matches expire after 1 minute idle"):
        touch(table, "a", dropped)
    assert len(table) == 1


def test_an_expired_match_frees_its_place() -> None:
    clock = Clock()
    table = MatchTable(per_owner=1, idle_seconds=90, clock=clock)
    table.start("a", "delvewick", 0, None)
    clock.now += 91
    table.start("a", "delvewick", 0, None)
    assert len(table) == 1


def test_game_errors_pass_through_and_take_no_place() -> None:
    table = MatchTable(per_owner=1)
    with pytest.raises(UnknownGameError):
        table.start("a", "chess", 0, None)
    with pytest.raises(OptionsError, match="startLevel must be an integer from 1 to 8"):
        table.start("a", "delvewick", 0, {"startLevel": 0})
    assert len(table) == 0
