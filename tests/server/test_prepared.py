"""Prepared statements: the driver's cursor writes what SQLAlchemy's execution writes, in
the same transaction, with SQLAlchemy's errors; and what a step stores is JSON that reads
back as it was (its state canonical JSON)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import bindparam, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from playbench.core.game import canonical_json
from playbench.server.encoding import canonical_text, json_text
from playbench.server.store.prepared import Prepared
from playbench.server.store.schema import actions, create_tables, make_engine, sessions
from playbench.server.store.sessions import CREATE, LOG
from playbench.server.store.sessions import STEP as STEP_UPDATE

pytestmark = pytest.mark.databases("sqlite", "postgresql")

SESSION = {
    "id": "s1",
    "token_hash": "t" * 64,
    "slug": "gem-swap",
    "seed": 2_345_678_901,
    "options": "{}",
    "state": '{"board":[1,2]}',
    "version": 0,
    "score": 0,
    "moves": 0,
    "accepted": 0,
    "player": 'Ada "the" \x00 first',
    "owner": None,
    "ranked": True,
    "over": False,
    "finished": False,
    "created_at": 1.5,
    "updated_at": 1.5,
}


def _entry(seq: int, command: str) -> dict:
    return {
        "session_id": "s1",
        "seq": seq,
        "command": command,
        "action": None,
        "ok": True,
        "reward": 3,
        "reason": "",
        "events": None,
        "created_at": 2.0,
    }


@pytest.fixture
def engine(tmp_path, database):
    engine = make_engine(database or f"sqlite:///{tmp_path / 'prepared.db'}")
    create_tables(engine)
    yield engine
    engine.dispose()


def _stored(engine, table) -> list[dict]:
    with engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(select(table))]


def _raw(engine, column: str, table: str) -> list:
    with engine.connect() as conn:
        return [row[0] for row in conn.execute(text(f"SELECT {column} FROM {table}"))]


def test_an_insert_stores_what_sqlalchemy_stores(engine):
    with engine.begin() as conn:
        CREATE.run(conn, SESSION)
        LOG.run(conn, _entry(1, "swap a1 \x00 b1"))
    prepared = (
        _stored(engine, sessions),
        _stored(engine, actions),
        _raw(engine, "command", "actions"),
    )
    with engine.begin() as conn:
        conn.execute(actions.delete())
        conn.execute(sessions.delete())
        conn.execute(insert(sessions), SESSION)
        conn.execute(insert(actions), _entry(1, "swap a1 \x00 b1"))
    assert prepared == (
        _stored(engine, sessions),
        _stored(engine, actions),
        _raw(engine, "command", "actions"),
    )
    assert prepared[1][0]["command"] == "swap a1 \x00 b1"
    assert prepared[2] == [json.dumps("swap a1 \x00 b1")]  # the column type's own form


def test_an_update_counts_the_rows_it_changed(engine):
    with engine.begin() as conn:
        CREATE.run(conn, SESSION)
    change = {
        "session": "s1",
        "seen": 0,
        "next": 1,
        "new_state": "{}",
        "new_score": 40,
        "new_over": True,
        "moved": 1,
        "admitted": 1,
        "now": 9.0,
    }
    with engine.begin() as conn:
        assert STEP_UPDATE.run(conn, change).rowcount == 1
        assert STEP_UPDATE.run(conn, change).rowcount == 0  # the version moved on
    (row,) = _stored(engine, sessions)
    assert (row["version"], row["score"], row["over"], row["moves"], row["accepted"]) == (
        1,
        40,
        True,
        1,
        1,
    )


def test_a_refused_write_raises_sqlalchemys_error_and_the_transaction_rolls_back(engine):
    with pytest.raises(IntegrityError), engine.begin() as conn:
        CREATE.run(conn, SESSION)
        CREATE.run(conn, SESSION)
    assert _stored(engine, sessions) == []


def test_a_value_in_the_statement_is_bound_and_a_missing_one_is_named(engine):
    scored = Prepared(update(sessions).where(sessions.c.id == bindparam("session")).values(score=7))
    with engine.begin() as conn:
        CREATE.run(conn, SESSION)
        assert scored.run(conn, {"session": "s1"}).rowcount == 1
    assert _stored(engine, sessions)[0]["score"] == 7
    with engine.begin() as conn, pytest.raises(KeyError, match="session"):
        scored.run(conn, {"id": "s1"})


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(JSON_DATA)
def test_the_stored_state_is_canonical_json_and_stored_events_read_back(data):
    assert canonical_text(data) == canonical_json(data)
    assert json.loads(json_text(data)) == data
