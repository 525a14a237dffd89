"""``random``: a uniformly random legal action, from the episode's seed."""

from __future__ import annotations

from playbench.agents.base import ScriptedAgent
from playbench.core.game import JSON, Action
from playbench.core.rng import Rng

#: the generator stream of the random agent, apart from any stream a game draws from
RANDOM_STREAM = 0x52414E44


class RandomAgent(ScriptedAgent):
    """Each turn, one of the view's legal actions, every one equally likely."""

    name = "random"
    rng: Rng

    def reset(self, seed: int) -> None:
        self.rng = Rng.from_seed(seed, RANDOM_STREAM)

    def act(self, view: JSON) -> Action:
        legal = view["legalActions"]
        if not legal:
            raise ValueError("the view offers no legal action")
        return legal[self.rng.below(len(legal))]
