"""Sessions: a stored game played by text commands, one transaction per command.

A session is a :class:`Match` kept in the database: its state after every command and a
log of every command sent, with its parsed action (or none when it did not parse) and
what happened. Replaying the logged actions through the kernel from the seed and options
gives the stored state exactly (:func:`replay`).

A session is ranked only when asked (``ranked`` true, or no seed, options or ranked field
sent): the server draws the seed and keeps it hidden until ``finish``, since the games are
open and deterministic and a known seed can be played ahead. Any other session (a seed or
options field sent at all, null and {} too) is practice and never ranked.

The rules live here and the routes only orchestrate: a closed session, a command past its
byte limit, a finish the rules refuse and a request that lost a race to another are
:class:`SessionRefused` errors, each with its status in the one error table
(:data:`playbench.server.errors.STATUS_BY_ERROR`).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from dataclasses import dataclass

from playbench.core.errors import CommandError, PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.match import Match, StepResult
from playbench.core.rng import draw_seed
from playbench.server import agent_check, players
from playbench.server.encoding import canonical_text
from playbench.server.services import Services
from playbench.server.store import (
    LogEntry,
    PlayerRow,
    PuzzleSpent,
    SessionRow,
    SpentPuzzle,
    StepRecord,
    VersionConflict,
    token_hash,
)

TOKEN_BYTES = 32
SESSION_ID_BYTES = 8
#: a refused command and its reason are stored at most this long (whitespace folded), so
#: every request grows the database by a bounded amount
STORED_REFUSAL_CHARS = 120


class SessionRefused(PlaybenchError):
    """A session request the rules refuse (nothing was applied or stored)."""


class SessionClosed(SessionRefused):
    """The session is finished or abandoned: it takes no more commands."""


class CommandTooLong(SessionRefused):
    """A command past the game's byte limit."""


class FinishRefused(SessionRefused):
    """A finish the rules refuse: already finished, the game not over, or a ranked
    session named at finish."""


class SessionConflict(SessionRefused):
    """Another request moved the session on first."""


CONFLICT = "the session changed under this request (another act ran first); retry"


class BatchConflict(SessionConflict):
    """Another request moved the session on while a batch of commands was being applied;
    ``applied`` are the commands of this batch that were stored before that."""

    def __init__(self, applied: list[str], total: int) -> None:
        self.applied = applied
        self.total = total
        super().__init__(self.message())

    def message(self) -> str:
        if not self.applied:
            return CONFLICT
        done = ", ".join(repr(command) for command in self.applied)
        return (
            f"another act changed the session first: {len(self.applied)} of your "
            f"{self.total} commands were applied before that ({done}); "
            "GET the state before sending the rest"
        )


def check_open(row: SessionRow) -> None:
    """:class:`SessionClosed` for a finished or abandoned session."""
    if row.finished:
        raise SessionClosed(
            "this session is finished: it takes no more commands and nothing was stored "
            "(start a new session with POST new)"
        )
    if row.abandoned:
        raise SessionClosed(
            f"this ranked session was closed as abandoned at score {row.score} (left idle "
            "past the deadline, or its player started another ranked game): it counts as "
            "played and takes no more commands"
        )


def check_act(game: Game, row: SessionRow, texts: list[str]) -> None:
    """What an act must pass before its agent check: an open session, and every command
    within the game's byte limit."""
    check_open(row)
    for index, text in enumerate(texts):
        limit = game.command_limit(text)
        size = len(text.encode())
        if size > limit:
            raise CommandTooLong(
                f"command {index} is {size} bytes; one command may have at most {limit}: "
                "nothing was applied or stored"
            )


async def new_session(
    services: Services,
    game: Game,
    seed: int | None,
    options: JSON | None,
    player: PlayerRow | None = None,
    *,
    ranked: bool,
) -> tuple[SessionRow, str, list[str]]:
    """Start a game and store it: the stored row, the secret token for it, and the ids
    of the player's ranked sessions of this game closed as abandoned by this one (a
    player has at most one open ranked session per game: starting another closes the
    open one at its score, and it counts). The match is kept in :attr:`Services.recent`
    for the session's first act. ``ranked`` asks for a ranked game: the seed and options
    must then be None (the server draws the seed)."""
    if ranked and (seed is not None or options):
        raise ValueError("a ranked game takes no seed and no options")
    if seed is None:
        seed = draw_seed()
    options = options or {}
    match = Match.start(game, seed, options)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row, closed = await services.storage.create_session(
        session_id=secrets.token_hex(SESSION_ID_BYTES),
        token_hash=token_hash(token),
        slug=game.slug,
        seed=seed,
        options=options,
        state=stored_state(match),
        score=match.score,
        over=match.over,
        player=player.name if player is not None else None,
        owner=player.name_key if player is not None else None,
        ranked=ranked,
    )
    services.recent.keep(token_hash(token), row, match)
    return row, token, closed


def stored_state(match: Match) -> str:
    """The match's state as its row stores it: canonical JSON."""
    return canonical_text(match.to_json())


def load(game: Game, row: SessionRow) -> Match:
    """The session's match as stored (its log is not read: see :func:`replay`)."""
    match = Match(game, game.from_json(json.loads(row.state)), row.seed, row.options)
    match.moves = row.moves
    return match


