"""The compiled kernels' speed beside the doors they serve and the field, in one run.

    python benchmarks/engine_speed.py --kernels [--seconds 4] [--rounds 4] [--game SLUG ...]

For each game with a kernel (``playbench.kernels``), alternating ``rounds`` times within one
process, every side for the same CPU time (``time.process_time``), all in steps per
CPU-second of one core:

- ``kernel256``: a batch of 256 runs in its kernel; each call picks a uniformly random
  legal action per run from the batch's mask (``playbench.kernels.draws.LegalPicks``: one
  uniform double a row, the pick made in C where the kernels are built, inside the
  measured loop), steps all 256 and so writes their observations, masks, rewards, ends
  and scores. A run that ended starts again at
  its next step, which counts as a step (as in Gymnasium's next-step autoreset).
- ``rules``: the Python rules alone, one run, random legal actions (``engine_speed``'s
  workload).
- ``env``: one env as ``gymnasium.make`` makes it by default (``events=False``), the
  ``dict`` observation, a random legal index from ``info["action_mask"]``: on the kernel,
  a batch of one (``playbench.kernels.single``); ``envpy``: the same env with
  ``events=True``, on the rules.
- ``vec256``: the native vector env of 256 (``make_vec``), per sub-step, on the kernel's
  loop (the default ``events=False``); ``vec256py``: the same env on its loop over
  matches (``events=True``). Both pick for the 256 envs at once, as ``kernel256`` does (a
  policy acts on a batch in one call); ``vec256loop`` is ``vec256`` with the picks drawn
  one env at a time in Python (``engine_speed``'s loop, about 1 us an env: at 256 envs
  most of a step), the column's meaning before.
- FrozenLake-v1 through ``gymnasium.make``, and NLE's ``NetHackScore-v0`` where ``nle`` is
  installed (a benchmark-only dependency).

Targets (issue 42): kernel256 at least 2M steps/s for Delvewick and Chimestep (80x NLE),
500k for Gem Swap (20x), 250k for Cogcrawl (10x); env at least 4x NLE; vec256 at least 10x
env (``vec/env`` against the env on the kernel, ``vec/envpy`` against the default one;
``vecl/env``: ``vec256loop`` against the env on the kernel).
"""

from __future__ import annotations

import numpy as np
from engine_speed import (
    GymDoor,
    VectorDoor,
    frozenlake,
    nethack,
    random_play,
    timed,
)

from playbench.core import get_game
from playbench.kernels import batched, native
from playbench.kernels.draws import LegalPicks

ENVS = 256
TARGETS = {"delvewick": 2_000_000, "chimestep": 2_000_000, "gem-swap": 500_000, "cogcrawl": 250_000}
HEADER = (
    f"{'game':<10} {'kernel256':>10} {'rules':>8} {'env':>8} {'envpy':>8} {'vec256':>9} "
    f"{'vec256py':>9} {'vec256loop':>10} {'FrozenLake':>10} {'NLE':>7} {'k/NLE':>6} "
    f"{'k/FL':>6} {'env/NLE':>7} {'envpy/NLE':>9} {'env/FL':>6} {'vec/env':>7} "
    f"{'vec/envpy':>9} {'vecl/env':>8}"
)


def kernel_play(slug: str, num_envs: int):
    """A batch of ``num_envs`` runs, random legal actions from its mask."""
    runs = batched(get_game(slug), num_envs)
    pick = LegalPicks(np.random.default_rng(0))
    step, mask = runs.step, runs.mask

    def play() -> int:
        for _ in range(20):
            step(pick(mask))
        return 20 * num_envs

    return play


def measure_kernels(slugs: list[str], seconds: float, rounds: int) -> None:
    if native() is None:
        print("the kernels are not built or are turned off: nothing to measure")
        return
    print(HEADER, flush=True)
    for slug in slugs:
        if batched(get_game(slug), 1) is None:
            print(f"{slug:<10} no kernel: runs on its Python rules", flush=True)
            continue
        workloads = {
            "kernel": kernel_play(slug, ENVS),
            "rules": random_play(get_game(slug)),
        }
        door, rules_door = GymDoor(slug), GymDoor(slug, events=True)
        assert door.env.unwrapped._kernel is not None and rules_door.env.unwrapped._kernel is None
        fast = VectorDoor(slug, ENVS, picks="array", events=False)
        slow = VectorDoor(slug, ENVS, picks="array", events=True)
        looped = VectorDoor(slug, ENVS, events=False)
        assert fast.envs._kernel is not None and slow.envs._kernel is None
        assert looped.envs._kernel is not None
        totals: dict[str, list[float]] = {}
        part = seconds / rounds
        for _ in range(rounds):
            found = {side: timed(part, work) for side, work in workloads.items()}
            found["env"] = door.play(part)[:2]
            found["envpy"] = rules_door.play(part)[:2]
            found["vec"] = fast.play(part)
            found["vecpy"] = slow.play(part)
            found["vecloop"] = looped.play(part)
            found["lake"] = frozenlake(part, wrapped=True)
            hack = nethack(part)
            if hack is not None:
                found["nle"] = hack
            for side, (steps, elapsed) in found.items():
                kept = totals.setdefault(side, [0, 0.0])
                kept[0] += steps
                kept[1] += elapsed
        rate = {side: steps / elapsed for side, (steps, elapsed) in totals.items()}
        nle = rate.get("nle")

        nle_cell = f"{nle:>7,.0f}" if nle else f"{'-':>7}"

        def ratio(value: float, nle: float | None = nle) -> str:
            return f"{value / nle:>6.1f}" if nle else f"{'-':>6}"

        print(
            f"{slug:<10} {rate['kernel']:>10,.0f} {rate['rules']:>8,.0f} {rate['env']:>8,.0f} "
            f"{rate['envpy']:>8,.0f} {rate['vec']:>9,.0f} {rate['vecpy']:>9,.0f} "
            f"{rate['vecloop']:>10,.0f} {rate['lake']:>10,.0f} {nle_cell} "
            f"{ratio(rate['kernel'])} {rate['kernel'] / rate['lake']:>6.1f} "
            f"{ratio(rate['env']):>7} {ratio(rate['envpy']):>9} "
            f"{rate['env'] / rate['lake']:>6.2f} {rate['vec'] / rate['env']:>7.1f} "
            f"{rate['vec'] / rate['envpy']:>9.1f} {rate['vecloop'] / rate['env']:>8.1f}",
            flush=True,
        )
        target = TARGETS.get(slug)
        if target:
            met = "met" if rate["kernel"] >= target else "missed"
            print(f"{'':<10} kernel256 target {target:,}/s: {met}", flush=True)
