"""The database, by concern: :mod:`~playbench.server.store.schema` (the tables, engines and
migrations), :mod:`~playbench.server.store.commit` (SQLite's group commit),
:mod:`~playbench.server.store.records` (the rows read), and one repository per concern:
:mod:`~playbench.server.store.sessions` (sessions, logs, boards, pruning, spectators),
:mod:`~playbench.server.store.players`, :mod:`~playbench.server.store.puzzles` and
:mod:`~playbench.server.store.mcp` (the MCP door's sessions and matches).

:class:`Storage` is all of them on one engine: SQLAlchemy Core over any URL, SQLite by
default. The tables are :mod:`~playbench.server.store.schema`'s (the package's names
``sessions`` and ``players`` are the repositories' modules).
"""

from __future__ import annotations

from playbench.server.store.mcp import MatchCaps, MatchRow, McpStore
from playbench.server.store.players import PlayerStore
from playbench.server.store.puzzles import PuzzleStore
from playbench.server.store.records import (
    LogEntry,
    PlayerGames,
    PlayerRow,
    PruneReport,
    PuzzleSpent,
    SessionRow,
    SpentPuzzle,
    StepRecord,
    VersionConflict,
    token_hash,
)
from playbench.server.store.schema import ADDRESS_CHARS, create_tables, make_engine
from playbench.server.store.sessions import SessionStore


class Storage(SessionStore, PlayerStore, PuzzleStore, McpStore):
    """All reads and writes of the server, one short transaction each."""


__all__ = [
    "ADDRESS_CHARS",
    "LogEntry",
    "MatchCaps",
    "MatchRow",
    "PlayerGames",
    "PlayerRow",
    "PruneReport",
    "PuzzleSpent",
    "SessionRow",
    "SpentPuzzle",
    "StepRecord",
    "Storage",
    "VersionConflict",
    "create_tables",
    "make_engine",
    "token_hash",
]
