"""Delvewick strength: the bot beside simpler players over whole runs, in one run.

    python benchmarks/strength_delvewick.py [--seeds 5] [--detour 2]

Delvewick has no randomness (the seed changes nothing), so a seed range repeats one run;
the figures are per run. Players, each from ``Match.start("delvewick", seed)``:

- ``bot``: ``make_bot(seed)`` reading only JSON copies of ``Match.view()``;
- ``bot off plan``: the same bot after ``--detour`` waits at the start of every level,
  so it cannot follow a shipped solution and plans each level from the observation;
- ``baseline``: the nearest-goal search (``next_action``), one action per view;
- ``old solutions``: the solutions shipped before the beam search, replayed;
- ``random``: uniformly random legal actions (``Rng(seed)``).

For each: mean and median score, levels cleared, progress, moves and the time per move
(mean and the slowest move).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from solve_delvewick import REFERENCE

from playbench.bots.delvewick import action_of, make_bot, next_action, state_from_observation
from playbench.core import Rng
from playbench.core.game import JSON, Action
from playbench.core.match import Match

Chooser = Callable[[JSON], Action]


def run(choose: Chooser, seed: int) -> tuple[JSON, list[float]]:
    """Play one whole run; the final view and the seconds of each decision."""
    match = Match.start("delvewick", seed)
    times = []
    while not match.view()["gameOver"]:
        view = json.loads(json.dumps(match.view()))
        start = time.perf_counter()
        action = choose(view)
        times.append(time.perf_counter() - start)
        match.play(action)
    return match.view(), times


def bot(seed: int, detour: int) -> Chooser:
    player = make_bot(seed)
    waited: dict[int, int] = {}

    def choose(view: JSON) -> Action:
        level = view["observation"]["level"]
        if waited.get(level, 0) < detour:
            waited[level] = waited.get(level, 0) + 1
            return {"type": "wait"}
        return player.act(view)

    return choose


def baseline(seed: int) -> Chooser:
    return lambda view: next_action(state_from_observation(view["observation"]))


def old_solutions(seed: int) -> Chooser:
    letters = iter("".join(REFERENCE))
    return lambda view: action_of(next(letters))


def random_player(seed: int) -> Chooser:
    rng = Rng(seed)
    return lambda view: rng.choice(view["legalActions"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--detour", type=int, default=2)
    args = parser.parse_args()
    players: dict[str, Callable[[int], Chooser]] = {
        "bot": lambda seed: bot(seed, 0),
        f"bot off plan ({args.detour} waits)": lambda seed: bot(seed, args.detour),
        "baseline": baseline,
        "old solutions": old_solutions,
        "random": random_player,
    }
    print(f"seeds 0-{args.seeds - 1} (Delvewick has no randomness: every seed is one run)")
    print(
        f"{'player':26} {'mean':>6} {'median':>6} {'levels':>6} {'progress':>8} {'moves':>5}"
        f" {'ms/move':>8} {'max ms':>8} {'ratio':>6}"
    )
    reference = None
    for name, make in players.items():
        scores, levels, progress, moves, times = [], [], [], [], []
        for seed in range(args.seeds):
            view, spent = run(make(seed), seed)
            observation = view["observation"]
            won = observation["status"] == "won"
            scores.append(view["score"])
            levels.append(8 if won else observation["level"] - 1)
            progress.append(view["progress"])
            moves.append(view["moves"])
            times.extend(spent)
        mean = statistics.mean(scores)
        reference = reference or mean
        print(
            f"{name:26} {mean:6.0f} {statistics.median(scores):6.0f}"
            f" {statistics.mean(levels):6.1f} {statistics.mean(progress):8.3f}"
            f" {statistics.mean(moves):5.0f} {1000 * statistics.mean(times):8.3f}"
            f" {1000 * max(times):8.1f} {mean / reference:6.3f}"
        )
    print("ratio: mean score over the bot's mean score")


if __name__ == "__main__":
    main()
