"""Where a step of the native vector env goes, against one env's step, on the kernels.

    python benchmarks/vector_split.py [--game SLUG ...] [--envs 256] [--steps 2000] [--rounds 4]

For each game with a kernel, in one process: the native vector env of ``--envs``
(``make_vec``, ``games="any"``, ``events=False``) stepped ``--steps`` times on random legal
picks for all its envs at once (``playbench.kernels.draws.LegalPicks``), with
``time.perf_counter_ns`` around the picks, around the kernel's step (``Batch.step``) and
around the whole env step; then one env (``gymnasium.make``, the same keywords) stepped as
often per env on its own random legal pick from its mask row (``nonzero`` and a seeded
draw in Python, ``engine_speed``'s one-env agent), the pick and the step timed the same way.
Each side keeps its least of ``--rounds`` rounds. It prints, in microseconds, the vector
step's picks, kernel and rest (the env's Python, its copies and its restarts) and one
env's pick and step, then the vector env's steps per sub-step against one env's: with each
side's picks in the loop (``engine_speed --kernels``' measure) and without either side's.
Wall time: run it on an otherwise idle core.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np

from playbench.core import Rng
from playbench.gym import env_ids
from playbench.kernels import native
from playbench.kernels.draws import LegalPicks

HEADER = (
    f"{'game':<10} {'picks':>7} {'kernel':>7} {'rest':>7} {'vec':>7} {'one pick':>8} "
    f"{'one':>6} {'vec/env':>7} {'no picks':>8}\n"
    "(us a step: the vector env's and one env's; vec/env per sub-step with each side's\n"
    " picks, 'no picks' without either side's)"
)


def _env_id(slug: str) -> str:
    return next(env_id for env_id, game in env_ids().items() if game == slug)


def vector_parts(slug: str, envs: int, steps: int, rounds: int) -> dict[str, float]:
    """The least of ``rounds`` rounds' vector steps, split, in us a step."""
    vector = gymnasium.make_vec(
        _env_id(slug), num_envs=envs, vectorization_mode="vector_entry_point", games="any"
    )
    if vector._kernel is None:
        raise SystemExit(f"{slug}: the vector env is not on a kernel here")
    runs = vector._kernel.runs
    stepped = runs.step
    spent = {"kernel": 0}

    def timed_step(actions: Any) -> int:
        began = time.perf_counter_ns()
        ended = stepped(actions)
        spent["kernel"] += time.perf_counter_ns() - began
        return ended

    runs.step = timed_step
    pick = LegalPicks(np.random.default_rng(0))
    _, info = vector.reset(seed=0)
    best: dict[str, float] | None = None
    for _ in range(rounds):
        spent["kernel"], picking, total = 0, 0, 0
        for _ in range(steps):
            began = time.perf_counter_ns()
            picks = pick(info["action_mask"])
            picked = time.perf_counter_ns()
            info = vector.step(picks)[4]
            picking += picked - began
            total += time.perf_counter_ns() - began
        now = {"picks": picking, "kernel": spent["kernel"], "vec": total}
        now = {part: value / steps / 1e3 for part, value in now.items()}
        if best is None or now["vec"] < best["vec"]:
            best = now
    vector.close()
    assert best is not None
    best["rest"] = best["vec"] - best["picks"] - best["kernel"]
    return best


def one_env_parts(slug: str, steps: int, rounds: int) -> dict[str, float]:
    """The least of ``rounds`` rounds' single env steps, its pick apart, in us a step."""
    env = gymnasium.make(_env_id(slug), games="any")
    if env.unwrapped._kernel is None:
        raise SystemExit(f"{slug}: the single env is not on a kernel here")
    below = Rng.from_seed(0).below
    _, info = env.reset(seed=0)
    best: dict[str, float] | None = None
    for _ in range(rounds):
        picking, total = 0, 0
        for _ in range(steps):
            began = time.perf_counter_ns()
            legal = info["action_mask"].nonzero()[0]
            index = int(legal[below(len(legal))])
            picked = time.perf_counter_ns()
            _, _, terminated, truncated, info = env.step(index)
            if terminated or truncated:
                _, info = env.reset()
            picking += picked - began
            total += time.perf_counter_ns() - began
        now = {"pick": picking / steps / 1e3, "one": total / steps / 1e3}
        if best is None or now["one"] < best["one"]:
            best = now
    env.close()
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only these slugs")
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=2000, help="vector steps a round")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    if native() is None:
        raise SystemExit("the kernels are not built or are turned off: nothing to split")
    print(HEADER, flush=True)
    for slug in args.game or ["delvewick", "chimestep", "gem-swap", "cogcrawl"]:
        vec = vector_parts(slug, args.envs, args.steps, args.rounds)
        one = one_env_parts(slug, args.steps * 10, args.rounds)
        with_picks = one["one"] * args.envs / vec["vec"]
        without = (one["one"] - one["pick"]) * args.envs / (vec["vec"] - vec["picks"])
        print(
            f"{slug:<10} {vec['picks']:>7.1f} {vec['kernel']:>7.1f} {vec['rest']:>7.1f} "
            f"{vec['vec']:>7.1f} {one['pick']:>8.2f} {one['one']:>6.2f} {with_picks:>6.1f}x "
            f"{without:>7.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
