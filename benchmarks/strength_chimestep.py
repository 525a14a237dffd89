"""Chimestep strength: the lookahead bot beside the greedy baseline, over the same seeds,
in one run.

Each player plays whole runs through ``Match``, seeing only ``Match.view()``. A run ends
when the last life is gone, or (with ``--max-stage N``) when it reaches stage N, which
then counts as N: the median can only be understated by the cap. Printed per player:
median and mean stage reached, mean score, and milliseconds per move (one ``act`` and
one ``play``), and the bot's figures as ratios to the baseline's.

    nice python benchmarks/strength_chimestep.py --seeds 0-19 --max-stage 31 --jobs 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from playbench.bots.chimestep import GreedyBot, make_bot
from playbench.core.match import Match

PLAYERS = {"bot": make_bot, "greedy": GreedyBot}
#: issue 15: the bot's median stage over seeds 0-19
TARGET_MEDIAN_STAGE = 30


def play(player: str, seed: int, max_stage: int | None) -> dict[str, Any]:
    """One run of ``player`` on ``seed``: stage reached, score, moves, seconds."""
    bot = PLAYERS[player](seed)
    match = Match.start("chimestep", seed)
    started = time.perf_counter()
    moves = 0
    view = match.view()
    while not view["gameOver"]:
        if max_stage is not None and view["observation"]["stage"] >= max_stage:
            break
        result = match.play(bot.act(view))
        if not result.ok:
            raise RuntimeError(f"{player} seed {seed}: refused: {result.reason}")
        moves += 1
        view = match.view()
    seconds = time.perf_counter() - started
    stage = view["observation"]["stage"]
    return {
        "player": player,
        "seed": seed,
        "stage": stage,
        "score": view["score"],
        "moves": moves,
        "seconds": seconds,
    }


def seed_range(text: str) -> list[int]:
    """The seeds of a range such as ``0-19`` (or one seed, ``7``)."""
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    stages = [run["stage"] for run in runs]
    return {
        "median": statistics.median(stages),
        "mean": statistics.fmean(stages),
        "score": statistics.fmean(run["score"] for run in runs),
        "ms": 1000 * sum(run["seconds"] for run in runs) / sum(run["moves"] for run in runs),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-19", help="a range such as 0-19")
    parser.add_argument("--max-stage", type=int, default=None, help="stop a run at this stage")
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in")
    args = parser.parse_args(argv)
    seeds = seed_range(args.seeds)
    tasks = [(player, seed, args.max_stage) for player in PLAYERS for seed in seeds]
    runs: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for run in pool.map(play, *zip(*tasks, strict=True)):
            runs.append(run)
            sys.stdout.write(
                f"{run['player']:>6} seed {run['seed']:>2}: stage {run['stage']:>3} "
                f"score {run['score']:>7} moves {run['moves']:>6} "
                f"{1000 * run['seconds'] / max(1, run['moves']):.2f} ms/move\n"
            )
            sys.stdout.flush()
    figures = {player: summary([r for r in runs if r["player"] == player]) for player in PLAYERS}
    cap = f", runs stopped at stage {args.max_stage}" if args.max_stage else ""
    print(f"\nseeds {args.seeds}{cap}")
    print(f"{'player':>6} {'median':>7} {'mean':>7} {'score':>9} {'ms/move':>8}")
    for player, f in figures.items():
        print(
            f"{player:>6} {f['median']:>7.1f} {f['mean']:>7.2f} {f['score']:>9.0f} {f['ms']:>8.2f}"
        )
    bot, base = figures["bot"], figures["greedy"]
    print(
        f"bot / greedy: median stage {bot['median'] / base['median']:.2f}x, "
        f"mean score {bot['score'] / base['score']:.2f}x, "
        f"time per move {bot['ms'] / base['ms']:.1f}x"
    )


if __name__ == "__main__":
    main()
