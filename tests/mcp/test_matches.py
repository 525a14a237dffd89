"""The match table: owners, caps and idle expiry, on a clock the test moves; two tables on
one database stand for two hosts. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading

import pytest

from playbench.core.errors import OptionsError, UnknownGameError
from playbench.core.match import Match
from playbench.mcp.matches import (
    ATTEMPTS,
    TOUCH_SECONDS,
    BusyMatchError,
    MatchLimitError,
    MatchTable,
    NoMatchError,
)
from playbench.server.store import Storage

pytestmark = pytest.mark.databases("sqlite", "postgresql")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def touch(table: MatchTable, match_id: str) -> None:
    table.run(match_id, lambda _match: None)


def test_calls_on_one_match_take_turns(storage: Storage) -> None:
    table = MatchTable(storage)
    match_id, _ = table.start(None, "chimestep", 3, None)
    table.run(match_id, lambda match: match.command("start"))

    def tick() -> None:
        for _ in range(50):
            table.run(match_id, lambda match: match.command("tick"))

    threads = [threading.Thread(target=tick) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alone = Match.start("chimestep", 3)
    for command in ["start"] + ["tick"] * 400:
        alone.command(command)
    played = table.run(match_id, lambda match: (match.moves, match.fingerprint()))
    assert played == (401, alone.fingerprint())


def test_a_match_id_is_all_it_takes(storage: Storage) -> None:
    table = MatchTable(storage)
    match_id, match = table.start("session-a", "delvewick", 0, None, "10.0.0.1")
    assert table.run(match_id, Match.fingerprint) == match.fingerprint()
    with pytest.raises(NoMatchError) as caught:
        touch(table, "feed")
    assert str(caught.value) == (
        "no live match 'feed': use the matchId new_game returned (a match left idle for "
        "30 minutes is dropped); start one with new_game"
    )


def test_a_match_made_on_one_host_is_played_on_another(storage: Storage) -> None:
    here, there = MatchTable(storage), MatchTable(storage)
    match_id, _ = here.start("session-a", "gem-swap", 5, None, "10.0.0.1")
    command = there.run(match_id, lambda match: match.legal_commands()[0])
    assert there.run(match_id, lambda match: match.command(command).ok)
    alone = Match.start("gem-swap", 5)
    alone.command(command)
    assert here.run(match_id, lambda match: (match.moves, match.fingerprint())) == (
        1,
        alone.fingerprint(),
    )


def test_a_call_that_lost_a_race_with_another_host_runs_again(storage: Storage) -> None:
    here, there = MatchTable(storage), MatchTable(storage)
    match_id, _ = here.start(None, "chimestep", 2, None)
    runs: list[int] = []

    def start_meanwhile(match: Match) -> int:
        runs.append(match.moves)
        if len(runs) == 1:  # another host moves the match on while this call runs
            there.run(match_id, lambda other: other.command("start"))
        match.command("tick" if match.moves else "start")
        return match.moves

    assert here.run(match_id, start_meanwhile) == 2
    assert runs == [0, 1]


def test_a_call_that_always_loses_says_so(storage: Storage) -> None:
    here, there = MatchTable(storage), MatchTable(storage)
    match_id, _ = here.start(None, "chimestep", 2, None)
    there.run(match_id, lambda other: other.command("start"))

    def always_overtaken(match: Match) -> None:
        there.run(match_id, lambda other: other.command("tick"))
        match.command("tick")

    with pytest.raises(BusyMatchError) as caught:
        here.run(match_id, always_overtaken)
    assert str(caught.value) == (
        f"match {match_id!r} was changed by other calls {ATTEMPTS} times while this one "
        "ran; send it again"
    )
    assert there.run(match_id, lambda match: match.moves) == 1 + ATTEMPTS


def test_ids_are_32_hex_digits_and_distinct(storage: Storage) -> None:
    table = MatchTable(storage)
    ids = {table.start(None, "gem-swap", 1, None)[0] for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_a_seedless_match_draws_its_seed(storage: Storage) -> None:
    table = MatchTable(storage)
    seeds = {table.start(None, "gem-swap", None, None)[1].seed for _ in range(5)}
    assert len(seeds) == 5


def test_per_session_cap(storage: Storage) -> None:
    table = MatchTable(storage, per_owner=2)
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


def test_per_address_cap_across_sessions(storage: Storage) -> None:
    table = MatchTable(storage, per_owner=2, per_client=3)
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


def test_the_table_tells_its_size(storage: Storage) -> None:
    clock = Clock()
    table = MatchTable(storage, idle_seconds=60, clock=clock)
    table.start(None, "delvewick", 0, None)
    table.start(None, "delvewick", 0, None)
    assert len(table) == 2
    clock.now += 61
    assert len(table) == 0


def test_caps_count_the_matches_of_every_host(storage: Storage) -> None:
    here, there = (MatchTable(storage, per_owner=2, per_client=3, total=5) for _ in "ab")
    here.start("a", "delvewick", 0, None, "10.0.0.1")
    there.start("b", "delvewick", 0, None, "10.0.0.1")
    here.start("b", "delvewick", 0, None, "10.0.0.1")
    with pytest.raises(MatchLimitError, match="this session already holds 2 matches"):
        there.start("b", "delvewick", 0, None, "10.0.0.2")
    with pytest.raises(MatchLimitError, match="this address already holds 3 matches"):
        there.start("c", "delvewick", 0, None, "10.0.0.1")
    there.start("c", "delvewick", 0, None, "10.0.0.2")
    here.start(None, "delvewick", 0, None)
    with pytest.raises(MatchLimitError, match="the server holds 5 matches"):
        there.start(None, "delvewick", 0, None)
    assert (here.held_by("10.0.0.1"), there.held_by("10.0.0.2"), len(there)) == (3, 1, 5)


def test_total_cap_covers_sessionless_callers(storage: Storage) -> None:
    table = MatchTable(storage, per_owner=1, total=3)
    for _ in range(3):
        table.start(None, "chimestep", 0, None)
    with pytest.raises(MatchLimitError, match="the server holds 3 matches, the most it may"):
        table.start("a", "chimestep", 0, None)


def test_idle_matches_expire_and_use_keeps_them(storage: Storage) -> None:
    clock = Clock()
    table = MatchTable(storage, idle_seconds=60, clock=clock)
    kept, _ = table.start("a", "delvewick", 0, None)
    dropped, _ = table.start("a", "delvewick", 0, None)
    clock.now += 50
    touch(table, kept)
    clock.now += 50
    touch(table, kept)
    with pytest.raises(NoMatchError, match="a match left idle for 1 minute is dropped"):
        touch(table, dropped)
    assert len(table) == 1


def test_an_expired_match_frees_its_place(storage: Storage) -> None:
    clock = Clock()
    table = MatchTable(storage, per_owner=1, idle_seconds=90, clock=clock)
    table.start("a", "delvewick", 0, None)
    clock.now += 91
    table.start("a", "delvewick", 0, None)
    assert len(table) == 1


def test_game_errors_pass_through_and_take_no_place(storage: Storage) -> None:
    table = MatchTable(storage, per_owner=1)
    with pytest.raises(UnknownGameError):
        table.start("a", "chess", 0, None)
    with pytest.raises(OptionsError, match="startLevel must be an integer from 1 to 8"):
        table.start("a", "delvewick", 0, {"startLevel": 0})
    assert len(table) == 0


def test_an_address_a_proxy_named_is_stored_at_most_64_characters(storage: Storage) -> None:
    table = MatchTable(storage, per_client=1)
    table.start(None, "delvewick", 0, None, "x" * 200)
    assert table.held_by("x" * 64) == 1
    with pytest.raises(MatchLimitError, match="this address already holds 1 matches"):
        table.start(None, "delvewick", 0, None, "x" * 100)


def test_a_full_table_makes_room_for_a_smaller_holder(storage: Storage) -> None:
    """Addresses that filled the table, each under its own cap, do not lock a new client
    out: its match takes the place of the least recently used one of the largest holders;
    a table shared evenly still refuses."""
    clock = Clock()
    table = MatchTable(storage, per_client=4, total=8, clock=clock)
    made: dict[str, list[str]] = {}
    for address in ("10.0.0.1", "10.0.0.2"):
        for _ in range(4):
            clock.now += TOUCH_SECONDS
            match_id, _ = table.start(None, "delvewick", 0, None, address)
            made.setdefault(address, []).append(match_id)
    clock.now += TOUCH_SECONDS
    touch(table, made["10.0.0.1"][0])  # now the most recently used of all
    clock.now += TOUCH_SECONDS
    newcomer, _ = table.start(None, "delvewick", 0, None, "10.0.0.3")
    with pytest.raises(NoMatchError):
        touch(table, made["10.0.0.1"][1])  # the least recently used of the largest holders
    for kept in (made["10.0.0.1"][0], *made["10.0.0.2"], newcomer):
        touch(table, kept)
    assert (len(table), table.held_by("10.0.0.3")) == (8, 1)
    for _ in range(2):
        table.start(None, "delvewick", 0, None, "10.0.0.3")
    assert [table.held_by(f"10.0.0.{n}") for n in (1, 2, 3)] == [2, 3, 3]
    with pytest.raises(MatchLimitError, match="the server holds 8 matches"):
        table.start(None, "delvewick", 0, None, "10.0.0.2")  # as many as the largest
