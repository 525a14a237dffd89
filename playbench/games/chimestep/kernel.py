"""Chimestep's kernel, its Python side: the observation record and the state in and out
(the rules in C are ``playbench/kernels/chimestep.h``).

Chimestep has no levels: a run starts from its game seed, so a batch's ``starts`` hold
seeds and its level table is one empty row. The observation record is the Gym door's
``dict`` observation (``playbench.games.chimestep.learning``): ``tiles``, ``hush``,
``chick`` and ``stats``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from playbench.core import Rng
from playbench.core.fields import takes_no_options
from playbench.games.chimestep import learning
from playbench.games.chimestep.board import TILE_COUNT
from playbench.games.chimestep.state import DONE, HUSH_FIELDS, STATUSES, State

#: the kernel's name in the extension
KERNEL = "chimestep"
#: whether :func:`start` gives the seed itself for the options it takes (else what it
#: gives them is the same whatever the seed)
STARTS_ON_SEED = True
ACTIONS = len(learning.ACTIONS.actions)
#: the per-env integers, in the order of ``chimestep.h``'s CS_ enum (then the Hush)
FIELDS = (
    "status",
    "stage",
    "target",
    "position",
    "cooldown",
    "buffered",
    "teeter",
    "teeter_dir",
    "lives",
    "chain",
    "rings",
    "charges",
    "toll_cooldown",
    "shimmer",
    "phase_ticks",
    "spawn_clock",
    "spawn_index",
    "stage_hops",
    "stage_damped",
    "score",
    "tick",
    "free_leap",
    "rng",
    "hush_count",
)
HUSH_MAX = 4
STATE_WIDTH = len(FIELDS) + HUSH_MAX * HUSH_FIELDS
STATUS, STAGE, TARGET = (FIELDS.index(name) for name in ("status", "stage", "target"))
#: the status ``Batch.restart`` marks a run ended with
ENDED = DONE
MASK64 = (1 << 64) - 1
TILES_AT, HUSH_AT, CHICK_AT, STATS_AT, SIZE = 0, 49, 98, 100, 156


def takes(options: Mapping[str, Any] | None) -> bool:
    """True for the options the rules take: none."""
    return takes_no_options(options, "chimestep")


def start(table_options: Any, seed: int, options: Mapping[str, Any] | None) -> int | None:
    """What a run on ``seed`` starts from in the kernel: the seed itself."""
    return seed if takes(options) else None


def origin(options: Mapping[str, Any] | None) -> int:
    """What a run's progress counts from: nothing beside its state (every run starts at
    stage 1 with the apex struck)."""
    return 0


def table(options: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """No levels: one empty row, and one row of cells for the pyramid's tiles."""
    return np.zeros((1, 1), dtype=np.int64), np.zeros((1, TILE_COUNT), dtype=np.uint8)


def record(options: Mapping[str, Any] | None) -> np.dtype:
    return np.dtype(
        {
            "names": ["tiles", "hush", "chick", "stats"],
            "formats": [
                (np.uint8, (7, 7)),
                (np.uint8, (7, 7)),
                (np.uint8, (2,)),
                (np.float32, (14,)),
            ],
            "offsets": [TILES_AT, HUSH_AT, CHICK_AT, STATS_AT],
            "itemsize": SIZE,
        }
    )


def params(options: Mapping[str, Any] | None) -> np.ndarray:
    return np.array([TILES_AT, HUSH_AT, CHICK_AT, STATS_AT], dtype=np.int64)


def to_state(batch: Any, i: int) -> State:
    """Run ``i`` of ``batch`` as a :class:`State` of the rules."""
    row = batch.state[i].tolist()
    state = State.__new__(State)
    for name, value in zip(FIELDS, row, strict=False):
        if name not in ("rng", "hush_count", "free_leap"):
            setattr(state, name, value)
    state.free_leap = bool(row[FIELDS.index("free_leap")])
    state.rng = Rng(row[FIELDS.index("rng")] & MASK64)
    count = row[FIELDS.index("hush_count")]
    state.hush = row[len(FIELDS) : len(FIELDS) + count * HUSH_FIELDS]
    state.tiles = bytearray(batch.cells[i, :TILE_COUNT].tobytes())
    return state


def from_state(batch: Any, i: int, state: State) -> None:
    """Make run ``i`` of ``batch`` the rules' ``state``."""
    if len(state.hush) > HUSH_MAX * HUSH_FIELDS or state.status >= len(STATUSES):
        raise ValueError("the state holds more Hush than the kernel keeps")
    values = []
    for name in FIELDS:
        if name == "rng":
            rng = state.rng.state
            values.append(rng - (1 << 64) if rng >> 63 else rng)
        elif name == "hush_count":
            values.append(len(state.hush) // HUSH_FIELDS)
        else:
            values.append(int(getattr(state, name)))
    hush = list(state.hush) + [0] * (HUSH_MAX * HUSH_FIELDS - len(state.hush))
    batch.state[i] = values + hush
    batch.cells[i, :TILE_COUNT] = np.frombuffer(bytes(state.tiles), dtype=np.uint8)
