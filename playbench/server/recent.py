"""The sessions this process acted on lately, each with its match as its last act stored
it, so that the next act reads no row and parses no state.

An entry is a hint, never the truth: every step's ``UPDATE`` requires the version it was
computed from, and everything that changes a session moves its version on (an act of
another worker, ``finish``, closing as abandoned), so an entry gone stale fails its first
step as a conflict, and the act runs again from the stored row. A pruned session's step
updates no row, which is a conflict too. Used by the event loop only (no lock).
"""

from __future__ import annotations

from collections import OrderedDict

from playbench.core.match import Match
from playbench.server.store import SessionRow

#: entries kept, the least recently used dropped first
RECENT_SESSIONS = 4096


class Recent:
    """Sessions by their token's hash, least recently used dropped past ``size``."""

    def __init__(self, size: int = RECENT_SESSIONS) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[SessionRow, Match]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def take(self, token_hash: str) -> tuple[SessionRow, Match] | None:
        """The entry of ``token_hash``, removed: the act that takes it changes its match,
        and puts it back (:meth:`keep`) only once its steps are stored."""
        return self._entries.pop(token_hash, None)

    def keep(self, token_hash: str, row: SessionRow, match: Match) -> None:
        """Remember ``row`` as stored and ``match`` as the state it holds."""
        match.log.clear()  # an act reads only the state: the log would only grow
        self._entries[token_hash] = (row, match)
        self._entries.move_to_end(token_hash)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
