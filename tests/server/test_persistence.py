"""Nothing is lost across a restart; concurrent acts on one session never both apply."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from playbench.core import canonical_json, get_game
from playbench.server import create_app, sessions
from playbench.server.guards import Rate
from playbench.server.store import StepRecord, Storage, VersionConflict
from tests.server.helpers import Player, answer_headers

pytestmark = pytest.mark.databases("sqlite", "postgresql")

THREADS = 6


def test_restart_keeps_sessions_logs_and_sealed_states(settings):
    with TestClient(create_app(settings)) as first:
        player = Player(first, "tally", seed=7)
        player.act("step 2", "step 1")
        sealed = first.get("/api/games/tally/init?seed=3").json()["state"]
        token, puzzle = player.token, player.last["agentCheck"]
    sqlite_file = (settings.data_dir / "playbench.db").exists()
    assert sqlite_file is (settings.database_url is None), "the given database is the one used"
    assert (settings.data_dir / "secret.key").exists()
    with TestClient(create_app(settings)) as second:
        headers = {"Authorization": f"Bearer {token}"}
        view = second.get("/games/tally/api/state", headers=headers).json()
        assert view["observation"]["pos"] == 3 and view["moves"] == 2
        reply = second.post(
            "/games/tally/api/act",
            json={"command": "step 1"},
            headers=answer_headers(puzzle, token),
        )
        assert reply.status_code == 200, "a puzzle issued before the restart still answers"
        assert reply.json()["observation"]["pos"] == 4
        step = {"state": sealed, "action": {"type": "step", "by": 1}}
        assert second.post("/api/games/tally/action", json=step).json()["ok"] is True
        services = second.app.state.services
        row = services.storage.session_by_token("tally", sessions.token_hash(token))
        log = services.storage.log(row.id)
        assert [entry.command for entry in log] == ["step 2", "step 1", "step 1"]
        assert (
            canonical_json(
                get_game("tally").to_json(sessions.replay(get_game("tally"), row, log).state)
            )
            == row.state
        )


def test_workers_starting_together_on_a_new_database_all_start(settings):
    settings.data_dir.mkdir(parents=True)
    barrier = threading.Barrier(THREADS)
    errors: list[Exception] = []

    def start():
        barrier.wait()
        try:
            Storage(settings.url).close()
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    storage = Storage(settings.url)
    assert storage.session_by_id("none") is None and storage.log("none") == []
    storage.close()


@pytest.mark.databases("sqlite")
def test_sqlite_runs_in_wal_mode_with_full_sync(client):
    with client.app.state.services.storage.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2


def test_a_stale_version_is_a_conflict_and_changes_nothing(client):
    player = Player(client, "tally")
    storage = client.app.state.services.storage
    row = storage.session_by_token("tally", sessions.token_hash(player.token))
    record = StepRecord(
        "step 1", {"type": "step", "by": 1}, True, True, True, 1, "", row.state, 1, False
    )
    assert asyncio.run(storage.record_step(row, row.version, record)) == row.version + 1
    with pytest.raises(VersionConflict):
        asyncio.run(storage.record_step(row, row.version, record))
    assert len(storage.log(row.id)) == 1
    assert storage.session_by_id(row.id).version == row.version + 1


def test_concurrent_acts_never_both_apply_to_one_state(client, slug):
    game = get_game(slug)
    player = Player(client, slug, seed=7)
    puzzles = [
        client.get(f"/api/v1/agent-check?slug={slug}", headers=player.auth()).json()
        for _ in range(THREADS)
    ]
    command = game.spec().commands[0].example
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []

    def act(puzzle):
        barrier.wait()
        reply = client.post(
            f"/games/{slug}/api/act",
            json={"command": command},
            headers=answer_headers(puzzle, player.token),
        )
        statuses.append(reply.status_code)

    threads = [threading.Thread(target=act, args=(p,)) for p in puzzles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(statuses) <= {200, 409} and 200 in statuses
    storage = client.app.state.services.storage
    row = storage.session_by_token(slug, sessions.token_hash(player.token))
    log = storage.log(row.id)
    assert len(log) == row.version == statuses.count(200)
    assert [entry.seq for entry in log] == list(range(1, row.version + 1))
    assert canonical_json(game.to_json(sessions.replay(game, row, log).state)) == row.state


def test_any_command_sequence_replays_to_the_stored_state(settings):
    # a new session per example, more than the rate of `new` allows one address: that
    # rate is not what this checks, so it is off here
    unlimited = dataclasses.replace(settings, rate_new_per_address=Rate(0, 1))
    with TestClient(create_app(unlimited)) as client:
        check_command_sequences(client)


def check_command_sequences(client: TestClient) -> None:
    game = get_game("tally")
    storage = client.app.state.services.storage
    commands = st.lists(st.sampled_from(["step 1", "step 2", "fumble", "hop"]), max_size=8)

    @given(batches=st.lists(commands.filter(bool), min_size=1, max_size=3))
    def check(batches):
        player = Player(client, "tally", seed=len(batches))
        for batch in batches:
            assert player.act(*batch).status_code == 200
        row = storage.session_by_token("tally", sessions.token_hash(player.token))
        log = storage.log(row.id)
        assert len(log) == row.version
        assert canonical_json(game.to_json(sessions.replay(game, row, log).state)) == row.state

    check()


def test_client_text_is_stored_without_nul_and_read_back_exactly(client):
    # PostgreSQL text columns refuse NUL; a command or review may hold one
    player = Player(client, "tally", seed=None)
    command = "step\x001"
    assert player.act(command).json()["results"][0]["command"] == command
    storage = client.app.state.services.storage
    row = storage.session_by_token("tally", sessions.token_hash(player.token))
    with storage.engine.connect() as conn:
        raw = conn.exec_driver_sql("SELECT command, reason FROM actions").one()
    assert "\x00" not in raw.command and "\x00" not in raw.reason
    (entry,) = storage.log(row.id)
    assert entry.command == command and entry.reason.startswith("unknown command 'step\\x001'")
    player.act("step 2", "step 2", "step 2", "step 2")
    assert player.post("finish", {"rating": 6, "review": "odd\x00text"}).status_code == 200
    with storage.engine.connect() as conn:
        assert "\x00" not in conn.exec_driver_sql("SELECT review FROM sessions").scalar_one()
    (best,) = client.get("/api/leaderboard/tally").json()["entries"]
    assert best["review"] == "odd\x00text"


def test_a_conflict_mid_batch_says_how_many_commands_were_applied(client, monkeypatch):
    player = Player(client, "tally")
    storage = client.app.state.services.storage
    record_step = storage.record_step
    calls = []

    async def second_loses(session, version, record, spend=None):
        calls.append(record.command)
        if len(calls) == 2:
            raise VersionConflict(session.id)
        return await record_step(session, version, record, spend)

    monkeypatch.setattr(storage, "record_step", second_loses)
    reply = player.act("step 1", "step 2", "step 1")
    assert reply.status_code == 409
    assert reply.json()["error"] == (
        "another act changed the session first: 1 of your 3 commands were applied before "
        "that ('step 1'); GET the state before sending the rest"
    )
    view = client.get("/games/tally/api/state", headers={"Authorization": f"Bearer {player.token}"})
    assert view.json()["observation"]["pos"] == 1 and view.json()["moves"] == 1


def test_text_stored_before_the_json_form_still_reads(client):
    player = Player(client, "tally", seed=None)
    player.act("step 2", "step 2", "step 2", "step 2")
    player.post("finish", {"rating": 7, "review": "stored as JSON"})
    storage = client.app.state.services.storage
    with storage.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE actions SET command = 'step 2', reason = ''")
        conn.exec_driver_sql("UPDATE sessions SET review = 'plain \"old\" text'")
    (best,) = client.get("/api/leaderboard/tally").json()["entries"]
    assert best["review"] == 'plain "old" text'
    row = storage.session_by_token("tally", sessions.token_hash(player.token))
    assert [entry.command for entry in storage.log(row.id)] == ["step 2"] * 4
