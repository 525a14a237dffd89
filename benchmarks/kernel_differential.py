"""The kernels against the rules at length: random play through both, compared every step.

    python benchmarks/kernel_differential.py [--steps 10000000] [--game SLUG ...] [--seed S]

For each game with a kernel (Delvewick, Chimestep, Gem Swap, Cogcrawl), batches of 64 runs
play ``--steps`` steps in all through the kernel and through the Python rules side by side
(``playbench.kernels.check.play_both``: the full state's fingerprint, the observation,
the mask, the reward, the refusal, the end and the score after every step of every run),
in rounds of 64 x 1,000 steps, each round on its own seed (``--seed`` plus the round's
number; a drawn one without ``--seed``), its own drawn game seeds and, for Delvewick, start
levels. It prints the steps compared, the seeds and the CPU time, and stops at the first
mismatch with its message.
"""

from __future__ import annotations

import argparse
import random
import time

from playbench.core import get_game
from playbench.kernels import batched
from playbench.kernels.check import play_both

ENVS = 64
ROUNDS = 1_000


def drawn_start(slug: str):
    """Each run's options: Delvewick's start level drawn from 1..8, the defaults elsewhere."""
    if slug != "delvewick":
        return lambda rng: None
    from playbench.games.delvewick.levels import LEVELS

    return lambda rng: {"startLevel": int(rng.integers(1, len(LEVELS) + 1))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000_000, help="steps a game")
    parser.add_argument("--game", action="append", help="only these slugs")
    parser.add_argument("--seed", type=int, help="the first round's seed (drawn by default)")
    args = parser.parse_args()
    slugs = args.game or ["delvewick", "chimestep", "gem-swap", "cogcrawl"]
    first = random.SystemRandom().randrange(2**62) if args.seed is None else args.seed
    for slug in slugs:
        game = get_game(slug)
        if batched(game, 1) is None:
            print(f"{slug}: no kernel, nothing to compare")
            continue
        draw, done, round_number = drawn_start(slug), 0, 0
        start = time.process_time()
        while done < args.steps:
            rounds = min(ROUNDS, -(-(args.steps - done) // ENVS))
            done += play_both(game, first + round_number, draw, ENVS, rounds)
            round_number += 1
        elapsed = time.process_time() - start
        print(
            f"{slug}: {done:,} steps compared, no difference; seeds {first}.."
            f"{first + round_number - 1}; {elapsed:.0f} CPU-seconds "
            f"({done / elapsed:,.0f} compared steps a CPU-second)",
            flush=True,
        )


if __name__ == "__main__":
    main()
