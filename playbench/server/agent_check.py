"""The agent check: a short arithmetic puzzle that ``act`` and ``finish`` need answered.

A puzzle is signed, not stored: its token holds a nonce, its expiry and the session it was
issued to, a seal (HMAC-SHA256 under a server key) over those, and a tag over those and
the answer, so the server checks an answer without remembering the puzzle and nobody can
read the answer out of the token. Issuing a puzzle writes nothing; answering a genuine one
stores only that it was used (single use: right or wrong, it is spent), until it expires.

A puzzle answers only for the session it was issued to, and only a plain whole number
answers it (``"2168"`` or ``2168``; not ``"2_168"``, ``"+2168"`` or ``"02168"``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from datetime import UTC, datetime

from playbench.server.store import SpentPuzzle, Storage, token_hash

NONCE_BYTES = 12
TAG_BYTES = 16
OPERAND_LOW = 2
OPERAND_HIGH = 99
UNBOUND = "-"
CANONICAL_INTEGER = re.compile(r"0|-?[1-9][0-9]{0,17}")
TOKEN = re.compile(
    r"([A-Za-z0-9_-]{16}\.[0-9]{1,12}\.(?:[0-9a-f]{1,64}|-))\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})"
)
UNKNOWN = "agent check token unknown: it is not a puzzle this server issued"
HOW = (
    "Send the token as header X-Agent-Check and the answer as header X-Agent-Answer "
    "(or body fields agent_check and agent_answer) with act or finish of the session that "
    "received it. One use, short-lived; the answer is a plain whole number."
)


USED = "agent check token already used; each puzzle answers once"


class AgentCheckFailed(Exception):
    """The answer was missing, wrong, expired, reused or for another puzzle or session."""


class AnswerRefused(AgentCheckFailed):
    """A genuine, fresh puzzle of this session answered wrong: it is spent (``spend``),
    right or wrong, before the refusal is told."""

    def __init__(self, message: str, spend: SpentPuzzle) -> None:
        super().__init__(message)
        self.spend = spend


def _operand() -> int:
    return OPERAND_LOW + secrets.randbelow(OPERAND_HIGH - OPERAND_LOW + 1)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class PuzzleSigner:
    """Issues and checks puzzles under one secret (derived from the server's key)."""

    def __init__(self, secret: bytes) -> None:
        self._key = hashlib.sha256(b"playbench agent check\0" + secret).digest()

    def _mac(self, text: str) -> str:
        digest = hmac.new(self._key, text.encode(), hashlib.sha256).digest()
        return _b64(digest[:TAG_BYTES])

    def issue(self, session_id: str | None, ttl_seconds: float) -> dict[str, object]:
        """A fresh puzzle for ``session_id`` (None: for no session); its public form."""
        a, b, c = _operand(), _operand(), _operand()
        expires_at = int(time.time() + ttl_seconds)
        body = f"{_b64(secrets.token_bytes(NONCE_BYTES))}.{expires_at}.{session_id or UNBOUND}"
        return {
            "token": f"{body}.{self._mac(body)}.{self._mac(f'{body}={a + b * c}')}",
            "question": f"What is {a} + {b} * {c}?",
            "expiresIn": int(ttl_seconds),
            "expiresAt": datetime.fromtimestamp(expires_at, UTC).isoformat(timespec="seconds"),
            "how": HOW,
        }

    def check(self, session_id: str, token: str | None, answer: object) -> SpentPuzzle:
        """Every check of the puzzle ``token`` for ``session_id`` but its spending: the
        :class:`SpentPuzzle` to store in the same transaction as the work it admits (which
        fails if the puzzle was spent before). Writes nothing: a genuine puzzle of this
        session answered wrong is :class:`AnswerRefused`, which the caller spends
        (:func:`refusal`); any other failure is :class:`AgentCheckFailed` with the reason."""
        if not token:
            raise AgentCheckFailed(
                "agent check missing: send X-Agent-Check and X-Agent-Answer "
                "(the puzzle is in this session's last answer, or GET /api/v1/agent-check "
                "with the session's token)"
            )
        if answer is None or answer == "":
            raise AgentCheckFailed("agent check answer missing: send X-Agent-Answer")
        parts = TOKEN.fullmatch(token)
        if parts is None:
            raise AgentCheckFailed(UNKNOWN)
        body, seal, tag = parts.groups()
        _, expires, bound = body.split(".")
        if not hmac.compare_digest(self._mac(body), seal):
            raise AgentCheckFailed(UNKNOWN)
        if bound != session_id:
            raise AgentCheckFailed(
                "agent check token was not issued to this session: answer the puzzle in "
                "this session's last answer"
            )
        if time.time() > int(expires):
            raise AgentCheckFailed("agent check expired; answer the fresh puzzle")
        spend = SpentPuzzle(token_hash(token), float(expires))
        value = _as_int(answer)
        if value is not None and hmac.compare_digest(self._mac(f"{body}={value}"), tag):
            return spend
        if value is None:
            raise AnswerRefused(
                f"agent check answer {answer!r} is not a plain whole number "
                "(digits only: no sign, separator, spaces or leading zero)",
                spend,
            )
        raise AnswerRefused(f"agent check answer {answer!r} is wrong", spend)

    def verify(self, storage: Storage, session_id: str, token: str | None, answer: object) -> None:
        """:meth:`check` the puzzle and spend it in a transaction of its own."""
        try:
            spend = self.check(session_id, token, answer)
        except AnswerRefused as refused:
            spent = storage.spend_puzzle(refused.spend.token_hash, refused.spend.expires_at)
            raise refusal(refused, spent) from None
        if not storage.spend_puzzle(spend.token_hash, spend.expires_at):
            raise AgentCheckFailed(USED)


def refusal(refused: AnswerRefused, spent_now: bool) -> AgentCheckFailed:
    """What a wrong answer is told once its puzzle's spending was tried: the reason it is
    wrong, or that the puzzle had been used (a used puzzle gets no verdict on an answer)."""
    return refused if spent_now else AgentCheckFailed(USED)


def _as_int(answer: object) -> int | None:
    if type(answer) is int:
        return answer
    if isinstance(answer, str) and CANONICAL_INTEGER.fullmatch(answer):
        return int(answer)
    return None
