"""The match kernel: a running game of any registered game, the one place where a step
result is carried forward.

Every door (the stateless route, sessions, the terminal, the runner, Gymnasium, MCP,
the browser) is a loop over :class:`Match`::

    match = Match.start("delvewick", seed=7)
    result = match.command("left")        # or match.play({"type": "move", "dir": "left"})
    match.view()                           # what every door serves
    again = Match.replay("delvewick", 7, None, match.log)
    assert again.fingerprint() == match.fingerprint()

A step that the game accepts, or a refusal that its rules count (``Outcome.counted``:
Cogcrawl counts a reply that did not parse), moves the match on and is logged; any other
refusal leaves the match as it was. A text command that does not parse is a refusal
with the parser's reason, never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playbench.core.errors import CommandError, StateError
from playbench.core.fields import json_type
from playbench.core.game import JSON, Action, Game, Outcome
from playbench.core.registry import get_game

#: the fields of :meth:`Match.view`, in order: what every door serves
VIEW_FIELDS = (
    "game",
    "observation",
    "board",
    "legalActions",
    "commands",
    "score",
    "gameOver",
    "progress",
    "moves",
)
_NEEDS_LEGAL = frozenset({"legalActions", "commands"})


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one action or command did to a match.

    ``ok`` is the game's verdict; ``advanced`` says whether the match moved on (an
    accepted action, or a refusal the rules count); ``action`` is the parsed action
    (``None`` when a command did not parse); ``notice`` says in words what an accepted
    step left undone (Cogcrawl's dropped or cut-short reply entries), else is empty.
    """

    ok: bool
    reward: int = 0
    events: list[JSON] = field(default_factory=list)
    reason: str = ""
    advanced: bool = False
    action: Action | None = None
    notice: str = ""

    def to_json(self) -> JSON:
        """``ok``, ``reward`` and ``events``, ``reason`` when it was refused and ``notice``
        when the step left something undone."""
        data: JSON = {"ok": self.ok, "reward": self.reward, "events": list(self.events)}
        if not self.ok:
            data["reason"] = self.reason
        if self.notice:
            data["notice"] = self.notice
        return data


class Match:
    """A game in play: its state, the actions that moved it on, and its view."""

    __slots__ = ("game", "log", "moves", "options", "seed", "state")

    def __init__(
        self,
        game: Game,
        state: Any,
        seed: int | None = None,
        options: JSON | None = None,
        log: list[Action] | None = None,
    ) -> None:
        """Wrap a state already reached (the stateless route opens one from its seal;
        ``seed`` and ``log`` are then unknown). Use :meth:`start` for a new game."""
        self.game = game
        self.state = state
        self.seed = seed
        self.options = options
        #: the actions that moved the match on, in order: a replay's whole input
        self.log: list[Action] = [] if log is None else log
        #: how many actions were applied through this match object
        self.moves = len(self.log)

    # -- making one ------------------------------------------------------------------------
    @classmethod
    def start(cls, game: str | Game, seed: int, options: JSON | None = None) -> Match:
        """A new game. Raises :class:`OptionsError` for a bad seed or options."""
        rules = get_game(game) if isinstance(game, str) else game
        return cls(rules, rules.new(seed, options), seed, options)

    @classmethod
    def replay(cls, game: str | Game, seed: int, options: JSON | None, log: list[Action]) -> Match:
        """The match that ``log`` leads to from the seed: every entry must move it on
        (it is a log of a match), else :class:`StateError` names the entry."""
        match = cls.start(game, seed, options)
        for index, action in enumerate(log):
            result = match.play(action)
            if not result.advanced:
                raise StateError(
                    f"log entry {index} ({action!r}) was refused on replay: {result.reason}"
                )
        return match

    # -- playing -----------------------------------------------------------------------------
    def play(self, action: Any) -> StepResult:
        """Apply a JSON action (anything a client sent; a bad one is a refusal)."""
        return self._carry(action, self.game.step(self.state, action))

    def command(self, text: Any) -> StepResult:
        """Apply a text command of the game's grammar."""
        if not isinstance(text, str):
            return StepResult(ok=False, reason=f"a command must be text, got {json_type(text)}")
        try:
            action = self.game.parse_command(text)
        except CommandError as error:
            return StepResult(ok=False, reason=str(error))
        return self.play(action)

    def _carry(self, action: Any, outcome: Outcome) -> StepResult:
        notice = ""
        if outcome.advances:
            self.state = outcome.state
            self.log.append(action)
            self.moves += 1
            if outcome.ok:
                notice = self.game.notice(outcome.state, action)
        return StepResult(
            ok=outcome.ok,
            reward=outcome.reward,
            events=list(outcome.events),
            reason=outcome.reason,
            advanced=outcome.advances,
            action=action,
            notice=notice,
        )

    # -- looking -----------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.is_over(self.state)

    @property
    def score(self) -> int:
        return self.game.score(self.state)

    def legal_commands(self) -> list[str]:
        """The command text of each legal action, in the same order."""
        game = self.game
        return [game.command_text(action) for action in game.legal_actions(self.state)]

    def view(self, fields: Sequence[str] = VIEW_FIELDS) -> JSON:
        """What every door serves: JSON-ready, without hidden information. A door that
        serves only some of the fields (the stateless route) names them, in its order."""
        game, state = self.game, self.state
        legal = game.legal_actions(state) if _NEEDS_LEGAL.intersection(fields) else []
        view: JSON = {}
        for name in fields:
            if name == "game":
                view[name] = game.slug
            elif name == "observation":
                view[name] = game.observe(state)
            elif name == "board":
                view[name] = game.render(state)
            elif name == "legalActions":
                view[name] = legal
            elif name == "commands":
                view[name] = [game.command_text(action) for action in legal]
            elif name == "score":
                view[name] = game.score(state)
            elif name == "gameOver":
                view[name] = game.is_over(state)
            elif name == "progress":
                view[name] = game.progress(state)
            elif name == "moves":
                view[name] = self.moves
            else:
                raise ValueError(f"no view field {name!r}; the fields are {VIEW_FIELDS}")
        return view

    def fingerprint(self) -> str:
        """A short stable hash of the whole state: equal for a match and its replay."""
        return self.game.fingerprint(self.state)

    def to_json(self) -> JSON:
        """The whole state, hidden parts included (for sealing or storing)."""
        return self.game.to_json(self.state)
