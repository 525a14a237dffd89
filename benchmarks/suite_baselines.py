"""A suite's baselines: the random agent and the reference over the suite, their scores by
slot written into the suite file, and both bench folders' figures recomputed on that scale.

    nice -n 19 python benchmarks/suite_baselines.py SUITE --out docs/bench/DIR [--write]

``SUITE`` is a shipped suite's name or a suite file. The random agent's and the bot's
benches go to ``DIR/random`` and ``DIR/bot`` (a folder that already holds the suite's
bench is kept: its episodes are not played again). Prints each game's random and
reference means and the CPU seconds of each bench (``time.process_time`` of this process
and its workers is not summed: run with ``--workers 1`` for a CPU figure). ``--write``
stores the baselines in the suite file (the suite's hash leaves them out, so the benches
stay of the same suite) and rewrites both ``bench.json`` on the new scale.

The reference on a slot is the higher of the bot's score and the best known play the
project records for that slot (:data:`BEST_KNOWN`: Delvewick's shipped level solutions,
replayed from the slot's start under its ``maxSteps``; no other game records play above its
bot, and no human baseline is recorded for any game); each game's ``referenceSource`` says
which, slot by slot where they differ.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from playbench.bots.delvewick import action_of
from playbench.core.match import Match
from playbench.runner.bench import (
    BENCH,
    BenchRequest,
    bench_figures,
    execute_bench,
    prepare_bench,
    read_bench,
    write_bench,
)
from playbench.runner.store import RunDir
from playbench.runner.suite import BASELINES, REFERENCE_SOURCE, SUITES, SuiteGame, load_suite

AGENTS = {"random": "random", "reference": "bot"}


def play(suite_name: str, folder: Path, agent: str, workers: int) -> float:
    """Play ``agent`` over the suite into ``folder`` (kept when already complete); the
    CPU seconds this process spent."""
    suite = load_suite(suite_name)
    if (folder / BENCH).is_file() and read_bench(folder)["suite"]["hash"] == suite.hash:
        return 0.0
    started = time.process_time()
    plan = prepare_bench(BenchRequest(suite, agent, out=folder, workers=workers))
    report = execute_bench(plan)
    if report.bench is None:
        raise SystemExit(f"{agent} did not finish the suite: {report.failures[:1]}")
    return time.process_time() - started


def scores(folder: Path, slug: str) -> dict[str, float]:
    records = RunDir(folder / slug).records()
    return {str(record["seed"]): record["score"] for record in sorted(records, key=_seed)}


def _seed(record: dict) -> int:
    return record["seed"]


def delvewick_solutions(entry: SuiteGame, seed: int) -> float:
    """The score of Delvewick's shipped level solutions (found by the beam search, the best
    known play) from the slot's start level, level after level, cut at ``maxSteps``."""
    match = Match.start("delvewick", seed, entry.options_of(seed))
    while not match.over and match.moves < entry.max_steps:
        letters = match.state.level.solution
        if not letters:
            raise ValueError("a custom level has no shipped solution")
        for letter in letters:
            if match.over or match.moves >= entry.max_steps:
                break
            result = match.play(action_of(letter))
            if not result.ok:
                raise ValueError(f"the shipped solution was refused: {result.reason}")
    return float(match.score)


#: the best known play the project records, by game: a slot's score from it
BEST_KNOWN: dict[str, tuple[str, Callable[[SuiteGame, int], float]]] = {
    "delvewick": (
        "the shipped level solutions (the best known play), replayed from the slot's start "
        "level under its maxSteps",
        delvewick_solutions,
    ),
}
NO_HUMAN = "no human baseline is recorded"


def reference_of(entry: SuiteGame, bot: dict[str, float]) -> tuple[dict[str, float], str]:
    """The reference's score by slot (the higher of the bot's and the best known play's)
    and where it comes from, in words."""
    if entry.game not in BEST_KNOWN:
        return bot, (
            "the bot's score on each slot: the project records no best known play above "
            f"the bot for this game, and {NO_HUMAN}"
        )
    what, replay = BEST_KNOWN[entry.game]
    best = {seed: replay(entry, int(seed)) for seed in bot}
    higher = [seed for seed in bot if best[seed] > bot[seed]]
    reference = {seed: max(bot[seed], best[seed]) for seed in bot}
    if not higher:
        same = all(best[seed] == bot[seed] for seed in bot)
        told = "which equal it on every slot" if same else "which score no more on any slot"
        return reference, f"the bot's score on each slot; {what}, {told}; {NO_HUMAN}"
    return reference, (
        f"the higher on each slot of the bot's score and {what}; the solutions on slots "
        f"{', '.join(higher)}; {NO_HUMAN}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    folders = {role: args.out / agent for role, agent in AGENTS.items()}
    for role, agent in AGENTS.items():
        seconds = play(args.suite, folders[role], agent, args.workers)
        print(f"{agent}: {seconds:.1f} s of CPU in this process")
    suite = load_suite(args.suite)
    baselines = {}
    for entry in suite.games:
        reference, source = reference_of(entry, scores(folders["reference"], entry.game))
        baselines[entry.game] = {
            "random": scores(folders["random"], entry.game),
            "reference": reference,
            "referenceAgent": AGENTS["reference"],
            REFERENCE_SOURCE: source,
        }
    for slug, found in baselines.items():
        low, high = (sum(found[key].values()) / len(found[key]) for key in ("random", "reference"))
        print(f"{slug}: random mean {low:,.2f}, reference {high:,.2f}: {found[REFERENCE_SOURCE]}")
    if not args.write:
        return
    path = SUITES / f"{args.suite}.json"
    path = path if path.is_file() else Path(args.suite)
    data = json.loads(path.read_text(encoding="utf-8"))
    data[BASELINES] = baselines
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    scaled = load_suite(str(path))
    for folder in folders.values():
        write_bench(folder, bench_figures(folder, scaled))
        headline = read_bench(folder)["headline"]
        print(f"{folder}: normalised {headline['normalisedScore']} {headline['normalisedCi95']}")


if __name__ == "__main__":
    main()
