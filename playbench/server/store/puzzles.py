"""Agent-check puzzles spent: each answers once."""

from __future__ import annotations

from sqlalchemy import (
    Connection,
    insert,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from playbench.server.store.base import StoreBase
from playbench.server.store.records import SpentPuzzle
from playbench.server.store.schema import spent_puzzles


def spend_once(conn: Connection, spend: SpentPuzzle) -> bool:
    """Mark ``spend`` used within ``conn``'s transaction; False (and nothing written)
    when it was used already."""
    values = {"token_hash": spend.token_hash, "expires_at": spend.expires_at}
    dialect = conn.dialect.name
    if dialect in ("sqlite", "postgresql"):
        once = (sqlite_insert if dialect == "sqlite" else postgresql_insert)(spent_puzzles)
        skipped = once.values(values).on_conflict_do_nothing()
        # the row it wrote, if any (psycopg gives no rowcount for ON CONFLICT DO NOTHING)
        return conn.execute(skipped.returning(spent_puzzles.c.token_hash)).first() is not None
    try:
        with conn.begin_nested():
            conn.execute(insert(spent_puzzles).values(values))
    except IntegrityError:
        return False
    return True


class PuzzleStore(StoreBase):
    """The puzzles spent, until they expire."""

    def spend_puzzle(self, token_hash: str, expires_at: float) -> bool:
        """Mark a puzzle used; False when it had been used already."""
        spend = insert(spent_puzzles).values(token_hash=token_hash, expires_at=expires_at)
        try:
            self.write(lambda conn: conn.execute(spend))
        except IntegrityError:
            return False
        return True
