"""Nim's state and its JSON codec."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playbench.core import Rng, StateError
from playbench.core.fields import int_field, list_field, need, need_keys, need_object, str_field

HEAPS = 3
MOST = 7
PLAYING, WON, LOST = "playing", "won", "lost"
KEYS = ("heaps", "start", "rng", "score", "status", "house")
WHAT = "Nim state"


@dataclass(slots=True)
class State:
    heaps: list[int]
    start: list[int]
    rng: Rng
    score: int = 0
    status: str = PLAYING
    house: list[int] | None = None


def to_json(state: State) -> dict[str, Any]:
    return {
        "heaps": list(state.heaps),
        "start": list(state.start),
        "rng": state.rng.to_json(),
        "score": state.score,
        "status": state.status,
        "house": None if state.house is None else list(state.house),
    }


def from_json(data: Any) -> State:
    data = need_object(data, StateError, WHAT)
    need_keys(data, StateError, WHAT, KEYS)
    heaps = _heaps(data, "heaps")
    start = _heaps(data, "start")
    status = str_field(data, "status", StateError, WHAT)
    need(status in (PLAYING, WON, LOST), StateError, WHAT, f"unknown status {status!r}")
    house = data["house"]
    need(
        house is None or (isinstance(house, list) and len(house) == 2),
        StateError,
        WHAT,
        "house must be null or [heap, count]",
    )
    return State(
        heaps=heaps,
        start=start,
        rng=Rng.from_json(data["rng"]),
        score=int_field(data, "score", StateError, WHAT),
        status=status,
        house=None if house is None else [int(house[0]), int(house[1])],
    )


def _heaps(data: Any, key: str) -> list[int]:
    heaps = list_field(data, key, StateError, WHAT)
    need(len(heaps) == HEAPS, StateError, WHAT, f"{key} must hold {HEAPS} heaps")
    for heap in heaps:
        need(type(heap) is int and 0 <= heap <= MOST, StateError, WHAT, f"bad heap {heap!r}")
    return list(heaps)
