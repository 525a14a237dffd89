"""Gem Swap's C kernel against its Python rules: random play through both, side by side.

Every step of every run (``playbench.kernels.check``) compares the full state (its
fingerprint, the generator's state included), the observation, the mask, the reward, the
end, the refusal and the score. The actions are mostly uniform among the legal ones (the
costly ``hint`` included) and sometimes any index of the 113; a run that ends starts
again on a drawn game seed. Seeds, and the boards of the ``board`` option (few colours,
specials and colour bombs, stuck boards that the rules reshuffle), are drawn by
Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import get_game
from playbench.core.learning import learning_of
from playbench.games.gemswap.board import (
    AREA_BOMB,
    CELLS,
    COLOR_BOMB,
    NO_COLOR,
    SIZE,
    find_runs,
    has_legal_swap,
    makes_line,
    token,
)
from playbench.games.gemswap.learning import HINT_INDEX
from playbench.kernels import KERNELS_ENV, batched, native, wanted
from playbench.kernels.check import compare, play_both, replay_a_lone_run, set_and_compare

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

GAME = get_game("gem-swap")
ACTIONS = learning_of(GAME).actions.actions
ENVS = 8
#: batch steps per drawn seed: 3 seeds x 8 runs x 900 = 21,600 compared steps
ROUNDS = 900


def _rows(colors: bytearray, kinds: bytearray) -> list[list[str]]:
    return [
        [token(colors[r * SIZE + c], kinds[r * SIZE + c]) for c in range(SIZE)] for r in range(SIZE)
    ]


def _drawn_board(seed: int, palette: int, specials: float, bombs: float) -> list[list[str]]:
    """A board with no line: cell by cell from the top left, a colour bomb at rate
    ``bombs``, else a colour of the first ``palette`` that ends no line (a colour bomb
    where none does), a special of it at rate ``specials``."""
    rng = np.random.default_rng(seed)
    colors, kinds = bytearray(CELLS), bytearray(CELLS)
    for cell in range(CELLS):
        choices = [int(c) for c in rng.permutation(palette)]
        if rng.random() >= bombs:
            for color in choices:
                colors[cell] = color
                if not makes_line(colors, cell):
                    break
            else:
                colors[cell] = NO_COLOR
        else:
            colors[cell] = NO_COLOR
        if colors[cell] == NO_COLOR:
            kinds[cell] = COLOR_BOMB
        elif rng.random() < specials:
            kinds[cell] = int(rng.integers(1, AREA_BOMB + 1))
    assert not find_runs(colors)
    return _rows(colors, kinds)


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_seeds(seed: int) -> None:
    assert play_both(GAME, seed, lambda rng: None, ENVS, ROUNDS) == ENVS * ROUNDS


@settings(max_examples=6, deadline=None, derandomize=False)
@given(
    seed=st.integers(0, 2**63 - 1),
    palette=st.integers(2, 7),
    specials=st.floats(0.0, 0.5),
    bombs=st.floats(0.0, 0.15),
)
def test_random_play_matches_the_rules_on_drawn_boards(seed, palette, specials, bombs) -> None:
    """One drawn ``board`` option a batch (its table holds it), every run starting on it:
    few colours cascade far, and specials and colour bombs go off from the first swap."""
    options = {"board": _drawn_board(seed, palette, specials, bombs)}
    assert play_both(GAME, seed, lambda rng: options, ENVS, 150) == ENVS * 150


def _stripes(rows: int, cols: int, palette: int) -> bytearray:
    return bytearray((rows * r + cols * c) % palette for r in range(SIZE) for c in range(SIZE))


#: diagonal stripes (slope across, slope down, colours) that make a board with no line and
#: no legal swap
STUCK = [
    (rows, cols, palette)
    for rows in range(1, 7)
    for cols in range(1, 7)
    for palette in range(3, 8)
    if not find_runs(_stripes(rows, cols, palette))
    and not has_legal_swap(_stripes(rows, cols, palette))
]


@settings(max_examples=25, deadline=None, derandomize=False)
@given(
    seed=st.integers(0, 2**63 - 1),
    stripes=st.sampled_from(STUCK),
    specials=st.lists(st.tuples(st.integers(0, CELLS - 1), st.integers(1, 3)), max_size=12),
)
def test_a_stuck_board_is_reshuffled_as_the_rules_do(seed, stripes, specials):
    """A ``board`` option with no legal swap (stripes of a drawn slope and palette, drawn
    specials on it): the rules reshuffle it at the start, by up to 200 shuffles of its gems
    or a dealt board, and the kernel lays out the very same."""
    colors = _stripes(*stripes)
    kinds = bytearray(CELLS)
    for cell, kind in specials:
        kinds[cell] = kind
    options = {"board": _rows(colors, kinds)}
    assert play_both(GAME, seed, lambda rng: options, 4, 30) == 4 * 30


def test_a_log_the_kernel_played_replays_on_the_rules() -> None:
    """A run the kernel played alone (its own mask, its own end, a hint bought now and
    then: the hint is in the mask) on a drawn seed is a log the rules replay to the very
    state the kernel reached, and the score it reported."""
    rng = np.random.default_rng()
    assert replay_a_lone_run(GAME, int(rng.integers(2**63 - 1)), rng).over


def test_a_state_set_into_the_kernel_plays_on_as_the_rules() -> None:
    rng = np.random.default_rng()
    set_and_compare(GAME, GAME.new(int(rng.integers(2**63 - 1))), int(rng.integers(1, 30)), rng)


def test_a_selection_and_a_bought_hint_go_through_the_kernel_as_the_rules_keep_them() -> None:
    """A hint keeps the selected cell and stands until the next swap, which clears both."""
    rng = np.random.default_rng()
    state = GAME.new(int(rng.integers(2**63 - 1)))
    state = GAME.step(state, {"command": f"select {'ABCDEFGH'[rng.integers(8)]}4"}).state
    kernel = batched(GAME, 1)
    kernel.set(0, state)
    kernel.observe()
    compare(GAME, kernel, 0, state, "after set")
    swap = int(np.flatnonzero(kernel.mask[0])[0])
    for where, pick in (("hint", HINT_INDEX), ("hint again", HINT_INDEX), ("swap", swap)):
        outcome = GAME.step(state, ACTIONS[pick])
        kernel.step([pick])
        state = outcome.state
        assert kernel.rewards[0] == outcome.reward
        compare(GAME, kernel, 0, state, where)
    assert state.selected is None and not state.hinted


def test_a_masked_batch_refuses_unplayed_what_its_mask_leaves_out() -> None:
    """``Batch.masked``: an entry a door zeroed in the batch's mask (the hint here, which
    the rules would sell) is refused, the run left as it was; the other runs and the batch
    before ``masked`` play it."""
    kernel = batched(GAME, 3)
    kernel.starts[:] = np.random.default_rng().integers(2**63 - 1, size=3)
    kernel.reset()
    before = kernel.state.copy(), kernel.cells.copy()
    kernel.mask[0, HINT_INDEX] = 0
    kernel.step([HINT_INDEX] * 3)
    assert kernel.illegal.tolist() == [False] * 3 and kernel.scores.tolist() == [-50] * 3
    kernel.state[:], kernel.cells[:] = before
    kernel.observe()
    kernel.mask[0, HINT_INDEX] = 0
    kernel.masked()
    kernel.step([HINT_INDEX, HINT_INDEX, 2**40])
    assert kernel.illegal.tolist() == [True, False, True]
    assert kernel.rewards.tolist() == [0.0, -50.0, 0.0]
    np.testing.assert_array_equal(kernel.state[[0, 2]], before[0][[0, 2]])
    np.testing.assert_array_equal(kernel.cells[[0, 2]], before[1][[0, 2]])
    assert kernel.mask[0, HINT_INDEX] == 1  # the step observed the run afresh


def test_a_batch_told_to_hide_the_hint_leaves_it_out_of_every_mask_and_refuses_it() -> None:
    """``Batch.hide``: the kernel leaves the dominated hint out of its masks (as the Gym env
    does unless ``allow_dominated``), refuses it unplayed once masked, and shows it again
    when told; a kind Gem Swap has none of, or a hiding entry neither 0 nor 1, is refused."""
    kernel = batched(GAME, 4)
    kernel.starts[:] = np.random.default_rng().integers(2**63 - 1, size=4)
    kernel.reset()
    assert kernel.mask[:, HINT_INDEX].tolist() == [1] * 4
    kernel.hide(quits=False, dominated=True)
    kernel.masked()
    assert kernel.mask[:, HINT_INDEX].tolist() == [0] * 4
    kernel.step([HINT_INDEX] * 4)
    assert kernel.illegal.all() and kernel.scores.tolist() == [0] * 4
    assert kernel.mask[:, HINT_INDEX].tolist() == [0] * 4  # each step writes it so
    kernel.hide(quits=False, dominated=False)
    assert kernel.mask[:, HINT_INDEX].tolist() == [1] * 4
    with pytest.raises(ValueError, match="cannot leave out quits"):
        kernel.hide(quits=True, dominated=False)
    kernel.params[3] = 2
    with pytest.raises(ValueError, match="hide the hint is neither 0 nor 1"):
        kernel.step([0] * 4)


def test_the_batch_starts_only_on_its_own_board() -> None:
    """A batch that deals its boards takes no ``board`` option, nor one on another board,
    and the rules' bad options are none it takes."""
    board = {"board": _drawn_board(1, 7, 0.0, 0.0)}
    other = {"board": _drawn_board(2, 7, 0.0, 0.0)}
    module = batched(GAME, 1).module
    assert module.start(None, 5, None) == 5
    assert module.start(None, 5, board) is None
    assert module.start(board, 5, board) == 5
    assert module.start(board, 5, other) is None
    assert module.start(board, 5, None) is None
    assert not module.takes({"board": ["RRR"]}) and not module.takes({"level": 1})
    assert batched(GAME, 1, {"board": "nonsense"}) is None


def test_the_binding_refuses_gem_swap_rows_it_cannot_step() -> None:
    kernel = batched(GAME, 3)
    extension = native()
    before = (kernel.state.copy(), kernel.cells.copy())
    for column, value, message in (
        (0, 31, "moves are wrong"),
        (0, -1, "moves are wrong"),
        (3, 64, "selection is off the board"),
        (4, 2, "hint is neither"),
        (1, 2**60, "score is out of range"),
    ):
        kernel.state[1, column] = value
        with pytest.raises(ValueError, match=message):
            kernel.step([0, 0, 0])
        kernel.state[1, column] = before[0][1, column]
    kernel.table[0, 0] = 2
    with pytest.raises(ValueError, match="neither a dealt nor a given board"):
        kernel.step([0, 0, 0])
    kernel.table[0, 0] = 0
    kernel.starts[2] = -1
    with pytest.raises(ValueError, match="a seed is negative"):
        kernel.step([0, 0, 0])
    np.testing.assert_array_equal(kernel.state, before[0])
    np.testing.assert_array_equal(kernel.cells, before[1])
    assert extension.KERNELS.index("gemswap") == kernel.kernel
