"""One episode played by the seat for a model that answers from outside: the doors for
training language models hand the seat's message to a trainer's model and send its reply
back, one reply per step.

:class:`SeatEpisode` drives :meth:`playbench.agents.llm.Seat.turn` as the runner and the
Inspect door do (the same prompts, reply reading, retry, fallback and turn budget); each
:class:`~playbench.agents.llm.Ask` the seat yields is the next observation, each reply
the :class:`~playbench.agents.llm.Answer` it is sent. Its log is a replay
(:meth:`SeatEpisode.replay`) that ``playbench verify`` accepts, and its reward is read by
replaying that log through :class:`~playbench.core.match.Match`
(:meth:`SeatEpisode.replayed`), as the Inspect door's scorer does.

A training door has no token counts of its own model, so the episode's budget is its
model turns (``max_turns``: every reply counts, retries included); a turn the model's
reply did not play twice is played by the seat's fallback, by default ``random`` here, so
that a reward credits the model's own play over chance (Cogcrawl's own rules keep its
delver).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from playbench.agents.base import Turn
from playbench.agents.llm import Answer, Ask, Budget, BudgetSpent, Seat, SeatSettings
from playbench.agents.llm.settings import RANDOM
from playbench.agents.llm.turn import Steps
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.runner.episode import LocalTable
from playbench.runner.inspect_log import Checked, check_episode, episode_replay

#: model turns an episode may take by default (the models suite's bound)
DEFAULT_MAX_TURNS = 300
#: actions an episode may take by default
DEFAULT_MAX_STEPS = 100_000
#: the seat's harness in the training doors: the seat's own, but a random fallback
TRAIN_SEAT = SeatSettings(fallback=RANDOM)


class EpisodeOver(PlaybenchError):
    """A reply sent to an episode that has ended."""


@dataclass(frozen=True, slots=True)
class Stepped:
    """What one reply did: the progress and score it gained and who played the turn it
    finished (``model``, the fallback, or empty while the turn waits on a retry)."""

    gained: float
    scored: int
    played: str
    #: why the reply was not played, when it was not (the seat's own words)
    refused: str


class SeatEpisode:
    """A game's episode at the seat, one reply at a time (not thread-safe: one caller)."""

    def __init__(
        self,
        game: str | Game,
        seed: int,
        options: JSON | None = None,
        *,
        settings: SeatSettings = TRAIN_SEAT,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        max_steps: int = DEFAULT_MAX_STEPS,
        model: str | None = None,
    ) -> None:
        rules = get_game(game) if isinstance(game, str) else game
        self.game = rules
        self.model = model
        self.match = Match.start(rules, seed, options or None)
        self.table = LocalTable(self.match, max_steps)
        self.seat = Seat(rules, settings, Budget(max_turns=max_turns))
        self.seat.reset(seed)
        #: the budget that ended the episode, else None
        self.budget: str | None = None
        self.steps: Steps[Turn] | None = None
        #: the seat's standing request, None once the episode is over
        self.ask: Ask | None = None
        self.before = 0
        self.pending: list[JSON] = []
        self.start_progress = rules.progress(self.match.state)
        self._next_turn()

    # -- looking -----------------------------------------------------------------------
    @property
    def seed(self) -> int:
        assert self.match.seed is not None
        return self.match.seed

    @property
    def options(self) -> JSON:
        return self.match.options or {}

    @property
    def done(self) -> bool:
        return self.ask is None

    @property
    def system(self) -> str:
        return self.seat.system

    @property
    def prompt(self) -> str:
        """The seat's message awaiting a reply: the turn's board, notes and moves, or why
        the last reply was not used; once over, how the episode ended."""
        if self.ask is None:
            ended = f"by its {self.budget} budget" if self.budget else "the game is over"
            return f"The episode has ended ({ended}): score {self.match.score}."
        content = self.ask.messages[-1]["content"]
        return content if isinstance(content, str) else json.dumps(content)

    @property
    def progress(self) -> float:
        return self.game.progress(self.match.state)

    def view(self) -> JSON:
        return self.match.view()

    # -- playing -----------------------------------------------------------------------
    def reply(self, text: str) -> Stepped:
        """The model's reply to the standing request; :class:`EpisodeOver` once ended."""
        if self.ask is None or self.steps is None:
            raise EpisodeOver("the episode is over; reset to play another")
        progress, score = self.progress, self.match.score
        played = refused = ""
        try:
            self.ask = self.steps.send(Answer(text=text))
            if self.ask.purpose == "retry":
                refused = self._last_reason()
        except StopIteration as finished:
            turn: Turn = finished.value
            played = str((turn.note or {}).get("played", ""))
            self._file(turn.note)
            self._next_turn()
        except BudgetSpent as spent:
            self.budget = spent.budget
            self._file(spent.turn.note)
            self.ask = None
        return Stepped(self.progress - progress, self.match.score - score, played, refused)

    def commands(self, moves: list[Any]) -> Stepped:
        """A list of moves in the reply's form, as the reply ``{"commands": moves}``
        (``actions`` where the game's replies carry objects) is read."""
        return self.reply(json.dumps({self.seat.guide.reply_key: moves}))

    def _last_reason(self) -> str:
        assert self.ask is not None
        content = self.ask.messages[-1]["content"]
        return content if isinstance(content, str) else ""

    def _next_turn(self) -> None:
        """Begin the next turn at its first request, or end the episode."""
        self.ask = None
        while not self.table.over and self.budget is None:
            self.before = len(self.table.lines)
            steps = self.seat.turn(self.table)
            try:
                self.ask = next(steps)
            except BudgetSpent as spent:
                self.budget = spent.budget
                self._file(spent.turn.note)
                return
            self.steps = steps
            return

    def _file(self, note: JSON | None) -> None:
        """File a turn's note on the first line it applied (or the next turn's)."""
        lines = self.table.lines
        if note:
            self.pending.append(note)
        if self.pending and len(lines) > self.before:
            lines[self.before].setdefault("turns", []).extend(self.pending)
            self.pending = []

    # -- the record ----------------------------------------------------------------------
    def replay(self) -> list[JSON]:
        """The replay file's lines, header to end, as ``playbench verify`` reads them."""
        return episode_replay(self.match, self.table.lines, self.model, self.budget)

    def replayed(self) -> Checked:
        """The episode rebuilt from its seed and its replay's actions with
        :meth:`Match.replay`, held to the score and fingerprint its end records."""
        return replay_check(self.replay())

    def reward(self) -> float:
        """The progress the episode gained, read from its replayed log."""
        return self.replayed().progress - self.start_progress


def replay_check(replay: list[JSON]) -> Checked:
    """A replay's episode rebuilt through :class:`Match` from its own header's game, seed
    and options (:class:`~playbench.runner.inspect_log.InspectLogError` names a line
    that does not replay to what it records)."""
    head = replay[0]
    metadata = {"game": head["game"], "seed": head["seed"], "options": head["options"]}
    return check_episode(metadata, {"replay": replay})
