"""Random draws for a batch of envs, all at once: in C where the kernels are built
(``draws.h``), else in NumPy, with the same numbers either way (``tests/kernels/test_draws.py``
holds the two forms equal).

- :class:`LegalPicks`: a uniformly random legal action for each row of an action mask (a
  random agent for a vector env), from one uniform double a row of the caller's generator.
- :func:`integers_each`: ``generator.integers(n)`` of each of N generators (a vector env's
  envs drawing their next seeds at once), the very numbers and draws NumPy's own call takes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from playbench.kernels import native


def legal_picks(mask: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Row ``i``'s legal index ``numbers[i]`` (in [0, 1)) of the way through its legal ones
    (the ``floor(numbers[i] * count)``-th, capped at the last; 0 for a row of zeros), for an
    (N, A) mask of 0s and 1s: the NumPy form of the C pick. One ``flatnonzero`` of the whole
    mask lists every row's legal indices in turn and a ``searchsorted`` finds where each
    row's run of them ends."""
    rows, width = mask.shape
    legal = np.flatnonzero(mask)
    if not len(legal):
        return np.zeros(rows, dtype=np.int64)
    row_starts = np.arange(rows, dtype=np.intp) * width
    ends = legal.searchsorted(row_starts + width)
    starts = np.concatenate(([0], ends[:-1]))
    counts = ends - starts
    # a product that rounds up to the count itself takes the row's last index
    drawn = np.minimum((numbers * counts).astype(np.intp), counts - 1)
    at = np.minimum(starts + drawn, len(legal) - 1)
    return np.where(counts > 0, legal[at] - row_starts, 0).astype(np.int64)


class LegalPicks:
    """Called with an (N, A) mask (nonzero: legal), a uniformly random legal index for each
    row, into a new int64 array; a row of zeros picks 0. Each row takes one uniform double
    from ``generator`` (the very numbers ``generator.random(N)`` would give), so each legal
    index's chance is within 2**-52 of an exact share."""

    def __init__(self, generator: np.random.Generator) -> None:
        self.generator = generator
        extension = native()
        self._pick = None if extension is None else extension.pick

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        if mask.ndim != 2:
            raise ValueError(f"picks need an (N, A) mask, got shape {mask.shape}")
        rows, width = mask.shape
        if self._pick is None or not width:
            return legal_picks(mask, self.generator.random(rows))
        flat = np.ascontiguousarray(mask)
        if flat.dtype.itemsize != 1:
            flat = flat != 0
        out = np.empty(rows, dtype=np.int64)
        self._pick(self.generator, flat.view(np.int8), width, out)
        return out


def integers_each(generators: Sequence[np.random.Generator], n: int) -> list[int]:
    """``int(generator.integers(n))`` of each generator in turn (1 <= n <= 2**63), each left
    as that call leaves it; the generators must be the caller's own (no other thread
    drawing from them meanwhile: NumPy's lock is not taken)."""
    extension = native()
    if extension is None or not 1 <= n <= 1 << 63:
        return [int(generator.integers(n)) for generator in generators]
    out = np.empty(len(generators), dtype=np.int64)
    extension.below(generators, n, out)
    return out.tolist()
