"""Nim's pure step: your take, then the house's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core import OptionsError, Outcome, Rng, check_seed
from playbench.core.fields import options_object
from playbench.core.game import LOST as ENDED_LOST
from playbench.core.game import WON as ENDED_WON
from playbench_nim.state import HEAPS, LOST, MOST, PLAYING, WON, State

FEWEST = 3
MOST_TAKEN = 3
LAST_STONE = 10


def new(seed: int, options: Mapping[str, Any] | None = None) -> State:
    check_seed(seed)
    options_object(options, OptionsError, "Nim", ())
    rng = Rng.from_seed(seed)
    heaps = [rng.randint(FEWEST, MOST) for _ in range(HEAPS)]
    return State(heaps=heaps, start=list(heaps), rng=rng)


def takes(heaps: list[int]) -> list[tuple[int, int]]:
    """Every (heap index, count) a turn may take, in order."""
    return [(h, n) for h, size in enumerate(heaps) for n in range(1, min(size, MOST_TAKEN) + 1)]


def legal_actions(state: State) -> list[dict[str, Any]]:
    if state.status != PLAYING:
        return []
    return [{"type": "take", "heap": h + 1, "count": n} for h, n in takes(state.heaps)]


def step(state: State, action: Any) -> Outcome[State]:
    if state.status != PLAYING:
        return Outcome.refused(state, f"the game is over ({state.status})")
    if not isinstance(action, dict) or set(action) != {"type", "heap", "count"}:
        return Outcome.refused(state, 'an action is {"type": "take", "heap": h, "count": n}')
    heap, count = action["heap"], action["count"]
    if action["type"] != "take" or type(heap) is not int or type(count) is not int:
        return Outcome.refused(state, "take needs an integer heap and count")
    if (heap - 1, count) not in takes(state.heaps):
        return Outcome.refused(state, f"heap {heap} cannot give {count} stones")
    heaps = list(state.heaps)
    heaps[heap - 1] -= count
    rng = state.rng.copy()
    reward = count
    events: list[dict[str, Any]] = [{"type": "take", "heap": heap, "count": count}]
    status, house = PLAYING, None
    if not any(heaps):
        reward += LAST_STONE
        status = WON
    else:
        h, n = rng.choice(takes(heaps))
        heaps[h] -= n
        house = [h + 1, n]
        events.append({"type": "house", "heap": h + 1, "count": n})
        if not any(heaps):
            status = LOST
    after = State(heaps, list(state.start), rng, state.score + reward, status, house)
    return Outcome(after, reward=reward, events=events)


def score(state: State) -> int:
    return state.score


def is_over(state: State) -> bool:
    return state.status != PLAYING


def ending(state: State) -> str:
    return ENDED_WON if state.status == WON else ENDED_LOST
