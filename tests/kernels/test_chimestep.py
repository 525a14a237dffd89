"""Chimestep's C kernel against its Python rules: random play through both, side by side.

Every step of every run (``playbench.kernels.check``) compares the full state (its
fingerprint, the generator's state included), the observation, the mask, the reward, the
end, the refusal and the score. The actions are mostly uniform among the legal ones and
sometimes any index of the twelve; a run that ends starts again on a drawn game seed.
Seeds are drawn by Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import get_game
from playbench.core.learning import learning_of
from playbench.games.chimestep.state import PLAYING
from playbench.kernels import KERNELS_ENV, batched, wanted
from playbench.kernels.check import compare, play_both, replay_a_lone_run, set_and_compare

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

GAME = get_game("chimestep")
ACTIONS = learning_of(GAME).actions.actions
ENVS = 8
#: batch steps per drawn seed: 3 seeds x 8 runs x 900 = 21,600 compared steps
ROUNDS = 900


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_seeds(seed: int) -> None:
    assert play_both(GAME, seed, lambda rng: None, ENVS, ROUNDS) == ENVS * ROUNDS


def test_a_log_the_kernel_played_replays_on_the_rules() -> None:
    """A run the kernel played alone (its own mask, its own end) on a drawn seed is a log
    the rules replay to the very state the kernel reached, and the score it reported."""
    rng = np.random.default_rng()
    replay_a_lone_run(GAME, int(rng.integers(2**63 - 1)), rng, limit=3_000)


def test_a_state_set_into_the_kernel_plays_on_as_the_rules() -> None:
    rng = np.random.default_rng()
    set_and_compare(GAME, GAME.new(int(rng.integers(2**63 - 1))), int(rng.integers(1, 200)), rng)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    chick=st.integers(0, 27),
    hush=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 27), st.integers(1, 14)),
        min_size=1,
        max_size=4,
    ),
)
def test_every_hush_steps_as_the_rules_from_any_tile(seed, chick, hush) -> None:
    """Awake Hush of drawn kinds, tiles and clocks around a chick on a drawn tile, in play:
    a few single ticks through both (random play seldom puts a stalker above the chick)."""
    state = GAME.step(GAME.new(seed), {"type": "start"}).state
    state.status = PLAYING
    state.position = chick
    state.cooldown = 0
    state.shimmer = 1
    state.hush = [value for kind, tile, clock in hush for value in (kind, tile, 0, clock, 0)]
    kernel = batched(GAME, 1)
    kernel.set(0, state)
    tick = ACTIONS.index({"type": "tick", "count": 1})
    for step in range(16):
        outcome = GAME.step(state, ACTIONS[tick])
        kernel.step([tick])
        state = outcome.state
        assert kernel.rewards[0] == outcome.reward
        compare(GAME, kernel, 0, state, f"tick {step}")
        if GAME.is_over(state):
            break
