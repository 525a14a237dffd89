"""Agent-check puzzles spent: each answers once."""

from __future__ import annotations

from functools import partial

from sqlalchemy import (
    Connection,
    insert,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from playbench.server.store.base import StoreBase
from playbench.server.store.prepared import Prepared
from playbench.server.store.records import SpentPuzzle
from playbench.server.store.schema import spent_puzzles

#: mark a puzzle used unless it was: the row written, if any (psycopg gives no rowcount
#: for ON CONFLICT DO NOTHING), built once a dialect
ONCE = {
    module.dialect.name: Prepared(
        module.insert(spent_puzzles).on_conflict_do_nothing().returning(spent_puzzles.c.token_hash),
        ("token_hash", "expires_at"),
    )
    for module in (sqlite, postgresql)
}


def spend_once(conn: Connection, spend: SpentPuzzle) -> bool:
    """Mark ``spend`` used within ``conn``'s transaction; False (and nothing written)
    when it was used already."""
    values = {"token_hash": spend.token_hash, "expires_at": spend.expires_at}
    once = ONCE.get(conn.dialect.name)
    if once is not None:
        return bool(once.run(conn, values).fetchall())
    try:
        with conn.begin_nested():
            conn.execute(insert(spent_puzzles), values)
    except IntegrityError:
        return False
    return True


class PuzzleStore(StoreBase):
    """The puzzles spent, until they expire."""

    def spend_puzzle(self, token_hash: str, expires_at: float) -> bool:
        """Mark a puzzle used; False when it had been used already."""
        return self.write(partial(spend_once, spend=SpentPuzzle(token_hash, expires_at)))

    async def spend_puzzle_async(self, token_hash: str, expires_at: float) -> bool:
        """:meth:`spend_puzzle` for a coroutine."""
        return await self.write_async(
            partial(spend_once, spend=SpentPuzzle(token_hash, expires_at))
        )
