"""Registered players: a name, its keys for comparison, the hash of its key."""

from __future__ import annotations

import time

from sqlalchemy import (
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError

from playbench.server.names import look_key
from playbench.server.store.base import StoreBase
from playbench.server.store.records import PlayerRow
from playbench.server.store.schema import players


class PlayerStore(StoreBase):
    """Players' names and key hashes."""

    # -- players -----------------------------------------------------------------------
    def create_player(self, name: str, name_key: str, key_hash: str) -> bool:
        """Register a player; False when the name key or its look (its confusable
        skeleton) is taken."""
        values = {
            "name_key": name_key,
            "name": name,
            "key_hash": key_hash,
            "look_key": look_key(name),
        }
        add = insert(players).values(created_at=time.time(), **values)
        try:
            self.write(lambda conn: conn.execute(add))
        except IntegrityError:
            return False
        return True

    def player(self, name_key: str) -> PlayerRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(players).where(players.c.name_key == name_key)).first()
        return PlayerRow(row.name, row.name_key, row.key_hash) if row is not None else None
