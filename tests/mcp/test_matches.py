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


def touch(table: MatchTable, match_id: str) -> None:
    with table.using(match_id):
        pass


def test_calls_on_one_match_take_turns() -> None:
    table = MatchTable()
    match_id, match = table.start(None, "chimestep", 3, None)
    with table.using(match_id):
        match.command("start")

    def tick() -> None:
        for _ in range(50):
            with table.using(match_id) as same:
                same.command("tick")

    threads = [threading.Thread(target=tick) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert match.moves == len(match.log) == 401
    assert Match.replay("chimestep", 3, None, match.log).fingerprint() == match.fingerprint()


def test_a_match_id_is_all_it_takes() -> None:
    table = MatchTable()
    match_id, match = table.start("session-a", "delvewick", 0, None, "10.0.0.1")
    with table.using(match_id) as found:
        assert found is match
    with pytest.raises(NoMatchError) as caught, table.using("feed"):
        pass
    assert str(caught.value) == (
        "no live match 'feed': use the matchId new_game returned (a match left idle for "
        "30 minutes is dropped); start one with new_game"
    )


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
        "leave one idle for 30 minutes to free it"
    )
    table.start("b", "delvewick", 0, None)
    assert len(table) == 3


def test_per_address_cap_across_sessions() -> None:
    table = MatchTable(per_owner=2, per_client=3)
    for session in ("a", "a", "b"):
        table.start(session, "delvewick", 0, None, "10.0.0.1")
    with pytest.raises(MatchLimitError) as caught:
        table.start("c", "delvewick", 0, None, "10.0.0.1")
    assert str(caught.value) == (
        "this address already holds 3 matches, the most it may; "
        "leave one idle for 30 minutes to free it"
    )
    table.start("d", "delvewick", 0, None, "10.0.0.2")
    assert (table.held_by("10.0.0.1"), table.held_by("10.0.0.2"), len(table)) == (3, 1, 4)


def test_the_table_tells_its_size() -> None:
    clock = Clock()
    sizes: list[int] = []
    table = MatchTable(idle_seconds=60, clock=clock, on_change=sizes.append)
    table.start(None, "delvewick", 0, None)
    table.start(None, "delvewick", 0, None)
    clock.now += 61
    assert len(table) == 0
    assert sizes == [1, 2, 0]


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
    touch(table, kept)
    clock.now += 50
    touch(table, kept)
    with pytest.raises(NoMatchError, match="a match left idle for 1 minute is dropped"):
        touch(table, dropped)
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
