"""How an episode ended: ``won``, ``lost``, ``over`` (ended with neither, as an endless
game or a score attack does) or ``truncated`` (cut by ``--max-steps``). The game says
which of the first three a finished run is (:meth:`~playbench.core.game.Game.ending`)."""

from __future__ import annotations

from typing import Any

from playbench.core.game import ENDINGS, Game

TRUNCATED = "truncated"
OUTCOMES = (*ENDINGS, TRUNCATED)


def outcome_of(game: Game, state: Any, over: bool) -> str:
    """The outcome of a run of ``game`` that stopped in ``state``."""
    if not over:
        return TRUNCATED
    ending = game.ending(state)
    if ending not in ENDINGS:
        raise ValueError(f"{game.slug}: ending() gave {ending!r}, not one of {ENDINGS}")
    return ending
