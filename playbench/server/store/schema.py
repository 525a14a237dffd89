"""The schema: every table (with the types and sizes of its columns), the engines (SQLite in
WAL mode with ``synchronous=FULL``), and the creation of missing tables and columns on a
database from an earlier version, also while other workers do the same."""

from __future__ import annotations

import json
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
    create_engine,
    event,
    false,
    inspect,
    select,
    text,
    type_coerce,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

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

#: the readiness probe's write: a row stored and deleted again in one transaction, so the
#: table stays empty and the probe proves the database takes a commit
ready_checks = Table(
    "ready_checks",
    metadata,
    Column("worker", String(ADDRESS_CHARS), primary_key=True),
    Column("checked_at", Float, nullable=False),
)


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


#: pooled connections of a reading engine: as many as the request threads that may read
#: at once (Starlette's thread pool holds 40), so that no request waits for a connection
#: and none is opened (with its pragmas) and closed again per request; a PostgreSQL
#: server's connections are shared by every worker, so its pool is smaller
SQLITE_POOL = (40, 8)
SERVER_POOL = (20, 20)


def make_engine(url: str) -> Engine:
    sqlite = url.startswith("sqlite")
    size, overflow = SQLITE_POOL if sqlite else SERVER_POOL
    if sqlite and (":memory:" in url or url.rstrip("/") == "sqlite:"):
        engine = create_engine(url)  # one in-memory database: SQLAlchemy's own pool
    else:
        engine = create_engine(url, pool_size=size, max_overflow=overflow)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def make_writer_engine(url: str) -> Engine:
    """The group commit's own engine, one connection. On SQLite, SQLAlchemy's recipe for
    savepoints (the driver leaves transactions alone, as it would not begin one before a
    SAVEPOINT) with each transaction taking the write lock at once (BEGIN IMMEDIATE: a
    writer never has to upgrade a read lock, which SQLite refuses at once while another
    writer waits)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_size=1, max_overflow=0)
    engine = create_engine(url)
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "connect", _driver_leaves_transactions_alone)
    event.listen(engine, "begin", _sqlite_begin_immediate)
    return engine


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
