"""A bench folder of an earlier suite re-scored on a suite of today: every episode the new
suite names (the same game, seed, options, step cap and agent) re-simulated from its
replay, its progress taken from the game's rules as they stand, and the bench's figures
recomputed on the new suite's scale. Nothing is played again and no action changes.

    python benchmarks/rescore_bench.py OLD_FOLDER SUITE --out NEW_FOLDER

A slot of the new suite that the old folder did not play is refused by name (and so is a
replay whose score or fingerprint does not come out as recorded). Prints the old and the
new headline.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from playbench.core.match import Match
from playbench.runner.bench import bench_figures, check_bench, read_bench, write_bench
from playbench.runner.replay import read_replay
from playbench.runner.suite import load_suite
from playbench.runner.summary import summarize


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    text = "".join(
        json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows
    )
    path.write_text(text, encoding="utf-8")


def rescore(old: Path, suite_name: str, out: Path) -> None:
    suite = load_suite(suite_name)
    if out.exists():
        raise SystemExit(f"{out} exists: choose a new folder")
    for entry in suite.games:
        source, target = old / entry.game, out / entry.game
        config = json.loads((source / "run.json").read_text(encoding="utf-8"))
        if config["options"] != entry.options or config["maxSteps"] != entry.max_steps:
            raise SystemExit(f"{source} was played with other options or another step cap")
        records = {record["seed"]: record for record in _lines(source / "runs.jsonl")}
        kept = []
        (target / "replays").mkdir(parents=True)
        for seed in entry.seeds:
            record = records.get(seed)
            if record is None or record["options"] != entry.options_of(seed):
                raise SystemExit(f"{source} did not play the slot of seed {seed}")
            replay = read_replay(source / record["replay"])
            actions = [line["action"] for line in replay.lines]
            match = Match.replay(entry.game, seed, record["options"] or None, actions)
            if (match.score, match.fingerprint()) != (record["score"], record["fingerprint"]):
                raise SystemExit(f"{source / record['replay']} does not replay as recorded")
            progress = match.game.progress(match.state)
            end = {**replay.end, "progress": progress}
            _write(target / record["replay"], [replay.header, *replay.lines, {"end": end}])
            kept.append({**record, "progress": progress})
        _write(target / "runs.jsonl", kept)
        config["suite"] = suite.describe()
        (target / "run.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        summary = json.dumps(summarize(kept), indent=2, ensure_ascii=False) + "\n"
        (target / "summary.json").write_text(summary, encoding="utf-8")
    write_bench(out, bench_figures(out, suite))
    problems = check_bench(out, suite)
    if problems:
        raise SystemExit(f"{out} does not check: {problems[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("suite")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    before = read_bench(args.old)["headline"]
    rescore(args.old, args.suite, args.out)
    after = read_bench(args.out)["headline"]
    print(f"before: mean progress {before['meanProgress']} {before['ci95']}")
    print(
        f"after: normalised {after['normalisedScore']} {after['normalisedCi95']}, "
        f"mean progress {after['meanProgress']} {after['ci95']}"
    )


if __name__ == "__main__":
    main()
