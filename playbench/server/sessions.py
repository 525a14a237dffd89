"""Sessions: a stored game played by text commands, one transaction per action.

The session's log holds every command sent, its parsed action (or none when it did not
parse) and what happened; replaying the logged actions from the seed and options gives
the stored state exactly (:func:`replay`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from playbench.core.errors import CommandError
from playbench.core.game import JSON, Game, canonical_json
from playbench.server import agent_check
from playbench.server.services import Services
from playbench.server.storage import (
    LogEntry,
    SessionRow,
    StepRecord,
    VersionConflict,
    token_hash,
)

TOKEN_BYTES = 32
SESSION_ID_BYTES = 8


class BatchConflict(VersionConflict):
    """Another request moved the session on while a batch of commands was being applied;
    ``applied`` are the commands of this batch that were stored before that."""

    def __init__(self, session_id: str, applied: list[str], total: int) -> None:
        super().__init__(session_id)
        self.applied = applied
        self.total = total

    def message(self) -> str:
        if not self.applied:
            return "the session changed under this request (another act ran first); retry"
        done = ", ".join(repr(command) for command in self.applied)
        return (
            f"another act changed the session first: {len(self.applied)} of your "
            f"{self.total} commands were applied before that ({done}); "
            "GET the state before sending the rest"
        )


def new_session(
    services: Services, game: Game, seed: int, options: dict[str, Any]
) -> tuple[SessionRow, str]:
    """Start a game and store it; the stored row and the secret token for it."""
    state = game.new(seed, options)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = services.storage.create_session(
        session_id=secrets.token_hex(SESSION_ID_BYTES),
        token_hash=token_hash(token),
        slug=game.slug,
        seed=seed,
        options=options,
        state=canonical_json(game.to_json(state)),
        score=game.score(state),
        over=game.is_over(state),
    )
    return row, token


def load_state(game: Game, row: SessionRow) -> Any:
    return game.from_json(json.loads(row.state))


def view(services: Services, game: Game, row: SessionRow, state: Any = None) -> JSON:
    """What every session response shows, with the next agent-check puzzle."""
    if state is None:
        state = load_state(game, row)
    return {
        "sessionId": row.id,
        "slug": row.slug,
        "seed": row.seed,
        "observation": game.observe(state),
        "board": game.render(state),
        "legalActions": game.legal_actions(state),
        "score": game.score(state),
        "moves": row.moves,
        "gameOver": game.is_over(state),
        "finished": row.finished,
        "agentCheck": agent_check.issue(services.storage, services.settings.puzzle_ttl_seconds),
    }


@dataclass(frozen=True, slots=True)
class ActReport:
    row: SessionRow
    state: Any
    results: list[JSON]


def act(services: Services, game: Game, row: SessionRow, texts: list[str]) -> ActReport:
    """Apply commands in order, each in its own transaction, stopping at the first refusal.

    Raises :class:`BatchConflict` when another request moved the session on first;
    commands applied before that stay applied, and the error names them.
    """
    storage = services.storage
    state = load_state(game, row)
    state_text = row.state
    version = row.version
    results: list[JSON] = []

    def record_step(record: StepRecord) -> int:
        try:
            return storage.record_step(row, version, record)
        except VersionConflict:
            applied = [result["command"] for result in results]
            raise BatchConflict(row.id, applied, len(texts)) from None

    for text in texts:
        try:
            action: Any = game.parse_command(text)
        except CommandError as error:
            record = StepRecord(
                command=text,
                action=None,
                parsed=False,
                ok=False,
                reward=0,
                reason=str(error),
                state=state_text,
                score=game.score(state),
                over=game.is_over(state),
            )
            version = record_step(record)
            results.append(_result(text, False, str(error), 0, []))
            break
        outcome = game.step(state, action)
        state = outcome.state
        state_text = canonical_json(game.to_json(state))
        record = StepRecord(
            command=text,
            action=action,
            parsed=True,
            ok=outcome.ok,
            reward=outcome.reward,
            reason=outcome.reason,
            state=state_text,
            score=game.score(state),
            over=game.is_over(state),
        )
        version = record_step(record)
        results.append(
            _result(text, outcome.ok, outcome.reason, outcome.reward, list(outcome.events))
        )
        if not outcome.ok:
            break
    return ActReport(row=storage.reload(row.id), state=state, results=results)


def _result(text: str, ok: bool, reason: str, reward: int, events: list[JSON]) -> JSON:
    result: JSON = {"command": text, "ok": ok, "reward": reward, "events": events}
    if not ok:
        result["reason"] = reason
    return result


def replay(game: Game, row: SessionRow, log: list[LogEntry]) -> Any:
    """The state reached by stepping every logged action from the session's seed."""
    state = game.new(row.seed, row.options)
    for entry in log:
        if entry.action is not None:
            state = game.step(state, entry.action).state
    return state
