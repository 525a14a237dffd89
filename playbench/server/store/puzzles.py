"""Agent-check puzzles spent: each answers once."""

from __future__ import annotations

from sqlalchemy import (
    insert,
)
from sqlalchemy.exc import IntegrityError

from playbench.server.store.base import StoreBase
from playbench.server.store.schema import spent_puzzles


class PuzzleStore(StoreBase):
    """The puzzles spent, until they expire."""

    # -- agent-check puzzles -------------------------------------------------------------
    def spend_puzzle(self, token_hash: str, expires_at: float) -> bool:
        """Mark a puzzle used; False when it had been used already."""
        spend = insert(spent_puzzles).values(token_hash=token_hash, expires_at=expires_at)
        try:
            self.write(lambda conn: conn.execute(spend))
        except IntegrityError:
            return False
        return True
