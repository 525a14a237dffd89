"""What the repositories read and write: rows as frozen dataclasses, and the hash a token
is stored as."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


def token_hash(token: str) -> str:
    """Only hashes of secret tokens (sessions, puzzles) are stored."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SpentPuzzle:
    """A checked agent-check puzzle, marked used (by its token's hash) until it expires."""

    token_hash: str
    expires_at: float


class PuzzleSpent(Exception):
    """The puzzle was spent before: the work it was to admit was not stored."""


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
    #: of ``games``, those played to their end (the rest closed as abandoned)
    finished: int


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
