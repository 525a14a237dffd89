"""A game's kernel played side by side with its Python rules, compared at every step.

:func:`play_both` runs a batch of N runs in the kernel and N states of the rules on the
same actions: mostly uniform among the legal ones, sometimes any action index (refused
ones included). A run that ends starts again on newly drawn options and a drawn game
seed, in both. After every
step of every run it compares the full state (the fingerprint, and the JSON form on a
mismatch), the observation, the mask, the reward, the refusal, the end, the score and the
progress, and
raises :class:`Mismatch` saying where they first differ. ``tests/kernels`` and
``benchmarks/kernel_differential.py`` use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from playbench.core.game import Game
from playbench.core.learning import learning_of
from playbench.kernels import batched

#: options for a new run, drawn from a generator
Draw = Callable[[np.random.Generator], dict | None]


class Mismatch(AssertionError):
    """The kernel and the rules differ; the message says where and how."""


def _check(same: bool, where: str, what: str) -> None:
    if not same:
        raise Mismatch(f"{what} differs at {where}")


def compare(
    game: Game, kernel: Any, i: int, state: Any, where: str, progress: np.ndarray | None = None
) -> None:
    """Raise :class:`Mismatch` unless run ``i`` of ``kernel`` is ``state`` in every way
    (``progress``: the kernel's ``progress()`` of this step, worked out here if not given)."""
    learning = learning_of(game)
    mine = kernel.get(i)
    if game.fingerprint(mine) != game.fingerprint(state):
        raise Mismatch(
            f"the state differs at {where}: kernel {game.to_json(mine)} rules {game.to_json(state)}"
        )
    expected = learning.encode(state, learning.arrays(kernel.options))
    for name, array in expected.items():
        _check(np.array_equal(kernel.obs[name][i], array), where, f"observation {name!r}")
    mask = np.zeros(kernel.mask.shape[1], dtype=np.int8)
    mask[list(learning.legal(state))] = 1
    _check(np.array_equal(kernel.mask[i], mask), where, "the mask")
    _check(bool(kernel.ends[i]) == game.is_over(state), where, "the end")
    _check(int(kernel.scores[i]) == game.score(state), where, "the score")
    found = kernel.progress() if progress is None else progress
    _check(float(found[i]) == game.progress(state), where, "the progress")


def play_both(
    game: Game, seed: int, draw: Draw, num_envs: int, rounds: int, any_action: float = 0.1
) -> int:
    """Play ``rounds`` steps of ``num_envs`` runs through both (``draw`` gives each run's
    options; all must share the kernel's table, as one custom level does); returns the
    steps compared."""
    learning = learning_of(game)
    actions = learning.actions.actions
    rng = np.random.default_rng(seed)
    first = draw(rng)
    kernel = batched(game, num_envs, first)
    if kernel is None:
        raise RuntimeError(
            f"{game.slug} has no kernel running here for options {first!r} (playbench.kernels)"
        )
    module = kernel.module

    def fresh(i: int, chosen: dict | None) -> Any:
        """A new run ``i`` on ``chosen`` and a drawn game seed, in both (the kernel's at
        its next step, or its next reset)."""
        run_seed = int(rng.integers(2**63 - 1))
        found = module.start(first, run_seed, chosen)
        if found is None:
            raise ValueError(f"options {chosen!r} are not in the kernel's table")
        kernel.starts[i] = found
        kernel.origins[i] = module.origin(chosen)
        return game.new(run_seed, chosen)

    options = [first, *(draw(rng) for _ in range(num_envs - 1))]
    states = [fresh(i, chosen) for i, chosen in enumerate(options)]
    kernel.reset()
    progress = kernel.progress()
    for i, state in enumerate(states):
        compare(game, kernel, i, state, f"seed {seed} run {i} at the start", progress)
    picks = np.empty(num_envs, dtype=np.int64)
    for step in range(rounds):
        expected = []
        for i, state in enumerate(states):
            if game.is_over(state):
                states[i] = fresh(i, draw(rng))
                picks[i] = int(rng.integers(len(actions)))
                expected.append((0, False))
                continue
            legal = learning.legal(state)
            if rng.random() < any_action or not legal:
                picks[i] = int(rng.integers(len(actions)))
            else:
                picks[i] = legal[int(rng.integers(len(legal)))]
            outcome = game.step(state, actions[picks[i]])
            states[i] = outcome.state
            expected.append((outcome.reward if outcome.ok else 0, not outcome.ok))
        kernel.step(picks)
        progress = kernel.progress()
        for i, state in enumerate(states):
            where = f"seed {seed} run {i} step {step} action {picks[i]}"
            reward, refused = expected[i]
            _check(kernel.rewards[i] == reward, where, "the reward")
            _check(bool(kernel.illegal[i]) == refused, where, "the refusal")
            compare(game, kernel, i, state, where, progress)
    return num_envs * rounds


def set_and_compare(game: Game, state: Any, steps: int, rng: np.random.Generator) -> None:
    """Play up to ``steps`` random legal actions from ``state`` by the rules, put the state
    reached into a run of a new batch (``Batch.set``), and raise :class:`Mismatch` unless it
    comes back out unchanged and shows what the rules show."""
    for _ in range(steps):
        legal = game.legal_actions(state)
        if not legal:
            break
        state = game.step(state, legal[int(rng.integers(len(legal)))]).state
    kernel = batched(game, 3)
    kernel.set(1, state)
    kernel.observe()
    _check(game.to_json(kernel.get(1)) == game.to_json(state), "after set", "the state")
    compare(game, kernel, 1, state, "after set")


def replay_a_lone_run(
    game: Game, seed: int | None, rng: np.random.Generator, limit: int = 1_000_000
) -> Any:
    """Play one run on the kernel alone (uniform among its own mask's actions, until its
    own end or ``limit`` steps; on ``seed``, or the batch's start where None), check that
    the rules replay its log to the very state the kernel reached, with the score it
    reported and the sum of its rewards; the match the rules replayed."""
    from playbench.core.match import Match

    actions = learning_of(game).actions.actions
    kernel = batched(game, 1)
    if seed is not None:
        kernel.reset(np.array([seed]))
    log, reward = [], 0.0
    while not kernel.ends[0] and len(log) < limit:
        legal = np.flatnonzero(kernel.mask[0])
        pick = int(legal[int(rng.integers(len(legal)))])
        kernel.step([pick])
        _check(not kernel.illegal[0], f"step {len(log)}", "its own mask's action refused")
        log.append(actions[pick])
        reward += float(kernel.rewards[0])
    match = Match.replay(game, 0 if seed is None else seed, None, log)
    _check(match.fingerprint() == game.fingerprint(kernel.get(0)), "the end", "state")
    _check(match.score == kernel.scores[0] == reward, "the end", "score")
    return match
