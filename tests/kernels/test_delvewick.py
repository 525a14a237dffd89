"""Delvewick's C kernel against its Python rules: random play through both, side by side.

Every step of every run (``playbench.kernels.check``) compares the full state (its
fingerprint), the observation, the mask, the reward, the end, the refusal and the score.
The actions are mostly uniform among the legal ones and sometimes any index of the five;
a run that ends starts again on newly drawn options, as the batch's autoreset does. Seeds
are drawn by Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import get_game
from playbench.core.learning import learning_of
from playbench.games.delvewick.levels import LEVELS
from playbench.kernels import KERNELS_ENV, wanted
from playbench.kernels.check import play_both, replay_a_lone_run, set_and_compare

#: only the environment variable skips these: a kernel missing or stale where it is wanted
#: fails them (``batch`` then returns None)
pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

GAME = get_game("delvewick")
LEARNING = learning_of(GAME)
ACTIONS = LEARNING.actions.actions
ENVS = 8
#: batch steps per drawn seed: 3 seeds x 8 envs x 900 = 21,600 compared steps
ROUNDS = 900


def _start_options(rng: np.random.Generator) -> dict:
    return {"startLevel": int(rng.integers(1, len(LEVELS) + 1))}


def _custom_options(rng: np.random.Generator) -> dict:
    """A shipped layout with a drawn quota and oil, as a custom level."""
    level = LEVELS[int(rng.integers(len(LEVELS)))]
    quota = int(rng.integers(1, level.quota + 1))
    oil = int(rng.integers(1, level.oil + 1))
    return {"level": {"name": "drawn", "quota": quota, "oil": oil, "rows": list(level.rows)}}


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_start_levels(seed: int) -> None:
    assert play_both(GAME, seed, _start_options, ENVS, ROUNDS) == ENVS * ROUNDS


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_custom_levels(seed: int) -> None:
    """One drawn custom level a batch (its table holds one), every run on it."""
    level = _custom_options(np.random.default_rng(seed))
    assert play_both(GAME, seed, lambda rng: level, ENVS, ROUNDS // 3) == ENVS * (ROUNDS // 3)


def test_a_log_the_kernel_played_replays_on_the_rules() -> None:
    """A run the kernel played alone (its own mask, its own end) is a log the rules
    replay to the very state the kernel reached, and the score it reported."""
    assert replay_a_lone_run(GAME, None, np.random.default_rng()).over


def test_a_state_set_into_the_kernel_plays_on_as_the_rules() -> None:
    """A state of the rules put into a run (``Batch.set``) comes back out unchanged and
    plays on as the rules do."""
    rng = np.random.default_rng()
    state = GAME.new(0, {"startLevel": int(rng.integers(1, len(LEVELS) + 1))})
    set_and_compare(GAME, state, int(rng.integers(1, 40)), rng)
