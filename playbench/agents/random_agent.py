"""``random``: a uniformly random legal action, from the episode's seed, drawn from the
moves a model's seat is offered (:meth:`~playbench.core.seat.SeatGuide.moves`), so that
"beats random" compares play, not the harness: Gem Swap's ``hint`` and ``moves``,
Chimestep's hops off the rim and Cogcrawl's ``up`` out of level 1 are never drawn (a view
whose every legal action is left out offers them all)."""

from __future__ import annotations

from typing import Any

from playbench.agents.base import ScriptedAgent
from playbench.core.game import JSON, Action, Game
from playbench.core.rng import Rng
from playbench.core.seat import SeatGuide

#: the generator stream of the random agent, apart from any stream a game draws from
RANDOM_STREAM = 0x52414E44


def offered_actions(guide: SeatGuide, view: JSON) -> list[Any]:
    """The view's legal actions a seat is offered, in the view's order."""
    legal = view["legalActions"]
    moves = guide.moves(view)
    if guide.raw_key is not None:
        kept = [a for a in legal if all(entry in moves for entry in a.get("actions", ()))]
    else:
        texts = set(moves)
        kept = [a for a, text in zip(legal, view["commands"], strict=True) if text in texts]
    return kept or legal


class RandomAgent(ScriptedAgent):
    """Each turn, one of the offered legal actions, every one equally likely."""

    name = "random"
    rng: Rng

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.guide = game.seat_guide()

    def reset(self, seed: int) -> None:
        self.rng = Rng.from_seed(seed, RANDOM_STREAM)

    def act(self, view: JSON) -> Action:
        legal = offered_actions(self.guide, view)
        if not legal:
            raise ValueError("the view offers no legal action")
        return legal[self.rng.below(len(legal))]
