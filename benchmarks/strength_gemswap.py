"""Gem Swap bot strength: the search bot beside the greedy baseline, in one run.

    python benchmarks/strength_gemswap.py [--first 0] [--last 99] [--workers 1]

Each bot plays every seed of the range through ``Match``, seeing only ``Match.view()``
(the board from the observation; the refills stay hidden). Prints, per bot, the mean,
the median, a 95% bootstrap interval of the mean (10,000 resamples, seeded) and the
time per move (process time of ``act``), then the ratio of the means.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from playbench.bots.gemswap import make_bot, make_greedy
from playbench.core import Rng
from playbench.core.match import Match

BOTS: dict[str, Callable[[int], Any]] = {"search (make_bot)": make_bot, "greedy": make_greedy}
RESAMPLES = 10_000
BOOTSTRAP_SEED = 2026
#: issue 15: the search bot's mean score over seeds 0-99
TARGET_MEAN = 6000


def play(task: tuple[str, int]) -> tuple[str, int, int, float, int]:
    """One game of one bot: (bot, seed, score, seconds thinking, moves)."""
    name, seed = task
    bot = BOTS[name](seed)
    match = Match.start("gem-swap", seed)
    thinking = 0.0
    view = match.view()
    while not view["gameOver"]:
        start = time.process_time()
        action = bot.act(view)
        thinking += time.process_time() - start
        result = match.play(action)
        if not result.ok:
            raise RuntimeError(f"{name} seed {seed}: {action} refused: {result.reason}")
        view = match.view()
    return name, seed, view["score"], thinking, match.moves


def bootstrap(scores: list[int]) -> tuple[float, float]:
    """The 95% percentile interval of the mean over seeded resamples."""
    rng = Rng.from_seed(BOOTSTRAP_SEED)
    n = len(scores)
    means = sorted(sum(scores[rng.below(n)] for _ in range(n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--last", type=int, default=99, help="last seed (inclusive)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    args = parser.parse_args()
    tasks = [(name, seed) for name in BOTS for seed in range(args.first, args.last + 1)]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            games = list(pool.map(play, tasks, chunksize=4))
    else:
        games = [play(task) for task in tasks]
    means = {}
    print(f"Gem Swap, seeds {args.first}-{args.last}")
    for name in BOTS:
        mine = [g for g in games if g[0] == name]
        scores = [g[2] for g in mine]
        low, high = bootstrap(scores)
        per_move = sum(g[3] for g in mine) / sum(g[4] for g in mine)
        means[name] = statistics.mean(scores)
        print(
            f"{name:<18} mean {means[name]:>8,.1f}  median {statistics.median(scores):>8,.1f}  "
            f"95% interval {low:,.1f}-{high:,.1f}  min {min(scores):,}  max {max(scores):,}  "
            f"{per_move * 1000:.1f} ms/move"
        )
    search, greedy = means.values()
    print(f"ratio of means (search / greedy) {search / greedy:.2f}")


if __name__ == "__main__":
    main()
