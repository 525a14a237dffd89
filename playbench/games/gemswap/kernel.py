"""Gem Swap's kernel, its Python side: the start board, the observation record and the
state in and out (the rules in C are ``playbench/kernels/gemswap.h`` and
``gemswap_board.h``).

A run starts from its game seed, so a batch's ``starts`` hold seeds. Its level table is
one row: 0 when every run deals its board from the seed, 1 when every run starts on the
``board`` option, whose gems (colours, then kinds) are the row's layout. An env's cells
are its board the same way. The observation record is the Gym door's ``dict``
observation (``playbench.games.gemswap.learning``): ``colors``, ``kinds`` and ``stats``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.core.rng import MASK64, Rng
from playbench.games.gemswap import learning
from playbench.games.gemswap.board import CELLS, SIZE
from playbench.games.gemswap.rules import board_option
from playbench.games.gemswap.state import MOVES_PER_GAME, GemState

#: the kernel's name in the extension
KERNEL = "gemswap"
#: whether :func:`start` gives the seed itself for the options it takes (else what it
#: gives them is the same whatever the seed)
STARTS_ON_SEED = True
ACTIONS = len(learning.ACTIONS.actions)
#: the ``params`` entry that, set to 1, has the kernel leave the hint (which
#: ``learning.dominated`` names in every state) out of its mask, as a door does unless asked
HIDE_AT = {"dominated": 3}
#: the per-env integers, in the order of ``gemswap.h``'s GS_ enum
FIELDS = ("moves_made", "score", "rng", "selected", "hinted")
STATE_WIDTH = len(FIELDS)
MOVES, SCORE, RNG, SELECTED, HINTED = range(STATE_WIDTH)
#: what ``Batch.restart`` marks a run ended with: its moves all played
STATUS, ENDED = MOVES, MOVES_PER_GAME
COLORS_AT, KINDS_AT, STATS_AT, SIZE_OF_RECORD = 0, CELLS, 2 * CELLS, 2 * CELLS + 8


def _board(options: Mapping[str, Any] | None) -> bytes | None:
    """The ``board`` option's gems as the kernel's cells, None without one."""
    board = board_option(options)
    return None if board is None else bytes(board[0] + board[1])


def takes(options: Mapping[str, Any] | None) -> bool:
    """True for the options the rules take: none, or a ``board``."""
    try:
        board_option(options)
    except PlaybenchError:
        return False
    return True


def start(
    table_options: Mapping[str, Any] | None, seed: int, options: Mapping[str, Any] | None
) -> int | None:
    """What a run on ``seed`` and ``options`` starts from in the kernel of
    ``table_options``: the seed, when both deal their boards or start on the same one."""
    if not takes(options) or _board(options) != _board(table_options):
        return None
    return seed


def origin(options: Mapping[str, Any] | None) -> int:
    """What a run's progress counts from: nothing beside its score."""
    return 0


def table(options: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """One row: whether the runs start on the ``board`` option, and its gems."""
    board = _board(options)
    if board is None:
        return np.zeros((1, 1), dtype=np.int64), np.zeros((1, 2 * CELLS), dtype=np.uint8)
    return np.ones((1, 1), dtype=np.int64), np.frombuffer(board, dtype=np.uint8).reshape(1, -1)


def record(options: Mapping[str, Any] | None) -> np.dtype:
    return np.dtype(
        {
            "names": ["colors", "kinds", "stats"],
            "formats": [(np.uint8, (SIZE, SIZE)), (np.uint8, (SIZE, SIZE)), (np.float32, (2,))],
            "offsets": [COLORS_AT, KINDS_AT, STATS_AT],
            "itemsize": SIZE_OF_RECORD,
        }
    )


def params(options: Mapping[str, Any] | None) -> np.ndarray:
    return np.array([COLORS_AT, KINDS_AT, STATS_AT, 0], dtype=np.int64)


def to_state(batch: Any, i: int) -> GemState:
    """Run ``i`` of ``batch`` as a :class:`GemState` of the rules."""
    moves, score, rng, selected, hinted = batch.state[i].tolist()
    cells = batch.cells[i]
    return GemState(
        bytearray(cells[:CELLS].tobytes()),
        bytearray(cells[CELLS : 2 * CELLS].tobytes()),
        Rng(rng & MASK64),
        score,
        moves,
        None if selected < 0 else selected,
        bool(hinted),
    )


def from_state(batch: Any, i: int, state: GemState) -> None:
    """Make run ``i`` of ``batch`` the rules' ``state``."""
    if not 0 <= state.moves_made <= MOVES_PER_GAME:
        raise ValueError(f"the state has {state.moves_made} moves made, not 0..{MOVES_PER_GAME}")
    rng = state.rng.state
    selected = -1 if state.selected is None else state.selected
    batch.state[i] = [
        state.moves_made,
        state.score,
        rng - (1 << 64) if rng >> 63 else rng,
        selected,
        int(state.hinted),
    ]
    batch.cells[i, : 2 * CELLS] = np.frombuffer(bytes(state.colors + state.kinds), np.uint8)
