"""``llm``: the :class:`~playbench.agents.llm.turn.Seat` driven by this process's
:class:`~playbench.agents.llm.endpoint.Endpoint` for one episode at a time.

Many episodes play at once in one process, each with its own agent, all sharing the
endpoint's connections and throttle (``playbench run --concurrency``).
"""

from __future__ import annotations

from collections.abc import Callable

from playbench.agents.base import Agent, Table, Turn
from playbench.agents.llm.endpoint import DEFAULT_CONCURRENCY, endpoint_for
from playbench.agents.llm.settings import LlmSettings
from playbench.agents.llm.turn import ERROR, TIMEOUT, Answer, Ask, Budget, Seat, drive
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
        self._journal: Callable[[JSON], None] | None = None

    def reset(self, seed: int) -> None:
        self.seat.reset(seed)

    def restore(self, memory: JSON) -> None:
        self.seat.restore(memory)

    def stats(self) -> JSON:
        return self.seat.counts.as_json()

    def journal_calls(self, write: Callable[[JSON], None] | None) -> None:
        self._journal = write

    def turn(self, table: Table) -> Turn:
        return drive(self.seat.turn(table), self._call)

    def review(self, view: JSON) -> tuple[int, str]:
        return drive(self.seat.review(view), self._call)

    def _call(self, ask: Ask) -> Answer:
        """One call, journaled as it is asked and as it is answered (when a journal is
        set): a call the server answered after a kill is still counted on resume."""
        write = self._journal
        if write is not None:
            write({"ask": ask.purpose})
        answer = self.endpoint.call(ask)
        if write is not None:
            write({"answer": journal_entry(answer)})
        return answer


def journal_entry(answer: Answer) -> JSON:
    """What the journal keeps of an answer: its tokens, or why it failed."""
    if answer.text is None:
        return {"outcome": TIMEOUT if answer.timed_out else ERROR, "error": answer.failure}
    return {"promptTokens": answer.prompt_tokens, "completionTokens": answer.completion_tokens}
