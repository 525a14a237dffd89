"""The database: sessions, their action logs, ratings and reviews, spent agent-check puzzles.

SQLAlchemy Core over any URL; SQLite by default, in WAL mode with ``synchronous=FULL``.
Every action is one transaction that first moves the session's ``version`` forward with
an optimistic check (``UPDATE ... WHERE version = :seen``), then appends the log entry:
of two concurrent writers on one session, exactly one applies and the other learns it
lost (:class:`VersionConflict`).
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    and_,
    create_engine,
    event,
    false,
    func,
    insert,
    inspect,
    select,
    text,
    type_coerce,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from playbench.server.metrics import COMMIT_BATCH
from playbench.server.names import look_key

T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 30_000
#: the most write transactions one SQLite commit carries
MAX_GROUP = 256
TOKEN_HASH_CHARS = 64
SESSION_ID_CHARS = 32
SLUG_CHARS = 64
RATE_KEY_CHARS = 80
MATCH_ID_CHARS = 32
MCP_SESSION_CHARS = 64
#: an IPv6 address with a zone, or whatever a trusted proxy named
ADDRESS_CHARS = 64
#: the stored options of a standard run; a database from before ranked exactly these
STANDARD_OPTIONS = "{}"
#: workers that start together on a new database race to create the tables: a loser hears
#: "already exists" (or a duplicate catalog key on PostgreSQL) and looks again; each retry
#: finds at least one more table or index in place, so a few attempts always settle it
SCHEMA_ATTEMPTS = 8
#: sessions deleted per statement when pruning (keeps each IN list short)
PRUNE_BATCH = 500


class JsonText(TypeDecorator[str]):
    """Client text stored as a JSON string: lossless, and free of NUL characters, which
    PostgreSQL text columns refuse (a command or a review may hold one). Text stored
    plain by earlier versions reads back as it is."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        return None if value is None else json.dumps(value)

    def process_result_value(self, value: str | None, dialect: Any) -> str | None:
        if value is None or not value.startswith('"'):
            return value
        try:
            text = json.loads(value)
        except json.JSONDecodeError:
            return value
        return text if isinstance(text, str) else value


metadata = MetaData()

