"""Nim for learning doors: 9 actions (heap 1-3, take 1-3), the heaps as one array, the
board drawn as glyphs in the palette's colours."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from playbench.core.game import Action
from playbench.core.learning import ActionTable, Array
from playbench_nim.rules import MOST_TAKEN
from playbench_nim.state import HEAPS, MOST, State
from playbench_nim.view import board


def _key(action: Action) -> Hashable:
    return (action["heap"], action["count"])


ACTIONS = ActionTable.of(
    [
        {"type": "take", "heap": heap, "count": count}
        for heap in range(1, HEAPS + 1)
        for count in range(1, MOST_TAKEN + 1)
    ],
    _key,
)


def arrays(options: Mapping[str, Any] | None) -> dict[str, Array]:
    return {"heaps": Array((HEAPS,), "int8", 0, MOST)}


def encode(state: State, described: Mapping[str, Array]) -> dict[str, Any]:
    return {"heaps": np.array(state.heaps, dtype=np.int8)}


def status(state: State) -> str:
    return f"score {state.score}  {state.status}"


def glyphs(state: State) -> list[str]:
    return board(state)


def grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return (HEAPS, MOST)
