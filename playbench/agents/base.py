"""The agent protocol: what plays one seat of a game for the runner.

An agent is made for a game (it reads the game's spec: rules, scoring, command grammar)
and reset with a seed at the start of each episode, then plays turns: it answers each
view (:meth:`Match.view`, or a session answer, which carries the same fields) with an
action, a command or, for Cogcrawl, a seat reply. It plays on a :class:`Table`: a match
in this process, or a session on a playbench server. A scripted agent
(:class:`ScriptedAgent`) only answers a view with an action; an agent that needs to see
what its answer did within the turn (the language model, which retries a refused reply
once and then hands the turn to the game's bot) plays the whole turn itself.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Action, Game
from playbench.core.match import Match, StepResult


class AgentError(PlaybenchError):
    """An agent cannot be made or cannot reach what it plays with (no bot for a game, no
    key, an endpoint or server that does not answer)."""


class Table(Protocol):
    """Where an episode is played: the same view and results in-process and remotely."""

    @property
    def over(self) -> bool: ...

    @property
    def match(self) -> Match | None:
        """The game in this process (for its pictures), or None for a remote table."""

    def view(self) -> JSON:
        """The game's view (the fields of :meth:`Match.view`)."""

    def play(self, action: Any) -> StepResult:
        """Apply one JSON action."""

    def commands(self, texts: list[str]) -> list[StepResult]:
        """Apply text commands in order, stopping after the first refusal or when the game
        ends; one result per command tried."""


@dataclass(slots=True)
class Turn:
    """What one agent turn did: a result per action or command tried, and, for the
    replay, what the agent said about it (``note``: raw replies, say, calls; None for a
    scripted agent, which says nothing)."""

    results: list[StepResult]
    note: JSON | None = None


class Agent(ABC):
    """One seat: reset per episode, then asked for a turn until the game ends."""

    #: the name given to ``playbench run --agent``
    name: ClassVar[str]

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def reset(self, seed: int) -> None:
        """Start an episode: forget the last one; randomness comes from ``seed`` only."""

    @abstractmethod
    def turn(self, table: Table) -> Turn:
        """Play one turn on ``table``."""

    def stats(self) -> JSON | None:
        """Figures about this episode's play that a run reports (the model's calls and
        tokens), or None for an agent that has none."""
        return None

    def restore(self, memory: JSON) -> None:
        """Continue an episode resumed from its replay with what the agent had after its
        last recorded turn (``memory``, as its turn notes keep it); an agent that keeps
        nothing across turns has nothing to restore."""
        return None

    def journal_calls(self, write: Callable[[JSON], None] | None) -> None:
        """Have each call the agent makes written with ``write`` as it is asked and as it
        is answered (an episode's journal), so calls a stop cut off are still counted; an
        agent that makes no calls writes nothing."""
        return None

    def review(self, view: JSON) -> tuple[int, str]:
        """A rating from 1 to 10 and a review of the game just played, for a server's
        ``finish``; a scripted agent gives the neutral rating."""
        return NEUTRAL_RATING, f"played by the {self.name} agent of playbench run"

    def close(self) -> None:
        """Release what the agent holds (connections); it is not used again."""
        return None


class ScriptedAgent(Agent):
    """An agent that answers each view with one action, the bot interface."""

    @abstractmethod
    def act(self, view: JSON) -> Action:
        """The JSON action to play on this view (a seat reply for Cogcrawl)."""

    def turn(self, table: Table) -> Turn:
        return Turn([table.play(self.act(table.view()))])


#: the rating a scripted agent gives a finished game (it has no opinion of it)
NEUTRAL_RATING = 5
