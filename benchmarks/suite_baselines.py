"""A suite's baselines: the random agent and the bot over the suite, their scores by slot
written into the suite file, and both bench folders' figures recomputed on that scale.

    nice -n 19 python benchmarks/suite_baselines.py SUITE --out docs/bench/DIR [--write]

``SUITE`` is a shipped suite's name or a suite file. The random agent's and the bot's
benches go to ``DIR/random`` and ``DIR/bot`` (a folder that already holds the suite's
bench is kept: its episodes are not played again). Prints each game's random and
reference means and the CPU seconds of each bench (``time.process_time`` of this process
and its workers is not summed: run with ``--workers 1`` for a CPU figure). ``--write``
stores the baselines in the suite file (the suite's hash leaves them out, so the benches
stay of the same suite) and rewrites both ``bench.json`` on the new scale.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

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
from playbench.runner.suite import BASELINES, SUITES, load_suite

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
    baselines = {
        entry.game: {
            "random": scores(folders["random"], entry.game),
            "reference": scores(folders["reference"], entry.game),
            "referenceAgent": AGENTS["reference"],
        }
        for entry in suite.games
    }
    for slug, found in baselines.items():
        low, high = (sum(found[key].values()) / len(found[key]) for key in ("random", "reference"))
        print(f"{slug}: random mean {low:,.2f}, reference ({found['referenceAgent']}) {high:,.2f}")
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
