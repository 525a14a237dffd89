"""Gem Swap: the match-3 game of swapping gems into lines, cascades and specials."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from playbench.core import register
from playbench.core.game import JSON, Action, Game, Outcome, Spec, trusted_or_checked
from playbench.core.seat import SeatGuide
from playbench.games.gemswap import commands, rules, view
from playbench.games.gemswap.prompt import GemSwapSeat
from playbench.games.gemswap.spec import SPEC
from playbench.games.gemswap.state import SLUG, GemState, decode, decode_trusted, encode


class GemSwap(Game[GemState]):
    """Gem Swap, a match-3 game on an 8x8 board.

    Description:
        Swap two neighbouring gems so that 3 or more of one colour line up in a row or
        column; they clear, the gems above fall and new ones drop in from the seeded
        generator, and new lines clear again in cascades. Matches of 4, L/T/+ shapes and
        straight 5s make line blasters, area bombs and colour bombs.

    Actions:
        ``{"command": text}`` with text ``swap C4 right`` (or ``up``/``down``/``left``),
        ``swap C4 D4``, ``hint``, ``moves``, ``select C4`` or ``deselect``. Legal
        actions are every accepted swap in the normal form ``swap A1 right`` /
        ``swap A1 down`` (board order, each pair once), then ``hint`` and ``moves``.

    Observation:
        ``board`` (8 rows of 8 gem tokens ``R``, ``R-``, ``R|``, ``R+``, ``@``),
        ``movesLeft``, ``movesMade``, ``score``, ``selected`` and ``gameOver``. The
        generator, and so every gem still to drop in, stays hidden.

    Scoring:
        10 a cleared gem; creating a line blaster / area bomb / colour bomb adds
        50 / 100 / 200, setting one off 50 / 80 / 150, two colour bombs 500; cascade
        step k counts k times. ``hint`` costs 50, even below a score of 50 (the score
        may go below 0). Progress is the score over 10,000, clamped to 0..1.

    Termination:
        After the 30th accepted swap.
    """

    slug: ClassVar[str] = SLUG
    name: ClassVar[str] = "Gem Swap"
    genre: ClassVar[str] = "match-3"
    score_can_fall: ClassVar[bool] = True
    step_cap: ClassVar[int] = 500

    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> GemState:
        return rules.new(seed, options)

    def legal_actions(self, state: GemState) -> list[Action]:
        return rules.legal_actions(state)

    def legal_swaps(self, state: GemState) -> list[Action]:
        """Only the swap actions of :meth:`legal_actions`, in the same order."""
        return rules.swap_actions(state)

    def step(self, state: GemState, action: Action) -> Outcome[GemState]:
        return rules.step(state, action)

    def score(self, state: GemState) -> int:
        return state.score

    def is_over(self, state: GemState) -> bool:
        return state.over

    def progress(self, state: GemState) -> float:
        return view.progress(state)

    def observe(self, state: GemState) -> JSON:
        return view.observe(state)

    def render(self, state: GemState) -> str:
        return view.render(state)

    def spec(self) -> Spec:
        return SPEC

    def seat_guide(self) -> SeatGuide:
        return GemSwapSeat(self)

    def parse_command(self, text: str) -> Action:
        return commands.parse_command(text)

    def command_text(self, action: Action) -> str:
        return commands.command_text(action)

    def to_json(self, state: GemState) -> JSON:
        return encode(state)

    def from_json(self, data: Any) -> GemState:
        return decode(data)

    def from_trusted_json(self, data: Any) -> GemState:
        return trusted_or_checked(decode_trusted, decode, data)


register(GemSwap())
