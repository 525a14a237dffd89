"""The batch draws (``playbench.kernels.draws``): the C forms against NumPy on drawn inputs,
the picks legal and uniform, and the seeds a vector env's envs draw at once the very ones
NumPy's own calls give (``tests/gym/test_protocol_and_caps.py`` holds ``Seeds.draws``, which
draws with them, to one env's own draws)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.kernels import native
from playbench.kernels.draws import LegalPicks, integers_each, legal_picks

needs_kernels = pytest.mark.skipif(native() is None, reason="the C kernels are not built here")

BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox)


def _next(generator: np.random.Generator) -> tuple[list, list]:
    """A generator's next draws, 32-bit (which use a half-spent 64-bit output where one is
    left) and 64-bit: alike only where the generators are."""
    return generator.integers(2**20, size=3).tolist(), generator.random(2).tolist()


def _python_picks(generator: np.random.Generator) -> LegalPicks:
    """LegalPicks on its NumPy form whether the kernels are built or not."""
    picks = LegalPicks(generator)
    picks._pick = None
    return picks


@needs_kernels
@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 40),
    width=st.integers(1, 300),
    density=st.floats(0, 1),
    dtype=st.sampled_from([np.int8, np.bool_, np.uint8, np.int64]),
)
def test_the_c_picks_are_the_numpy_forms_from_the_same_draws(seed, rows, width, density, dtype):
    """Every width (whole and part 64-byte words, one byte), density (rows of zeros and of
    ones) and mask type: the C pick and the NumPy form pick the same indices from the same
    doubles, and leave their generators alike."""
    rng = np.random.default_rng(seed)
    mask = (rng.random((rows, width)) < density).astype(dtype)
    mask[rng.integers(0, rows)] = 0
    fast, slow = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    picked = LegalPicks(fast)(mask)
    assert picked.dtype == np.int64
    assert picked.tolist() == _python_picks(slow)(mask).tolist()
    numbers = np.random.default_rng(seed + 1).random(rows)
    assert picked.tolist() == legal_picks(mask, numbers).tolist()
    assert _next(fast) == _next(slow)


@needs_kernels
def test_a_double_at_the_top_of_its_range_picks_a_rows_last_legal_index() -> None:
    """The product of a double just below 1 and a row's count can round up to the count:
    both forms then take the row's last legal index."""
    top = np.nextafter(1.0, 0.0)
    mask = np.zeros((1, 200), np.int8)
    legal = np.sort(np.random.default_rng().choice(200, 3, replace=False))
    mask[0, legal] = 1
    assert legal_picks(mask, np.array([top])).tolist() == [legal[-1]]

    class Top(np.random.Generator):
        def random(self, size=None):  # the NumPy form's one call
            return np.full(size, top)

    assert _python_picks(Top(np.random.PCG64()))(mask).tolist() == [legal[-1]]


@pytest.mark.parametrize("form", ["c", "numpy"])
def test_the_picks_are_legal_and_uniform_among_a_rows_legal_actions(form) -> None:
    """Every pick is legal in its row, a row of zeros picks 0, and each legal index of a row
    comes up about equally often."""
    if form == "c" and native() is None:
        pytest.skip("the C kernels are not built here")
    rng = np.random.default_rng()
    mask = (rng.random((2000, 9)) < 0.4).astype(np.int8)
    mask[np.arange(2000), rng.integers(0, 9, 2000)] = 1
    mask[:1000] = [0, 1, 0, 1, 1, 0, 0, 1, 0]
    mask[-5:] = 0
    pick = LegalPicks(rng) if form == "c" else _python_picks(rng)
    picks = pick(mask)
    assert picks.shape == (2000,) and mask[np.arange(1995), picks[:1995]].all()
    assert picks[-5:].tolist() == [0] * 5
    counts = np.bincount(picks[:1000], minlength=9)
    # 250 expected each, sd 13.7: a band of 5 sd
    assert counts[[0, 2, 5, 6, 8]].sum() == 0 and all(180 < counts[i] < 320 for i in (1, 3, 4, 7))


def test_picks_refuse_a_mask_that_is_not_n_rows() -> None:
    with pytest.raises(ValueError, match=r"an \(N, A\) mask, got shape \(9,\)"):
        LegalPicks(np.random.default_rng())(np.ones(9, np.int8))


@needs_kernels
def test_the_binding_refuses_a_mask_of_another_size_and_a_non_generator() -> None:
    out = np.empty(3, np.int64)
    with pytest.raises(ValueError, match="N rows of width bytes"):
        native().pick(np.random.default_rng(), np.ones(10, np.int8), 3, out)
    with pytest.raises(AttributeError):
        native().pick(object(), np.ones(9, np.int8), 3, out)


RANGES = (1, 2, 3, 7, 10**6, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**40 + 5, 2**63 - 2, 2**63)


@pytest.mark.parametrize("bits", BIT_GENERATORS)
def test_each_generators_seed_is_its_own_integers_call(bits) -> None:
    """For ranges at and about 2**32 and up to 2**63, from drawn seeds: the numbers NumPy's
    own ``integers`` gives, each generator left in the state that call leaves it in."""
    seed = int(np.random.default_rng().integers(2**32))
    for n in RANGES:
        mine = [np.random.Generator(bits(seed + k)) for k in range(5)]
        theirs = [np.random.Generator(bits(seed + k)) for k in range(5)]
        for _ in range(4):
            assert integers_each(mine, n) == [int(g.integers(n)) for g in theirs], (seed, n)
        assert [_next(g) for g in mine] == [_next(g) for g in theirs], (seed, n)


def test_a_range_the_draws_cannot_take_is_numpys_own_error() -> None:
    with pytest.raises(ValueError, match="high <= 0"):
        integers_each([np.random.default_rng()], 0)
    assert integers_each([], 5) == []
