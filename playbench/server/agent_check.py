"""The agent check: a short arithmetic puzzle that ``act`` and ``finish`` need answered.

A puzzle is a random token (192 bits) and a question with an integer answer. Only the
token's hash is stored; a puzzle can be answered once (right or wrong, it is spent) and
only within its time limit. Every session response carries the next puzzle.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime

from playbench.server.storage import Storage, token_hash

TOKEN_BYTES = 24
OPERAND_LOW = 2
OPERAND_HIGH = 99
HOW = (
    "Send the token as header X-Agent-Check and the answer as header X-Agent-Answer "
    "(or body fields agent_check and agent_answer) with act or finish. One use, short-lived."
)


class AgentCheckFailed(Exception):
    """The answer was missing, wrong, expired, reused or for an unknown puzzle."""


def _operand() -> int:
    return OPERAND_LOW + secrets.randbelow(OPERAND_HIGH - OPERAND_LOW + 1)


def issue(storage: Storage, ttl_seconds: float) -> dict[str, object]:
    """Store a fresh puzzle; its public form (token, question, expiry, how to answer)."""
    a, b, c = _operand(), _operand(), _operand()
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires_at = time.time() + ttl_seconds
    storage.add_puzzle(token_hash(token), a + b * c, expires_at)
    return {
        "token": token,
        "question": f"What is {a} + {b} * {c}?",
        "expiresIn": int(ttl_seconds),
        "expiresAt": datetime.fromtimestamp(expires_at, UTC).isoformat(timespec="seconds"),
        "how": HOW,
    }


def verify(storage: Storage, token: str | None, answer: object) -> None:
    """Spend the puzzle ``token``; raise :class:`AgentCheckFailed` with the reason."""
    if not token:
        raise AgentCheckFailed(
            "agent check missing: send X-Agent-Check and X-Agent-Answer "
            "(get a puzzle from GET /api/v1/agent-check or the last response)"
        )
    if answer is None or answer == "":
        raise AgentCheckFailed("agent check answer missing: send X-Agent-Answer")
    claim = storage.take_puzzle(token_hash(token))
    if not claim.known:
        raise AgentCheckFailed("agent check token unknown")
    if not claim.fresh:
        raise AgentCheckFailed("agent check token already used; each puzzle answers once")
    if time.time() > claim.expires_at:
        raise AgentCheckFailed("agent check expired; answer the fresh puzzle")
    if _as_int(answer) != claim.answer:
        raise AgentCheckFailed(f"agent check answer {answer!r} is wrong")


def _as_int(answer: object) -> int | None:
    if type(answer) is int:
        return answer
    if isinstance(answer, str):
        try:
            return int(answer.strip())
        except ValueError:
            return None
    return None
