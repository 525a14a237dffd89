"""Cogcrawl's C kernel against its Python rules: random play through both, side by side.

Every step of every run (``playbench.kernels.check``) compares the full state (its
fingerprint: the generator's state, every level entered, the messages and the last plan
included), the observation, the mask, the reward, the end, the refusal and the score. The
actions are mostly uniform among the legal ones and sometimes any of the 133; a run that
ends starts again on a drawn game seed. Random play seldom leaves the first levels, so
runs are also started on the down stairs of a drawn deeper level (lava from DL4, the Oracle
on DL2-5, the Cogheart on DL10) and played on from there. Seeds are drawn by Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import get_game
from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.games.cogcrawl.dungeon import LEVELS, generate, xy_of
from playbench.games.cogcrawl.sight import see
from playbench.games.cogcrawl.state import CogState
from playbench.kernels import KERNELS_ENV, batched, wanted
from playbench.kernels.check import Mismatch, compare, play_both, set_and_compare

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

GAME = get_game("cogcrawl")
LEARNING = learning_of(GAME)
ACTIONS = LEARNING.actions.actions
DOWN = ACTIONS.index({"actions": [{"do": "down"}]})
UP = ACTIONS.index({"actions": [{"do": "up"}]})
ENVS = 8
#: batch steps per drawn seed: 3 seeds x 8 runs x 900 = 21,600 compared steps
ROUNDS = 900
#: steps played on from a drawn deeper level: 12 draws x up to 300
DEEP_STEPS = 300


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_seeds(seed: int) -> None:
    assert play_both(GAME, seed, lambda rng: None, ENVS, ROUNDS) == ENVS * ROUNDS


def test_a_log_the_kernel_played_replays_on_the_rules() -> None:
    """A run the kernel played alone (its own mask, its own end) on a drawn seed is a log
    the rules replay to the very state the kernel reached, and the score it reported."""
    rng = np.random.default_rng()
    seed = int(rng.integers(2**63 - 1))
    kernel = batched(GAME, 1)
    kernel.reset(np.array([seed]))
    log, reward = [], 0.0
    while not kernel.ends[0] and len(log) < 3_000:
        legal = np.flatnonzero(kernel.mask[0])
        pick = int(legal[int(rng.integers(len(legal)))])
        kernel.step([pick])
        assert not kernel.illegal[0]
        log.append(ACTIONS[pick])
        reward += kernel.rewards[0]
    match = Match.replay(GAME, seed, None, log)
    assert match.fingerprint() == GAME.fingerprint(kernel.get(0))
    assert match.score == kernel.scores[0] == reward


def test_a_state_set_into_the_kernel_plays_on_as_the_rules() -> None:
    rng = np.random.default_rng()
    set_and_compare(GAME, GAME.new(int(rng.integers(2**63 - 1))), int(rng.integers(1, 200)), rng)


def on_stairs(seed: int, depth: int, down: bool) -> CogState:
    """A new run of ``seed`` moved onto the stairs of level ``depth`` (generated as the
    rules generate it) that lead down (or up)."""
    state = GAME.new(seed)
    level = state.levels[1] if depth == 1 else generate(seed, depth)
    state.levels[depth] = level
    state.dl = depth
    state.deepest = depth
    state.x, state.y = xy_of(level.down if down else level.up)
    see(state)
    return state


def play_on(state: CogState, steps: int, rng: np.random.Generator, first: int) -> None:
    """``first``, then up to ``steps`` random actions (mostly legal) from ``state``, through
    the rules and a kernel run set to it, compared at every step."""
    kernel = batched(GAME, 1)
    kernel.set(0, state)
    kernel.observe()
    compare(GAME, kernel, 0, state, "after set")
    pick = first
    for step in range(steps):
        outcome = GAME.step(state, ACTIONS[pick])
        kernel.step([pick])
        state = outcome.state
        where = f"seed {state.seed} step {step} action {pick}"
        if kernel.rewards[0] != (outcome.reward if outcome.ok else 0):
            raise Mismatch(f"the reward differs at {where}")
        if bool(kernel.illegal[0]) == outcome.ok:
            raise Mismatch(f"the refusal differs at {where}")
        compare(GAME, kernel, 0, state, where)
        if GAME.is_over(state):
            return
        legal = LEARNING.legal(state)
        pick = (
            int(rng.integers(len(ACTIONS)))
            if rng.random() < 0.1
            else legal[int(rng.integers(len(legal)))]
        )


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), depth=st.integers(1, LEVELS - 1), down=st.booleans())
def test_every_level_is_made_and_played_as_the_rules_make_it(seed, depth, down) -> None:
    """Down the stairs of a drawn level (the next one made on entry) or up them (the one
    above made, when not yet entered), then random play there."""
    rng = np.random.default_rng(seed)
    if down:
        play_on(on_stairs(seed, depth, True), DEEP_STEPS, rng, DOWN)
    else:
        play_on(on_stairs(seed, depth + 1, False), DEEP_STEPS, rng, UP)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_the_cogheart_is_taken_as_the_rules_take_it(seed) -> None:
    """A run on the last level's Cogheart: picking it up wins, with its bonus."""
    state = on_stairs(seed, LEVELS, False)
    level = state.level
    (cell,) = [c for c, stack in level.items.items() if stack[0][0] == "cogheart"]
    state.x, state.y = xy_of(cell)
    for monster in list(level.monsters):
        if abs(monster.x - state.x) <= 1 and abs(monster.y - state.y) <= 1:
            level.monsters.remove(monster)
    see(state)
    pickup = ACTIONS.index({"actions": [{"do": "pickup"}]})
    play_on(state, 1, np.random.default_rng(seed), pickup)