def view(services: Services, game: Game, row: SessionRow, match: Match | None = None) -> JSON:
    """What every session answer shows: the match's view, the session's fields and the
    next agent-check puzzle. A ranked session's seed stays hidden until it is finished."""
    match = load(game, row) if match is None else match
    return {
        "sessionId": row.id,
        "slug": row.slug,
        "seed": row.seed if row.finished or row.abandoned or not row.ranked else None,
        "ranked": row.ranked,
        "player": row.player,
        **match.view(),
        "accepted": row.accepted,
        "finished": row.finished,
        "abandoned": row.abandoned,
        "agentCheck": services.puzzle(row.id),
    }


@dataclass(frozen=True, slots=True)
class ActReport:
    row: SessionRow
    match: Match
    results: list[JSON]


async def act(
    services: Services,
    game: Game,
    row: SessionRow,
    texts: list[str],
    spend: SpentPuzzle | None = None,
    match: Match | None = None,
) -> ActReport:
    """Apply commands in order, each in its own transaction, stopping at the first refusal;
    the puzzle that admitted them (``spend``) is marked used with the first. The event loop
    goes on while each commits; the report comes once the last is durable.

    ``match`` is the session's match at ``row`` when the caller holds it already (else it
    is loaded from the row). Raises :class:`BatchConflict` when another request moved the
    session on first; commands applied before that stay applied, and the error names them;
    and :class:`agent_check.AgentCheckFailed` when the puzzle had been used (nothing
    stored).
    """
    storage = services.storage
    match = load(game, row) if match is None else match
    state_text = row.state
    version, moves, accepted = row.version, row.moves, row.accepted
    results: list[JSON] = []
    for text in texts:
        result = match.command(text)
        if result.advanced:
            state_text = stored_state(match)
        record = StepRecord(
            command=stored_command(game, text, result),
            action=result.action,
            parsed=result.action is not None,
            ok=result.ok,
            advanced=result.advanced,
            reward=result.reward,
            reason=short_form(result.reason),
            state=state_text,
            score=match.score,
            over=match.over,
            events=result.events,
        )
        try:
            admitting = spend if not results else None
            version = await storage.record_step(row, version, record, admitting)
        except PuzzleSpent:
            raise agent_check.AgentCheckFailed(agent_check.USED) from None
        except VersionConflict:
            applied = [done["command"] for done in results]
            raise BatchConflict(applied, len(texts)) from None
        moves += result.advanced
        accepted += result.ok
        results.append({"command": text, **result.to_json()})
        if not result.ok:
            break
    # the row as the last step stored it (each step's UPDATE required the version before
    # it, so nothing else changed it meanwhile): no read back
    stored = dataclasses.replace(
        row,
        version=version,
        state=state_text,
        score=match.score,
        over=match.over,
        moves=moves,
        accepted=accepted,
    )
    return ActReport(row=stored, match=match, results=results)


def finishing_player(
    services: Services, row: SessionRow, name: str | None, key: str | None
) -> PlayerRow | None:
    """The player a ``finish`` names (None: the session keeps its own). Finishing a
    session that belongs to a player needs that player's key too; a ranked session's
    player is fixed when it starts, so best-of-N cannot be played anonymously and only
    the best games named at the end. :class:`players.KeyRefused`,
    :class:`FinishRefused`."""
    if name is None:
        if row.owner is None:
            return None
        owner = services.storage.player(row.owner)
        if owner is None:
            return None
        players.authenticate(services.storage, owner.name, key)
        return None
    named = players.authenticate(services.storage, name, key)
    if row.ranked and named.name_key != row.owner:
        raise FinishRefused(
            "a ranked session's player is named when it starts (new with player and "
            f"{players.KEY_HEADER}), not at finish: this one "
            + (f"belongs to {row.player!r}" if row.owner else "is anonymous")
        )
    return named


@dataclass(frozen=True, slots=True)
class FinishReport:
    row: SessionRow
    match: Match
    rank: int | None


def finish(
    services: Services,
    game: Game,
    row: SessionRow,
    rating: int,
    review: str,
    named: PlayerRow | None,
) -> FinishReport:
    """Close a session whose game is over with its rating and review (under ``named``
    if given): the stored row, the match replayed from its log, its rank. Raises
    :class:`FinishRefused`, :class:`SessionClosed` and :class:`SessionConflict`."""
    if row.finished:
        raise FinishRefused("this session is already finished")
    check_open(row)
    if not row.over:
        raise FinishRefused("the game is not over yet: finish once it has ended")
    try:
        done = services.storage.finish(row, rating, review, named)
    except VersionConflict:
        raise SessionConflict(CONFLICT) from None
    match = replay(game, done, services.storage.log(done.id))
    return FinishReport(row=done, match=match, rank=services.storage.rank(done))


def stored_command(game: Game, text: str, result: StepResult) -> str:
    """What the log keeps of a command: an applied one in the game's canonical text (a
    command padded with spaces stores what it means, not the padding), a refused one in
    its short form."""
    if result.advanced and result.action is not None:
        try:
            return game.command_text(result.action)
        except CommandError:
            return text
    return short_form(text)


def short_form(text: str) -> str:
    """``text`` with runs of whitespace folded to one space, cut to a bounded length."""
    folded = " ".join(text.split())
    if len(folded) <= STORED_REFUSAL_CHARS:
        return folded
    return folded[: STORED_REFUSAL_CHARS - 1] + "…"


def replay(game: Game, row: SessionRow, log: list[LogEntry]) -> Match:
    """The session's match rebuilt from its seed by playing every logged action through
    the kernel (refused ones change nothing); its ``log`` is the replay's input."""
    match = Match.start(game, row.seed, row.options)
    for entry in log:
        if entry.action is not None:
            match.play(entry.action)
    return match