sessions = Table(
    "sessions",
    metadata,
    Column("id", String(SESSION_ID_CHARS), primary_key=True),
    Column("token_hash", String(TOKEN_HASH_CHARS), nullable=False, unique=True),
    Column("slug", String(SLUG_CHARS), nullable=False, index=True),
    Column("seed", BigInteger, nullable=False),
    Column("options", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("accepted", Integer, nullable=False, server_default=text("0")),
    Column("player", JsonText),
    #: the registered player the session belongs to (its name key); NULL: anonymous, or a
    #: name given before names were registered
    Column("owner", JsonText),
    Column("ranked", Boolean, nullable=False, server_default=false()),
    Column("over", Boolean, nullable=False),
    Column("finished", Boolean, nullable=False, index=True),
    #: a ranked session closed unfinished (left idle past the deadline, or its player
    #: started another): it takes no more commands and counts at its score then
    Column("abandoned", Boolean, nullable=False, server_default=false()),
    Column("rating", Integer),
    Column("review", JsonText),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("finished_at", Float),
)

actions = Table(
    "actions",
    metadata,
    Column("session_id", String(SESSION_ID_CHARS), ForeignKey("sessions.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("command", JsonText),
    #: the action as JSON, or NULL when the command did not parse (nothing was stepped)
    Column("action", Text),
    Column("ok", Boolean, nullable=False),
    Column("reward", BigInteger, nullable=False),
    Column("reason", JsonText, nullable=False),
    #: what the action did, as the game told it (JSON list); NULL for older rows
    Column("events", Text),
    Column("created_at", Float, nullable=False),
)

#: agent-check puzzles that were answered (a puzzle answers once), kept until they expire
spent_puzzles = Table(
    "spent_puzzles",
    metadata,
    Column("token_hash", String(TOKEN_HASH_CHARS), primary_key=True),
    Column("expires_at", Float, nullable=False, index=True),
)


#: registered player names: the name as shown, its normalised key (unique), the key's
#: hash, and its confusable skeleton (unique: :func:`playbench.server.names.look_key`;
#: null for a name registered before, whose look-alike was there first)
players = Table(
    "players",
    metadata,
    Column("name_key", JsonText, primary_key=True),
    Column("name", JsonText, nullable=False),
    Column("key_hash", String(TOKEN_HASH_CHARS), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("look_key", JsonText, nullable=True),
)
PLAYERS_LOOK_INDEX = Index("players_look_key", players.c.look_key, unique=True)


#: token buckets shared by every process on the database (see :mod:`playbench.server.quota`)
rate_buckets = Table(
    "rate_buckets",
    metadata,
    Column("key", String(RATE_KEY_CHARS), primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("at", Float, nullable=False),
    #: what the last take granted (read back by the statement that took it)
    Column("granted", Float),
)


#: the MCP server's matches (see :mod:`playbench.mcp.matches`): any host plays any of them
mcp_matches = Table(
    "mcp_matches",
    metadata,
    Column("id", String(MATCH_ID_CHARS), primary_key=True),
    Column("slug", String(SLUG_CHARS), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("options", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    #: the MCP session that made it and its client address (None: stdio)
    Column("owner", String(MCP_SESSION_CHARS), index=True),
    Column("client", String(ADDRESS_CHARS), index=True),
    Column("used_at", Float, nullable=False, index=True),
)

#: the MCP sessions open over HTTP on every host, with their client address and when each
#: was last seen (see :mod:`playbench.mcp.http`)
mcp_sessions = Table(
    "mcp_sessions",
    metadata,
    Column("id", String(MCP_SESSION_CHARS), primary_key=True),
    Column("client", String(ADDRESS_CHARS), nullable=False, index=True),
    Column("seen_at", Float, nullable=False, index=True),
)

#: rows that transactions lock (``SELECT ... FOR UPDATE``) to check a cap across hosts
mcp_locks = Table("mcp_locks", metadata, Column("name", String(SLUG_CHARS), primary_key=True))


def token_hash(token: str) -> str:
    """Only hashes of secret tokens (sessions, puzzles) are stored."""
    return hashlib.sha256(token.encode()).hexdigest()


class VersionConflict(Exception):
    """Another request changed the session first."""


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    slug: str
    seed: int
    options: dict[str, Any]
    state: str
    version: int
    score: int
    #: actions that moved the game on (the game's own moves)
    moves: int
    #: commands the game accepted, queries included
    accepted: int
    player: str | None
    #: the registered player's name key (None: anonymous, or named before registration)
    owner: str | None
    #: a standard run on a seed the server drew and hid: the only kind on the leaderboard
    ranked: bool
    over: bool
    finished: bool
    abandoned: bool
    rating: int | None
    review: str | None
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class PlayerRow:
    name: str
    name_key: str
    key_hash: str


@dataclass(frozen=True, slots=True)
class LogEntry:
    seq: int
    command: str | None
    action: Any
    events: list[Any]
    ok: bool
    reward: int
    reason: str


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What one prune closed and deleted."""

    sessions: int
    actions: int
    puzzles: int
    #: ranked sessions closed as abandoned (idle past the deadline)
    abandoned: int = 0


@dataclass(frozen=True, slots=True)
class PlayerGames:
    """One registered player's ranked games of a game, finished or abandoned."""

    name: str
    games: int
    mean: float
    #: the sample variance of the scores (0 for one game)
    variance: float
    best: int
    last_played: float


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One action to append: what was sent, what happened, the state after it."""

    command: str | None
    action: Any
    parsed: bool
    ok: bool
    #: the action moved the game on (an accepted move or a counted refusal)
    advanced: bool
    reward: int
    reason: str
    state: str
    score: int
    over: bool
    events: list[Any] = field(default_factory=list)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _driver_leaves_transactions_alone(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str) -> Engine:
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def make_writer_engine(url: str) -> Engine:
    """The group commit's own SQLite engine: SQLAlchemy's recipe for savepoints (the driver
    leaves transactions alone, as it would not begin one before a SAVEPOINT) with each
    transaction taking the write lock at once (BEGIN IMMEDIATE: a writer never has to
    upgrade a read lock, which SQLite refuses at once while another writer waits)."""
    engine = create_engine(url)
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "connect", _driver_leaves_transactions_alone)
    event.listen(engine, "begin", _sqlite_begin_immediate)
    return engine


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
        """Apply ``work`` in the next commit; its value once that commit is durable. The
        writer thread starts on first use, and again after :meth:`close` (an app that is
        started twice, as the tests do, writes on)."""
        done: Future = Future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="group-commit", daemon=True
                )
                self._thread.start()
            self._queue.put((work, done))
        return done.result()

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
                    try:
                        with conn.begin_nested():
                            results.append((done, work(conn), None))
                    except Exception as error:
                        results.append((done, None, error))
        except Exception as error:
            for _work, done in batch:
                done.set_exception(error)
            return
        for done, value, error in results:
            if error is None:
                done.set_result(value)
            else:
                done.set_exception(error)


def create_tables(engine: Engine, tables: list[Table] | None = None) -> None:
    """Create the missing tables (``tables``, or all), also when other processes do the
    same at the same time, and add the columns a database from an earlier version lacks."""
    for attempt in range(1, SCHEMA_ATTEMPTS + 1):
        try:
            metadata.create_all(engine, tables=tables)
            _add_missing_columns(engine)
            if tables is None or players in tables:
                _fill_look_keys(engine)
            return
        except (IntegrityError, OperationalError, ProgrammingError):
            if attempt == SCHEMA_ATTEMPTS:
                raise


#: columns added since the first schema, with the SQL that fills them for older rows:
#: a standard run of before was ranked, and every accepted command counted as a move
ADDED_COLUMNS = {
    ("sessions", "accepted"): (
        "INTEGER NOT NULL DEFAULT 0",
        "UPDATE sessions SET accepted = moves",
    ),
    ("sessions", "player"): ("TEXT", None),
    ("sessions", "owner"): ("TEXT", None),
    ("sessions", "abandoned"): ("BOOLEAN NOT NULL DEFAULT FALSE", None),
    ("sessions", "ranked"): (
        "BOOLEAN NOT NULL DEFAULT FALSE",
        f"UPDATE sessions SET ranked = (options = '{STANDARD_OPTIONS}')",
    ),
    ("actions", "events"): ("TEXT", None),
    ("rate_buckets", "granted"): ("FLOAT", None),
    ("players", "look_key"): ("TEXT", None),
}


def _add_missing_columns(engine: Engine) -> None:
    inspector = inspect(engine)
    tables = set(inspector.get_table_names())
    present = {
        (table, column["name"])
        for table in sorted({table for table, _ in ADDED_COLUMNS} & tables)
        for column in inspector.get_columns(table)
    }
    with engine.begin() as conn:
        for (table, name), (kind, fill) in ADDED_COLUMNS.items():
            if table in tables and (table, name) not in present:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {kind}"))
                if fill is not None:
                    conn.execute(text(fill))


def _fill_look_keys(engine: Engine) -> None:
    """Give the players registered before skeletons were kept theirs (oldest first: of
    two look-alikes the later keeps none), and the unique index over them."""
    with engine.begin() as conn:
        PLAYERS_LOOK_INDEX.create(conn, checkfirst=True)
        stored = type_coerce(players.c.name_key, Text)  # as stored, JSON or plain
        rows = conn.execute(
            select(stored.label("stored"), players.c.name)
            .where(players.c.look_key.is_(None))
            .order_by(players.c.created_at)
        ).all()
        if not rows:
            return
        taken = set(
            conn.execute(select(players.c.look_key).where(players.c.look_key.is_not(None)))
            .scalars()
            .all()
        )
        for row in rows:
            key = look_key(row.name)
            if key not in taken:
                taken.add(key)
                conn.execute(update(players).where(stored == row.stored).values(look_key=key))


def _row(row: Any) -> SessionRow:
    return SessionRow(
        id=row.id,
        slug=row.slug,
        seed=row.seed,
        options=json.loads(row.options),
        state=row.state,
        version=row.version,
        score=row.score,
        moves=row.moves,
        accepted=row.accepted,
        player=row.player,
        owner=row.owner,
        ranked=bool(row.ranked),
        over=bool(row.over),
        finished=bool(row.finished),
        abandoned=bool(row.abandoned),
        rating=row.rating,
        review=row.review,
        finished_at=row.finished_at,
    )


class Storage:
    """All reads and writes of the server, one short transaction each."""

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

    # -- sessions ----------------------------------------------------------------------
    def create_session(
        self,
        *,
        session_id: str,
        token_hash: str,
        slug: str,
        seed: int,
        options: dict[str, Any],
        state: str,
        score: int,
        over: bool,
        player: str | None,
        ranked: bool,
        owner: str | None = None,
    ) -> tuple[SessionRow, list[str]]:
        """Store a new session. A ranked session of a registered player (``owner``)
        closes as abandoned, in the same transaction, that player's open ranked session
        of the game: a player has at most one. The row, and the ids of those closed."""
        now = time.time()
        values = {
            "id": session_id,
            "token_hash": token_hash,
            "slug": slug,
            "seed": seed,
            "options": json.dumps(options, sort_keys=True),
            "state": state,
            "version": 0,
            "score": score,
            "moves": 0,
            "accepted": 0,
            "player": player,
            "owner": owner,
            "ranked": ranked,
            "over": over,
            "finished": False,
            "created_at": now,
            "updated_at": now,
        }
        open_ones = (
            select(sessions.c.id)
            .where(*_open_ranked(slug), sessions.c.owner == owner)
            .with_for_update()
        )
        lock = select(players.c.name_key).where(players.c.name_key == owner).with_for_update()

        def start(conn: Connection) -> list[str]:
            closed: list[str] = []
            if ranked and owner is not None:
                conn.execute(lock)
                closed = [found.id for found in conn.execute(open_ones).all()]
                if closed:
                    conn.execute(_abandon(sessions.c.id.in_(closed)))
            conn.execute(insert(sessions).values(values))
            return closed

        closed = self.write(start)
        return self.reload(session_id), closed

    def session_counts(self) -> dict[str, int]:
        """Stored sessions by state, ``open`` (unfinished) and ``finished``."""
        query = select(sessions.c.finished, func.count()).group_by(sessions.c.finished)
        with self.engine.connect() as conn:
            found = {bool(finished): int(number) for finished, number in conn.execute(query)}
        return {"open": found.get(False, 0), "finished": found.get(True, 0)}

    def session_by_token(self, slug: str | None, token_hash: str) -> SessionRow | None:
        """The session of a token (of game ``slug``; None: of any game)."""
        query = select(sessions).where(sessions.c.token_hash == token_hash)
        if slug is not None:
            query = query.where(sessions.c.slug == slug)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _row(row) if row is not None else None

    def session_by_id(self, session_id: str) -> SessionRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(sessions).where(sessions.c.id == session_id)).first()
        return _row(row) if row is not None else None

    def reload(self, session_id: str) -> SessionRow:
        """A session known to exist (just written), as stored now."""
        row = self.session_by_id(session_id)
        if row is None:
            raise LookupError(f"session {session_id} is missing from the database")
        return row

    def record_step(self, session: SessionRow, version: int, record: StepRecord) -> int:
        """Append one action to the log and store the state after it; the new version.

        Raises :class:`VersionConflict` when the session is no longer at ``version``.
        """
        now = time.time()
        moves = sessions.c.moves + 1 if record.advanced else sessions.c.moves
        accepted = sessions.c.accepted + 1 if record.ok else sessions.c.accepted
        change = (
            update(sessions)
            .where(sessions.c.id == session.id, sessions.c.version == version)
            .values(
                version=version + 1,
                state=record.state,
                score=record.score,
                over=record.over,
                moves=moves,
                accepted=accepted,
                updated_at=now,
            )
        )
        entry = {
            "session_id": session.id,
            "seq": version + 1,
            "command": record.command,
            "action": json.dumps(record.action) if record.parsed else None,
            "ok": record.ok,
            "reward": record.reward,
            "reason": record.reason,
            "events": json.dumps(record.events) if record.events else None,
            "created_at": now,
        }

        def step(conn: Connection) -> None:
            if conn.execute(change).rowcount != 1:
                raise VersionConflict(session.id)
            conn.execute(insert(actions).values(entry))

        try:
            self.write(step)
        except IntegrityError:
            raise VersionConflict(session.id) from None
        return version + 1

    def finish(
        self,
        session: SessionRow,
        rating: int,
        review: str,
        player: PlayerRow | None = None,
    ) -> SessionRow:
        """Mark the session finished with its rating and review (and the registered
        player it belongs to, when one is named now)."""
        change = (
            update(sessions)
            .where(
                sessions.c.id == session.id,
                sessions.c.version == session.version,
                sessions.c.finished.is_(False),
            )
            .values(
                finished=True,
                rating=rating,
                review=review,
                player=session.player if player is None else player.name,
                owner=session.owner if player is None else player.name_key,
                finished_at=time.time(),
                version=session.version + 1,
            )
        )

        def finishing(conn: Connection) -> None:
            if conn.execute(change).rowcount != 1:
                raise VersionConflict(session.id)

        self.write(finishing)
        return self.reload(session.id)

    def log(self, session_id: str) -> list[LogEntry]:
        query = select(actions).where(actions.c.session_id == session_id).order_by(actions.c.seq)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [_log_entry(row) for row in rows]

    def player_games(self, slug: str) -> list[PlayerGames]:
        """Per registered player, the figures of every ranked game of ``slug`` that is
        closed (finished or abandoned): best-of-N cannot leave one out."""
        score = sessions.c.score.cast(Float)
        last = func.max(func.coalesce(sessions.c.finished_at, sessions.c.updated_at))
        query = (
            select(
                players.c.name,
                func.count().label("games"),
                func.avg(score).label("mean"),
                func.avg(score * score).label("square"),
                func.max(sessions.c.score).label("best"),
                last.label("last"),
            )
            .select_from(sessions.join(players, players.c.name_key == sessions.c.owner))
            .where(
                sessions.c.slug == slug,
                sessions.c.ranked.is_(True),
                sessions.c.finished.is_(True) | sessions.c.abandoned.is_(True),
            )
            .group_by(players.c.name_key, players.c.name)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        figures = []
        for row in rows:
            games, mean = int(row.games), float(row.mean)
            spread = max(0.0, float(row.square) - mean * mean) * games
            variance = spread / (games - 1) if games > 1 else 0.0
            figures.append(
                PlayerGames(row.name, games, mean, variance, int(row.best), float(row.last))
            )
        return figures

    def abandon_idle(self, idle_before: float) -> int:
        """Close as abandoned every open ranked session unchanged since ``idle_before``;
        how many."""

        def closing(conn: Connection) -> int:
            idle = _abandon(and_(*_open_ranked(None), sessions.c.updated_at < idle_before))
            return conn.execute(idle).rowcount

        return self.write(closing)

    def leaderboard(self, slug: str, limit: int) -> list[SessionRow]:
        query = (
            select(sessions)
            .where(
                sessions.c.slug == slug,
                sessions.c.finished.is_(True),
                sessions.c.ranked.is_(True),
            )
            .order_by(sessions.c.score.desc(), sessions.c.finished_at.asc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_row(row) for row in conn.execute(query).all()]

    def rank(self, session: SessionRow) -> int | None:
        """1 + the number of ranked sessions of the game above ``session``; None if unranked
        (a practice session: its seed or options were the client's)."""
        if not session.ranked:
            return None
        ahead = (
            select(sessions.c.id)
            .where(
                sessions.c.slug == session.slug,
                sessions.c.finished.is_(True),
                sessions.c.ranked.is_(True),
                (sessions.c.score > session.score)
                | (
                    (sessions.c.score == session.score)
                    & (sessions.c.finished_at < session.finished_at)
                ),
            )
            .subquery()
        )
        with self.engine.connect() as conn:
            return 1 + conn.execute(select(func.count()).select_from(ahead)).scalar_one()

    # -- players -----------------------------------------------------------------------
    def create_player(self, name: str, name_key: str, key_hash: str) -> bool:
        """Register a player; False when the name key or its look (its confusable
        skeleton) is taken."""
        values = {
            "name_key": name_key,
            "name": name,
            "key_hash": key_hash,
            "look_key": look_key(name),
        }
        add = insert(players).values(created_at=time.time(), **values)
        try:
            self.write(lambda conn: conn.execute(add))
        except IntegrityError:
            return False
        return True

    def player(self, name_key: str) -> PlayerRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(players).where(players.c.name_key == name_key)).first()
        return PlayerRow(row.name, row.name_key, row.key_hash) if row is not None else None

    # -- agent-check puzzles -------------------------------------------------------------
    def spend_puzzle(self, token_hash: str, expires_at: float) -> bool:
        """Mark a puzzle used; False when it had been used already."""
        spend = insert(spent_puzzles).values(token_hash=token_hash, expires_at=expires_at)
        try:
            self.write(lambda conn: conn.execute(spend))
        except IntegrityError:
            return False
        return True

    # -- pruning -------------------------------------------------------------------------
    def prune(self, unfinished_before: float, now: float) -> PruneReport:
        """Delete sessions left unfinished since before ``unfinished_before`` (with their
        logs) and spent puzzles that have expired by ``now``. Finished sessions stay."""
        stale = select(sessions.c.id).where(
            sessions.c.finished.is_(False),
            sessions.c.abandoned.is_(False),
            sessions.c.updated_at < unfinished_before,
        )

        def pruning(conn: Connection) -> PruneReport:
            ids = [row.id for row in conn.execute(stale).all()]
            logged = 0
            for start in range(0, len(ids), PRUNE_BATCH):
                batch = ids[start : start + PRUNE_BATCH]
                logged += conn.execute(
                    actions.delete().where(actions.c.session_id.in_(batch))
                ).rowcount
                conn.execute(sessions.delete().where(sessions.c.id.in_(batch)))
            spent = conn.execute(
                spent_puzzles.delete().where(spent_puzzles.c.expires_at < now)
            ).rowcount
            return PruneReport(sessions=len(ids), actions=logged, puzzles=spent)

        return self.write(pruning)

    # -- spectators (read only) ----------------------------------------------------------
    def versions(self, session_ids: Collection[str]) -> dict[str, int]:
        """The stored version of each known session among ``session_ids`` (one indexed
        read: how a spectator stream learns, without a publish, that a session moved)."""
        if not session_ids:
            return {}
        query = select(sessions.c.id, sessions.c.version).where(
            sessions.c.id.in_(list(session_ids))
        )
        with self.engine.connect() as conn:
            return {row.id: row.version for row in conn.execute(query).all()}

    def live_sessions(self, slug: str, since: float, limit: int) -> list[SessionRow]:
        """Unfinished sessions of ``slug`` still being played (changed at ``since`` or
        later, not over), the most recently moved first."""
        query = (
            select(sessions)
            .where(
                sessions.c.slug == slug,
                sessions.c.finished.is_(False),
                sessions.c.over.is_(False),
                sessions.c.updated_at >= since,
            )
            .order_by(sessions.c.updated_at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_row(row) for row in conn.execute(query).all()]

    def last_entry(self, session_id: str) -> LogEntry | None:
        """The newest log entry of a session (its last command), if any."""
        query = (
            select(actions)
            .where(actions.c.session_id == session_id)
            .order_by(actions.c.seq.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _log_entry(row) if row is not None else None


def _open_ranked(slug: str | None) -> list[Any]:
    """The conditions of a ranked session still open (neither finished nor abandoned)."""
    found = [
        sessions.c.ranked.is_(True),
        sessions.c.finished.is_(False),
        sessions.c.abandoned.is_(False),
    ]
    return found if slug is None else [sessions.c.slug == slug, *found]


def _abandon(where: Any) -> Any:
    """Close the sessions ``where`` selects as abandoned, each one version on (a request
    that read them before sees the change and stores nothing); their last move's time
    stays as it was."""
    return update(sessions).where(where).values(abandoned=True, version=sessions.c.version + 1)


def _log_entry(row: Any) -> LogEntry:
    return LogEntry(
        seq=row.seq,
        command=row.command,
        events=json.loads(row.events) if row.events else [],
        action=json.loads(row.action) if row.action is not None else None,
        ok=bool(row.ok),
        reward=row.reward,
        reason=row.reason,
    )
