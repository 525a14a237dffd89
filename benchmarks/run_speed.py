"""Run speed: episodes per second of ``playbench run``, and the harness's cost per step
against a bare ``Match`` loop driving the same agent, side by side in one run.

    python benchmarks/run_speed.py [--agent bot] [--seeds 0-9] [--rounds 3] [--max-steps N]
                                   [--game SLUG ...]

Per game, in alternating rounds over the same seeds:

- bare: ``agent.reset(seed)``, then ``match.play(agent.act(match.view()))`` until the
  game ends: the least any door can do with this agent;
- harness: the runner's episode in-process (:func:`playbench.runner.episode.play_local`:
  the agent's turns on a table, a replay line per action, the record), no files;
- run: ``playbench run`` itself in one process (``--workers 1``), into a fresh folder:
  the episode, the atomic replay file and ``runs.jsonl`` line (each flushed to disk).

Times are this process's CPU seconds (``time.process_time``), so other work on a shared
machine slows the sides less unevenly than wall time would; each side's best round is
shown. It prints each side's microseconds per step, the harness's and the run's overhead
over the bare loop (target: harness under 10%), and the run's episodes per CPU second (the
run side includes its fixed costs: checking the run, the folder, the summary's bootstrap).
A game without the agent (no bot yet) is named and skipped.

``--kernel`` adds a side for each game with a compiled kernel (``playbench.kernels``):
the bare loop with the match moved on by the kernel, a batch of one (each action the
agent picks stepped by its index in the game's action table, the state read back out
for the next view; an action outside the table played by the rules), checked to end
every episode as the bare loop does (its log and fingerprint). The agents read the
view, which only the rules' state gives, so this is what a run on the kernel could save.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console

from playbench.agents import AgentError, make_agent
from playbench.core import all_games, get_game
from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.kernels import batched
from playbench.runner.episode import EpisodeSpec, Task, play_local
from playbench.runner.run import RunRequest, execute, prepare
from playbench.runner.seeds import parse_seeds


def bare(agent, slug: str, seeds: list[int], max_steps: int, ends: list | None = None):
    steps = 0
    matches = []
    start = time.process_time()
    for seed in seeds:
        agent.reset(seed)
        match = Match.start(slug, seed)
        count = 0
        while not match.over and count < max_steps:
            match.play(agent.act(match.view()))
            count += 1
        steps += len(match.log)
        matches.append(match)
    seconds = time.process_time() - start
    if ends is not None:
        ends[:] = [(match.log, match.fingerprint()) for match in matches]
    return steps, seconds


def bare_kernel(agent, slug: str, seeds: list[int], max_steps: int, ends: list):
    """:func:`bare` with each action stepped by the kernel; None where the game has none.
    Raises unless every episode ends as in ``ends`` (the bare loop's)."""
    game = get_game(slug)
    runs = batched(game, 1)
    if runs is None:
        return None
    table = learning_of(game).actions
    key, indices = table.key, table.indices
    steps = 0
    matches = []
    start = time.process_time()
    for seed in seeds:
        agent.reset(seed)
        match = Match.start(slug, seed)
        runs.set(0, match.state)
        count = 0
        while not match.over and count < max_steps:
            action = agent.act(match.view())
            found = indices.get(key(action))
            count += 1
            if found and table.actions[found[0]] == action and runs.mask[0, found[0]]:
                runs.step(found[:1])
                match.state = runs.get(0)
                match.log.append(action)
                match.moves += 1
            else:
                match.play(action)
                runs.set(0, match.state)
                runs.observe()
        steps += len(match.log)
        matches.append(match)
    seconds = time.process_time() - start
    if [(match.log, match.fingerprint()) for match in matches] != ends:
        raise AssertionError(f"{slug}: the kernel's episodes differ from the rules'")
    return steps, seconds


def harness(agent, spec: EpisodeSpec, seeds: list[int]) -> tuple[int, float]:
    steps = 0
    start = time.process_time()
    for seed in seeds:
        steps += play_local(spec, Task(seed), agent).record["steps"]
    return steps, time.process_time() - start


def full_run(spec: EpisodeSpec, seeds: list[int], folder: Path) -> tuple[int, float]:
    quiet = Console(file=open("/dev/null", "w"))  # noqa: SIM115
    start = time.process_time()
    plan = prepare(RunRequest(spec=spec, seeds=seeds, out=folder, workers=1))
    report = execute(plan, quiet)
    seconds = time.process_time() - start
    return report.summary["steps"], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="bot", help="bot or random")
    parser.add_argument("--seeds", default="0-9")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=100_000, help="cut each episode")
    parser.add_argument("--game", action="append", help="game slug (default: every game)")
    parser.add_argument("--kernel", action="store_true", help="the bare loop on the kernel too")
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    slugs = args.game or [game.slug for game in all_games()]
    print(
        f"agent {args.agent}, seeds {args.seeds} ({len(seeds)} episodes), "
        f"{args.rounds} alternating rounds, best round shown (CPU time)"
    )
    print(
        f"{'game':<10} {'steps':>7} {'bare us/step':>13} {'harness':>9} {'overhead':>9} "
        f"{'run':>9} {'overhead':>9} {'run episodes/s':>15}"
        + (f" {'kernel us/step':>15} {'kernel/bare':>12}" if args.kernel else "")
    )
    with tempfile.TemporaryDirectory() as scratch:
        for slug in slugs:
            spec = EpisodeSpec(slug, args.agent, max_steps=args.max_steps)
            try:
                agent = make_agent(args.agent, spec.make_agent().game)
            except AgentError as error:
                print(f"{slug:<10} skipped: {error}")
                continue
            rounds: dict[str, list[float]] = {"bare": [], "harness": [], "run": [], "kernel": []}
            episodes_per_second = []
            steps = 0
            for number in range(args.rounds):
                ends: list = []
                steps, seconds = bare(agent, slug, seeds, args.max_steps, ends)
                rounds["bare"].append(seconds / steps)
                found = args.kernel and bare_kernel(agent, slug, seeds, args.max_steps, ends)
                if found:
                    rounds["kernel"].append(found[1] / found[0])
                done, seconds = harness(agent, spec, seeds)
                assert done == steps, (done, steps)
                rounds["harness"].append(seconds / steps)
                folder = Path(scratch) / f"{slug}-{number}"
                done, seconds = full_run(spec, seeds, folder)
                assert done == steps, (done, steps)
                rounds["run"].append(seconds / steps)
                episodes_per_second.append(len(seeds) / seconds)
            base = min(rounds["bare"])
            side = min(rounds["harness"])
            run = min(rounds["run"])
            print(
                f"{slug:<10} {steps:>7} {base * 1e6:>13.1f} {side * 1e6:>9.1f} "
                f"{side / base - 1:>+9.1%} {run * 1e6:>9.1f} {run / base - 1:>+9.1%} "
                f"{max(episodes_per_second):>15.1f}"
                + (
                    f" {min(rounds['kernel']) * 1e6:>15.1f} {min(rounds['kernel']) / base:>12.3f}"
                    if rounds["kernel"]
                    else ""
                )
            )


if __name__ == "__main__":
    main()
