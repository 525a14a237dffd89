"""The MCP door's tables: its HTTP sessions by client address, its live matches, and the
lock rows their caps are checked under across hosts (``SELECT ... FOR UPDATE``).
:mod:`playbench.mcp` keeps its rules and messages and writes no SQL: each call here is one
transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from playbench.server.store.base import StoreBase
from playbench.server.store.schema import mcp_locks, mcp_matches, mcp_sessions

#: the lock rows: the session cap's, the match caps'
SESSIONS_LOCK = "sessions"
MATCHES_LOCK = "matches"


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A live match as stored: its game, seed, options and state (JSON text)."""

    id: str
    slug: str
    seed: int
    options: str
    state: str
    moves: int
    version: int
    used_at: float


@dataclass(frozen=True, slots=True)
class MatchCaps:
    """The most matches one MCP session, one client address and the table may hold."""

    per_owner: int
    per_client: int
    total: int


class McpStore(StoreBase):
    """MCP sessions and matches."""

    def make_mcp_locks(self) -> None:
        """Make the lock rows if they are missing (a host that loses the race finds them)."""
        for name in (SESSIONS_LOCK, MATCHES_LOCK):
            self.write(lambda conn, name=name: _lock(conn, name, make=True))

    # -- sessions over HTTP --------------------------------------------------------------
    def hold_mcp_session(
        self, place: str, client: str, now: float, expired_before: float, per_client: int
    ) -> tuple[bool, int]:
        """Hold the place ``place`` for a session from ``client`` unless the address holds
        ``per_client`` already (the expired ones dropped first): whether it is held, and
        the sessions the address held before."""

        def holding(conn: Connection) -> tuple[bool, int]:
            _lock(conn, SESSIONS_LOCK)
            conn.execute(delete(mcp_sessions).where(mcp_sessions.c.seen_at < expired_before))
            count = select(func.count()).select_from(mcp_sessions)
            held = int(conn.execute(count.where(mcp_sessions.c.client == client)).scalar_one())
            if held >= per_client:
                return False, held
            conn.execute(insert(mcp_sessions).values(id=place, client=client, seen_at=now))
            return True, held

        return self.write(holding)

    def rename_mcp_session(self, place: str, session_id: str) -> None:
        rename = update(mcp_sessions).where(mcp_sessions.c.id == place).values(id=session_id)
        self.write(lambda conn: conn.execute(rename))

    def touch_mcp_session(self, session_id: str, now: float) -> None:
        touch = update(mcp_sessions).where(mcp_sessions.c.id == session_id).values(seen_at=now)
        self.write(lambda conn: conn.execute(touch))

    def release_mcp_sessions(self, ids: tuple[str, ...]) -> None:
        if ids:
            gone = delete(mcp_sessions).where(mcp_sessions.c.id.in_(ids))
            self.write(lambda conn: conn.execute(gone))

    # -- matches -------------------------------------------------------------------------
    def add_match(
        self, row: dict[str, Any], idle_before: float, caps: MatchCaps
    ) -> tuple[str, int] | None:
        """Store the new match ``row`` (the idle ones dropped first) unless a cap is
        reached: None, or the cap's holder (``session``, ``address`` or ``server``) and
        the matches it holds. A full table makes room for an address that holds fewer
        than the largest holders, from the least recently used of theirs."""

        def making(conn: Connection) -> tuple[str, int] | None:
            _lock(conn, MATCHES_LOCK)
            conn.execute(delete(mcp_matches).where(mcp_matches.c.used_at < idle_before))
            if row["owner"] is not None:
                mine = _count(conn, mcp_matches.c.owner == row["owner"])
                if mine >= caps.per_owner:
                    return "session", mine
            if row["client"] is not None:
                ours = _count(conn, mcp_matches.c.client == row["client"])
                if ours >= caps.per_client:
                    return "address", ours
            held = _count(conn, None)
            if held >= caps.total and not _make_room(conn, row["client"]):
                return "server", held
            conn.execute(insert(mcp_matches).values(row))
            return None

        return self.write(making)

    def live_matches(
        self, used_after: float, client: str | None = None, anyone: bool = True
    ) -> int:
        """Matches used since ``used_after``: all of them, or (``anyone`` False) those made
        from address ``client``."""
        live = mcp_matches.c.used_at >= used_after
        where = live if anyone else (mcp_matches.c.client == client) & live
        with self.engine.connect() as conn:
            return _count(conn, where)

    def live_match(self, match_id: str, used_after: float) -> MatchRow | None:
        query = select(mcp_matches).where(
            mcp_matches.c.id == match_id, mcp_matches.c.used_at >= used_after
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        return MatchRow(
            row.id, row.slug, row.seed, row.options, row.state, row.moves, row.version, row.used_at
        )

    def touch_match(self, match_id: str, now: float) -> None:
        touch = update(mcp_matches).where(mcp_matches.c.id == match_id).values(used_at=now)
        self.write(lambda conn: conn.execute(touch))

    def store_match(self, seen: MatchRow, state: str, moves: int, now: float) -> bool:
        """The match after a call that moved it, unless another call changed it since it
        was read as ``seen`` (then False)."""
        change = (
            update(mcp_matches)
            .where(mcp_matches.c.id == seen.id, mcp_matches.c.version == seen.version)
            .values(state=state, moves=moves, version=seen.version + 1, used_at=now)
        )
        return self.write(lambda conn: conn.execute(change).rowcount == 1)


def _make_room(conn: Connection, client: str | None) -> bool:
    """In a full table, drop the least recently used match of the addresses holding the
    most, if they hold more than ``client`` does (so a share is taken only from a larger
    one): False when no address holds more."""
    if client is None:
        return False
    count = func.count().label("held")
    heaviest = conn.execute(
        select(count).select_from(mcp_matches).group_by(mcp_matches.c.client).order_by(count.desc())
    ).scalar()
    if heaviest is None or heaviest <= _count(conn, mcp_matches.c.client == client):
        return False
    holders = (
        select(mcp_matches.c.client).group_by(mcp_matches.c.client).having(func.count() == heaviest)
    )
    oldest = conn.execute(
        select(mcp_matches.c.id)
        .where(mcp_matches.c.client.in_(holders))
        .order_by(mcp_matches.c.used_at)
        .limit(1)
    ).scalar()
    if oldest is None:
        return False
    conn.execute(delete(mcp_matches).where(mcp_matches.c.id == oldest))
    return True


def _count(conn: Connection, where: ColumnElement[bool] | None) -> int:
    query = select(func.count()).select_from(mcp_matches)
    if where is not None:
        query = query.where(where)
    return int(conn.execute(query).scalar_one())


def _lock(conn: Connection, name: str, make: bool = False) -> None:
    """Hold the lock row ``name`` until the transaction ends (``make``: make it first if
    it is missing; a host that loses the race to make it finds it made)."""
    exists = select(mcp_locks.c.name).where(mcp_locks.c.name == name)
    if make and conn.execute(exists).first() is None:
        try:
            with conn.begin_nested():
                conn.execute(insert(mcp_locks).values(name=name))
        except IntegrityError:
            pass
    conn.execute(exists.with_for_update())
