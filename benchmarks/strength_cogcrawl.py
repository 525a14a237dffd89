"""Cogcrawl's delver over a seed range: the Cogheart, the deepest level, causes of death.

Plays each seed with the bot door (``playbench.bots.cogcrawl.run_delver``, through
``Match`` and the pinned ``make_bot(seed).act(view)`` interface) and prints the number
of runs that took the Cogheart, the median and mean deepest level, how runs ended (with
the experience level at the end), and the time per seat turn, beside the delver's
figures before the rebalance of issue 15 (recorded in benchmarks/RESULTS.md).

    python benchmarks/strength_cogcrawl.py               # seeds 0-49
    python benchmarks/strength_cogcrawl.py --seeds 0 99
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from playbench.bots.cogcrawl import DelverRun, run_delver

#: the delver and rules before issue 15, seeds 0-49 (benchmarks/RESULTS.md)
BEFORE = {"cogheart": 1, "median_deepest": 6, "mean_deepest": 6.36}
TARGET_COGHEART_SHARE = 0.25
TARGET_MEDIAN_DEEPEST = 8
SEAT_TURNS = 3000


def ending(run: DelverRun) -> str:
    if run.cogheart:
        return "took the Cogheart"
    if run.state == "dead":
        return run.cause or "dead"
    return run.state


def report(runs: list[DelverRun]) -> list[str]:
    deepest = [run.deepest for run in runs]
    hearts = sum(run.cogheart for run in runs)
    turns = sum(run.turns for run in runs)
    seconds = sum(run.seconds for run in runs)
    endings = Counter(ending(run) for run in runs)
    levels = Counter(deepest)
    lines = [
        f"seeds {runs[0].seed}-{runs[-1].seed}: {len(runs)} runs, at most {SEAT_TURNS} seat turns",
        f"Cogheart          {hearts} of {len(runs)} ({hearts / len(runs):.0%})"
        f"   before: {BEFORE['cogheart']} of 50   target: >= {TARGET_COGHEART_SHARE:.0%}",
        f"deepest level     median {statistics.median(deepest)}, mean "
        f"{statistics.mean(deepest):.2f}   before: median {BEFORE['median_deepest']}, mean "
        f"{BEFORE['mean_deepest']}   target: median >= {TARGET_MEDIAN_DEEPEST}",
        "deepest levels    " + ", ".join(f"DL{depth}: {levels[depth]}" for depth in sorted(levels)),
        f"median score      {statistics.median(run.score for run in runs)}",
        f"time per turn     {seconds / turns * 1e3:.2f} ms ({turns} seat turns, "
        f"{sum(run.primitives for run in runs)} primitives, {seconds:.2f} s)",
        "how runs ended:",
    ]
    for what, count in endings.most_common():
        xls = sorted(run.xl for run in runs if ending(run) == what)
        xl_range = f"XL {xls[0]}-{xls[-1]}, median {statistics.median(xls)}"
        lines.append(f"  {count:3d}  {what} ({xl_range})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=(0, 49), metavar=("FIRST", "LAST"))
    args = parser.parse_args()
    first, last = args.seeds
    runs = [run_delver(seed, SEAT_TURNS) for seed in range(first, last + 1)]
    print("\n".join(report(runs)))


if __name__ == "__main__":
    main()
