"""What the training doors' tests share: scripted replies of legal moves, drawn seeds."""

from __future__ import annotations

import json
import random
from typing import Any

from playbench.core.game import JSON, Game

#: seeds are drawn below this (the games take any seed; small ones keep ids readable)
SEED_LIMIT = 2**31


def drawn_seeds(count: int) -> list[int]:
    """``count`` different seeds, drawn afresh for every run."""
    return random.sample(range(SEED_LIMIT), count)


def legal_reply(game: Game, view: JSON, pick: random.Random) -> str:
    """A reply that plays one of the view's legal moves (in the reply's form)."""
    guide = game.seat_guide()
    moves = guide.moves(view)
    return json.dumps({guide.reply_key: [pick.choice(moves)], "notes": "scripted"})


def moves_of(game: Game, view: JSON, pick: random.Random) -> list[Any]:
    guide = game.seat_guide()
    return [pick.choice(guide.moves(view))]
