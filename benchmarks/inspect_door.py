"""The Inspect door beside ``playbench bench``: one suite played by ``inspect eval
playbench/suite`` and by ``playbench bench --agent llm``, both against the scripted
OpenAI-compatible server of the tests (on 127.0.0.1, answering every turn with its first
legal move), then the Inspect log imported and both results printed side by side.

    python benchmarks/inspect_door.py --suite quick --out runs/inspect-door

Needs ``pip install -e '.[inspect]'`` (Inspect finds ``playbench/suite`` by the installed
entry point). The two results should agree episode for episode: same seeds, same replies.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playbench.runner.bench import read_bench  # noqa: E402
from tests.agents.chat_server import serving  # noqa: E402
from tests.inspect.conftest import KEY, MODEL, first_legal  # noqa: E402

#: more answers than any shipped suite asks for
SCRIPT = 200_000


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="quick")
    parser.add_argument("--out", type=Path, required=True, help="a new folder")
    parser.add_argument("--max-connections", type=int, default=10)
    args = parser.parse_args()
    out: Path = args.out
    inspect = str(Path(sys.executable).with_name("inspect"))
    with serving([first_legal] * SCRIPT) as chat:
        env = {
            **os.environ,
            "SCRIPT_BASE_URL": chat.base_url,
            "SCRIPT_API_KEY": KEY,
            "OPENAI_API_KEY": KEY,
        }
        inspect_seconds = timed(
            [
                inspect,
                "eval",
                "playbench/suite",
                "-T",
                f"suite={args.suite}",
                "--model",
                MODEL,
                "--max-connections",
                str(args.max_connections),
                "--log-dir",
                str(out / "logs"),
                "--display",
                "none",
            ],
            env,
        )
        inspect_calls = len(chat.requests)
        playbench = [sys.executable, "-m", "playbench.cli"]
        bench = [*playbench, "bench", "--agent", "llm", "--model", "script-model", "--suite"]
        bench += [args.suite, "--base-url", chat.base_url, "--out", str(out / "bench")]
        bench_seconds = timed(bench, env)
        bench_calls = len(chat.requests) - inspect_calls
    [log] = sorted((out / "logs").glob("*.eval"))
    subprocess.run([*playbench, "import", str(log), "--out", str(out / "inspect")], check=True)
    door, benched = read_bench(out / "inspect"), read_bench(out / "bench")
    print(f"\nsuite {args.suite}  ({door['suite']['hash'][:19]})")
    print(f"{'game':<10} {'episodes':>8} {'inspect progress':>17} {'bench progress':>15}")
    for slug, figures in door["games"].items():
        other = benched["games"][slug]
        print(
            f"{slug:<10} {figures['episodes']:>8} {figures['meanProgress']:>17.4f} "
            f"{other['meanProgress']:>15.4f}"
        )
    episodes = sum(figures["episodes"] for figures in door["games"].values())
    print(
        f"{'headline':<10} {episodes:>8} {door['headline']['meanProgress']:>17.4f} "
        f"{benched['headline']['meanProgress']:>15.4f}"
    )
    share = door["headline"]["llm"]["modelTurnShare"], benched["headline"]["llm"]["modelTurnShare"]
    print(f"model share of turns: inspect {share[0]}, bench {share[1]}")
    print(f"calls: inspect {inspect_calls}, bench {bench_calls}")
    print(f"wall seconds: inspect eval {inspect_seconds:.1f}, playbench bench {bench_seconds:.1f}")
    keys = ("episodes", "meanScore", "meanProgress", "outcomes", "meanSteps")
    same = all(
        {key: figures[key] for key in keys} == {key: benched["games"][slug][key] for key in keys}
        for slug, figures in door["games"].items()
    )
    print(f"scores, progress, outcomes and steps identical per game: {same}")


if __name__ == "__main__":
    main()
