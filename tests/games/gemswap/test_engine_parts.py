"""The engine's shortcuts agree with the whole-board scans they stand in for."""

from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.rng import Rng
from playbench.games.gemswap import board as gems
from playbench.games.gemswap import rules
from tests.games.gemswap.boards import GAME


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 29))
def test_lines_through_the_swapped_cells_are_all_the_lines(seed, moves):
    """On a still board with two neighbours swapped, every line passes through one of
    them: runs_through finds exactly what find_runs finds, for every neighbour pair."""
    chooser = Rng.from_seed(seed, 3)
    state = GAME.new(seed)
    for _ in range(moves):
        state = GAME.step(state, chooser.choice(rules.swap_actions(state))).state
    for a in range(gems.CELLS):
        for b in (a + 1, a + gems.SIZE):
            if b >= gems.CELLS or (b == a + 1 and b % gems.SIZE == 0):
                continue
            work = state.colors[:]
            work[a], work[b] = work[b], work[a]
            assert gems.runs_through(work, (a, b)) == gems.find_runs(work)
