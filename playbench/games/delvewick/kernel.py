"""Delvewick's kernel, its Python side: the level table, the observation record and the
state in and out (the rules in C are ``playbench/kernels/delvewick.h``).

The table holds the eight shipped levels in order (row ``k`` is level ``k + 1``, the level
after it row ``k + 1``) and, with a custom ``level`` option, that level as row 8, which
ends the run when cleared. The observation record is the Gym door's ``dict`` observation
(``playbench.games.delvewick.learning``): ``board``, ``mole`` and ``stats``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.games.delvewick import learning
from playbench.games.delvewick.levels import LEVELS, Level
from playbench.games.delvewick.rules import FINALE_POINTS
from playbench.games.delvewick.state import (
    STATUSES,
    State,
    all_movables,
    level_from_options,
)

#: the kernel's name in the extension
KERNEL = "delvewick"
#: whether :func:`start` gives the seed itself for the options it takes (else what it
#: gives them is the same whatever the seed)
STARTS_ON_SEED = False
ACTIONS = len(learning.ACTIONS.actions)
#: the per-env integers, in the order of ``delvewick.h``'s DW_ enum
FIELDS = ("level", "pos", "oil", "tick", "chain", "last_gem", "gems", "score", "status", "exit")
STATE_WIDTH = len(FIELDS)
LEVEL, POS, OIL, TICK, CHAIN, LAST_GEM, GEMS, SCORE, STATUS, EXIT = range(STATE_WIDTH)
#: a status that is not "playing" (``Batch.restart`` marks a run ended with it)
ENDED = STATUSES.index("won")


def takes(options: Mapping[str, Any] | None) -> bool:
    """True for the options the rules take (a start level or one custom level)."""
    try:
        level_from_options(options)
    except PlaybenchError:
        return False
    return True


def levels(options: Mapping[str, Any] | None) -> list[Level]:
    """The table's levels: the eight shipped ones, then a custom level if there is one."""
    level = level_from_options(options)
    return [*LEVELS, level] if level.custom else list(LEVELS)


def row_in(
    table_options: Mapping[str, Any] | None, options: Mapping[str, Any] | None
) -> int | None:
    """The table row a run on ``options`` starts on in the table of ``table_options``, or
    None when its level is not in that table (options the rules refuse, another custom
    level). A fresh run is the same whatever the seed, so the row is the whole start."""
    if not takes(options):
        return None
    level = level_from_options(options)
    if not level.custom:
        return level.number - 1
    last = levels(table_options)[-1]
    return len(LEVELS) if last.custom and last.to_json() == level.to_json() else None


def start(
    table_options: Mapping[str, Any] | None, seed: int, options: Mapping[str, Any] | None
) -> int | None:
    """What a run on ``options`` starts from in the kernel: its table row (the seed
    changes nothing in Delvewick)."""
    return row_in(table_options, options)


def origin(options: Mapping[str, Any] | None) -> int:
    """What a run's progress counts from: the number of the level it starts on (1 for a
    custom level), the state's ``start``."""
    return level_from_options(options).number


def table(options: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """The level table (one row of ``delvewick.h``'s DL_ fields a level) and the layouts
    (one row of cells a level, the flat board bottom row first)."""
    rows = levels(options)
    cells = max(level.width * level.height for level in rows)
    numbers = np.zeros((len(rows), 9), dtype=np.int64)
    layouts = np.zeros((len(rows), cells), dtype=np.uint8)
    for k, level in enumerate(rows):
        last = level.custom or level.number == len(LEVELS)
        finale = 0 if level.custom else FINALE_POINTS
        numbers[k] = (
            level.number,
            -1 if last else k + 1,
            finale if last else 0,
            level.width,
            level.height,
            level.start,
            level.oil,
            level.quota,
            level.exit,
        )
        layouts[k, : len(level.board)] = np.frombuffer(level.board, dtype=np.uint8)
    return numbers, layouts


def _layout(options: Mapping[str, Any] | None) -> tuple[int, int, int, int]:
    rows, columns = learning.shape(options)
    mole_at = -(-rows * columns // 4) * 4
    return rows, columns, mole_at, mole_at + 4


def record(options: Mapping[str, Any] | None) -> np.dtype:
    """One env's observation bytes: the learning module's arrays at aligned offsets."""
    rows, columns, mole_at, stats_at = _layout(options)
    return np.dtype(
        {
            "names": ["board", "mole", "stats"],
            "formats": [(np.uint8, (rows, columns)), (np.int16, (2,)), (np.float32, (6,))],
            "offsets": [0, mole_at, stats_at],
            "itemsize": stats_at + 24,
        }
    )


def params(options: Mapping[str, Any] | None) -> np.ndarray:
    rows, columns, mole_at, stats_at = _layout(options)
    return np.array([rows, columns, len(LEVELS), mole_at, stats_at], dtype=np.int64)


def to_state(batch: Any, i: int) -> State:
    """Run ``i`` of ``batch`` as a :class:`State` of the rules."""
    row = batch.state[i].tolist()
    level = levels(batch.options)[row[LEVEL]]
    state = State.__new__(State)
    state.level = level
    state.board = bytearray(batch.cells[i, : level.width * level.height].tobytes())
    state.pos = row[POS]
    state.oil = row[OIL]
    state.tick = row[TICK]
    state.chain = row[CHAIN]
    state.last_gem = row[LAST_GEM]
    state.gems = row[GEMS]
    state.score = row[SCORE]
    state.status = STATUSES[row[STATUS]]
    state.exit_open = bool(row[EXIT])
    state.active = all_movables(state.board)
    state.start = int(batch.origins[i])
    return state


def from_state(batch: Any, i: int, state: State) -> None:
    """Make run ``i`` of ``batch`` the rules' ``state`` (on a level of the batch's table)."""
    rows = levels(batch.options)
    level = state.level
    if level.custom:
        if not rows[-1].custom or rows[-1].to_json() != level.to_json():
            raise ValueError("the state's custom level is not this batch's")
        k = len(rows) - 1
    else:
        k = level.number - 1
    values = (k, state.pos, state.oil, state.tick, state.chain, state.last_gem, state.gems)
    batch.state[i] = (*values, state.score, STATUSES.index(state.status), state.exit_open)
    batch.origins[i] = state.start
    batch.cells[i] = 0
    batch.cells[i, : len(state.board)] = np.frombuffer(bytes(state.board), dtype=np.uint8)
