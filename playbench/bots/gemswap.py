"""Gem Swap bots that play from the view only.

Both read the board from the observation and nothing else: the gems still to drop in
come from the game's hidden generator, so no bot steps the real state. The rules are
public, so a bot rebuilds the visible board as a model state whose generator is the
bot's own, seeded one: its refills are samples from the seven colours, as likely as the
real ones, but not the real ones.

- :class:`GreedyBot` (the simple baseline) plays the swap that scores most right away on
  the visible board: its points averaged over a few sampled refills (for the cascades
  they may bring); ties go to the first in the legal-action order.
- :class:`SearchBot` (``make_bot``) looks two swaps ahead over sampled refills: each
  swap is played on a few sampled futures (the same futures for every swap); on each,
  the best next swap is found by playing every legal swap once more; a swap is worth the
  sum over the futures of its points, the best next swap's points and what the board
  left behind is worth (specials waiting on it). The few best are valued again on more
  futures, and the best total is played.
"""

from __future__ import annotations

from typing import Any

from playbench.core.rng import Rng
from playbench.games.gemswap import rules
from playbench.games.gemswap.board import (
    AREA_BOMB,
    COLOR_BOMB,
    COLUMN_BLASTER,
    ROW_BLASTER,
    read_rows,
)
from playbench.games.gemswap.commands import MOVES, SWAP, parse
from playbench.games.gemswap.state import MOVES_PER_GAME, GemState

#: sampled futures per candidate swap (the search's first pass; the greedy baseline's)
SAMPLES = 2
GREEDY_SAMPLES = 3
#: how many of the best swaps are valued again on more futures, and on how many
FINALISTS = 5
EXTRA = 6
#: what a special waiting on the board is worth to the search, by kind: about the points
#: it brings when a later swap sets it off (its bonus and the gems its blast clears)
SPECIAL_VALUE = {ROW_BLASTER: 90, COLUMN_BLASTER: 90, AREA_BOMB: 120, COLOR_BOMB: 250}
#: what is left of a special's value with fewer moves to use it in, by moves left
SPECIAL_HORIZON = 3

Action = dict[str, Any]
Swap = tuple[int, int]


def model_of(view: dict[str, Any], rng: Rng) -> GemState:
    """The visible board as a state whose refills come from ``rng``."""
    observation = view["observation"]
    colors, kinds = read_rows(observation["board"])
    return GemState(colors, kinds, rng, observation["score"], observation["movesMade"])


def swaps_of(view: dict[str, Any]) -> list[Swap]:
    """The legal swaps the view offers, as cell pairs, in its order."""
    swaps = []
    for action in view["legalActions"]:
        command = parse(action["command"])
        if command.verb == SWAP:
            swaps.append((command.a, command.b))
    return swaps


def action_of(swap: Swap) -> Action:
    return {"command": rules.swap_text(*swap)}


def with_refills(state: GemState, future: int) -> GemState:
    """The same board with refills sampled from the generator state ``future``."""
    return GemState(state.colors, state.kinds, Rng(future), state.score, state.moves_made)


def immediate_points(state: GemState, swap: Swap, futures: list[int]) -> float:
    """The mean points of ``swap`` over sampled refills (``futures`` seed the samples)."""
    total = sum(rules.play_swap(with_refills(state, f), *swap).points for f in futures)
    return total / len(futures)


def fallback(view: dict[str, Any]) -> Action:
    """An action for a view with no legal swap (a finished game): the free ``moves``."""
    return {"command": MOVES}


class GreedyBot:
    """The baseline: the swap that scores most right away on the visible board (its
    points averaged over a few sampled refills, for the cascades they may bring)."""

    def __init__(self, seed: int = 0, samples: int = GREEDY_SAMPLES) -> None:
        self.rng = Rng.from_seed(seed)
        self.samples = samples

    def act(self, view: dict[str, Any]) -> Action:
        swaps = swaps_of(view)
        if not swaps:
            return fallback(view)
        futures = [self.rng.next_u64() for _ in range(self.samples)]
        state = model_of(view, self.rng)
        best = max(swaps, key=lambda swap: immediate_points(state, swap, futures))
        return action_of(best)


def board_value(state: GemState) -> float:
    """What the specials on a board are worth with the moves left to set them off."""
    left = MOVES_PER_GAME - state.moves_made
    if left <= 0:
        return 0.0
    kinds = state.kinds
    value = 0
    for kind, worth in SPECIAL_VALUE.items():
        value += kinds.count(kind) * worth
    return value * min(1.0, left / SPECIAL_HORIZON)


class SearchBot:
    """Two swaps ahead over sampled refills (see the module docstring).

    Every legal swap is valued on ``samples`` sampled futures (the same futures for every
    swap, so their differences are the swaps' own); the ``finalists`` best are valued on
    ``extra`` more, and the best mean is played.
    """

    def __init__(
        self, seed: int = 0, samples: int = SAMPLES, finalists: int = FINALISTS, extra: int = EXTRA
    ) -> None:
        self.rng = Rng.from_seed(seed)
        self.samples = samples
        self.finalists = finalists
        self.extra = extra

    def act(self, view: dict[str, Any]) -> Action:
        swaps = swaps_of(view)
        if not swaps:
            return fallback(view)
        if len(swaps) == 1:
            return action_of(swaps[0])
        state = model_of(view, self.rng)
        futures = [self.rng.next_u64() for _ in range(self.samples)]
        totals = {swap: self._total(state, swap, futures) for swap in swaps}
        ranked = sorted(swaps, key=lambda swap: -totals[swap])[: self.finalists]
        if self.extra and len(ranked) > 1:
            more = [self.rng.next_u64() for _ in range(self.extra)]
            for swap in ranked:
                totals[swap] += self._total(state, swap, more)
        return action_of(max(ranked, key=lambda swap: totals[swap]))

    def _total(self, state: GemState, swap: Swap, futures: list[int]) -> float:
        return sum(self._value(with_refills(state, future), swap) for future in futures)

    def _value(self, state: GemState, swap: Swap) -> float:
        """Points of ``swap`` on one sampled future, plus the best next swap's, plus what
        the board is worth after it."""
        turn = rules.play_swap(state, *swap)
        after = turn.state
        if after.over:
            return turn.points
        best_next = board_value(after)
        for second in after.legal_swaps():
            again = rules.play_swap(after, *second)
            best_next = max(best_next, again.points + board_value(again.state))
        return turn.points + best_next


def make_bot(seed: int) -> SearchBot:
    """The Gem Swap bot of ``playbench run``: the two-swap search over sampled refills."""
    return SearchBot(seed)


def make_greedy(seed: int) -> GreedyBot:
    """The simple baseline, for comparisons."""
    return GreedyBot(seed)
