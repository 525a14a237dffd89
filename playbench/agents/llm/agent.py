"""``llm``: the :class:`~playbench.agents.llm.turn.Seat` driven by this process's
:class:`~playbench.agents.llm.endpoint.Endpoint` for one episode at a time.

Many episodes play at once in one process, each with its own agent, all sharing the
endpoint's connections and throttle (``playbench run --concurrency``).
"""

from __future__ import annotations

from playbench.agents.base import Agent, Table, Turn
from playbench.agents.llm.endpoint import DEFAULT_CONCURRENCY, endpoint_for
from playbench.agents.llm.settings import LlmSettings
from playbench.agents.llm.turn import Budget, Seat, drive
from playbench.core.game import JSON, Game


class LlmAgent(Agent):
    """A model on an OpenAI-compatible endpoint, with a fallback for failed turns."""

    name = "llm"

    def __init__(
        self,
        game: Game,
        settings: LlmSettings,
        budget: Budget | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        super().__init__(game)
        settings.check()
        self.settings = settings
        self.seat = Seat(game, settings.seat, budget)
        self.endpoint = endpoint_for(settings, concurrency)

    def reset(self, seed: int) -> None:
        self.seat.reset(seed)

    def restore(self, memory: JSON) -> None:
        self.seat.restore(memory)

    def stats(self) -> JSON:
        return self.seat.counts.as_json()

    def turn(self, table: Table) -> Turn:
        return drive(self.seat.turn(table), self.endpoint.call)

    def review(self, view: JSON) -> tuple[int, str]:
        return drive(self.seat.review(view), self.endpoint.call)
