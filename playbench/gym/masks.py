"""An env's action masks: a state's legal indices as a row of bytes, handed out as a
read-only int8 array over new bytes each time (shared by the single and the vector env)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def mask_row(size: int, legal: Sequence[int]) -> bytes:
    """The mask of ``legal`` as ``size`` bytes of 0 and 1 (new bytes each call)."""
    row = bytearray(size)
    for index in legal:
        row[index] = 1
    return bytes(row)


INT8 = np.dtype(np.int8)
_frombuffer = np.frombuffer


def mask_of(row: bytes) -> np.ndarray:
    """The int8 mask over ``row``: read-only for good, as an array over immutable bytes can
    never be made writeable."""
    return _frombuffer(row, INT8)


#: the legal sets whose rows one door keeps (a new set beyond them starts the keeping again)
ROWS_KEPT = 4096


def rows_of(
    size: int, legal: Callable[[Any], Sequence[int]], kept: int = ROWS_KEPT
) -> Callable[[Any], bytes | bytearray]:
    """A game's mask row by state: the bytes of its legal indices. A tuple of indices (a
    set that comes again, see :mod:`playbench.core.learning`) has its row made once and
    kept unchanged (up to ``kept`` sets), so a caller copies a row (``bytes(row)``, or a
    join of rows) before handing a mask out; a list has new bytes made each call."""
    known: dict[tuple[int, ...], bytearray] = {}

    def row(state: Any) -> bytes | bytearray:
        found = legal(state)
        if type(found) is not tuple:
            return mask_row(size, found)
        made = known.get(found)
        if made is None:
            if len(known) >= kept:
                known.clear()
            made = known[found] = bytearray(mask_row(size, found))
        return made

    return row


def mask_of_row(row: bytes | bytearray) -> tuple[bytes, np.ndarray]:
    """Bytes of ``row`` that no other mask holds (a kept row copied; new bytes as they are)
    and the read-only mask over them (Gymnasium's checker wants no memory shared between
    the ``info`` of two steps)."""
    made = bytes(row)
    return made, _frombuffer(made, INT8)
