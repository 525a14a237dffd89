"""The random agent's and the bot's mean scores per game: the data
``info["normalised_score"]`` of the Gymnasium door is normalised by
(``playbench/gym/baselines.json``).

    nice -n 19 python benchmarks/gym_baselines.py [--games SLUG ...] [--random-seeds 100]
        [--bot-seeds 20] [--write]

- **random**: a uniformly random legal action of the env's mask (what
  ``gymnasium.make`` hands out by default: Cogcrawl's ``up`` on level 1 left out), one
  episode per seed 0 .. ``--random-seeds`` - 1, the action draws seeded with the seed.
- **bot**: the game's bot (``playbench.bots.<game>.make_bot(seed)``) through ``Match``,
  one run per seed 0 .. ``--bot-seeds`` - 1, each stopped at the env's step cap (the
  game's ``step_cap``), as an episode is.

Delvewick draws nothing at random, so its bot plays one run per start level (seed 0) and
its random agent ``--random-seeds`` episodes per start level; the figures are keyed by
``startLevel=N`` (and ``""``, level 1, the default). Prints every figure and the seconds
it took; ``--write`` stores them (with the seeds, caps and date) in baselines.json.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import statistics
import time
from typing import Any

import gymnasium
import numpy as np

import playbench  # noqa: F401  (registers the env ids)
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.games.delvewick.levels import LEVELS
from playbench.gym import env_ids
from playbench.gym.baselines import PATH

GAMES = ("delvewick", "chimestep", "gem-swap", "cogcrawl")


def random_mean(env_id: str, seeds: range, options: dict | None) -> float:
    env = gymnasium.make(env_id, options=options)
    scores = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        scores.append(info["score"])
    return statistics.fmean(scores)


def bot_mean(slug: str, seeds: range, options: dict | None) -> float:
    game = get_game(slug)
    make_bot = importlib.import_module(f"playbench.bots.{slug.replace('-', '')}").make_bot
    scores = []
    for seed in seeds:
        bot = make_bot(seed)
        match = Match.start(game, seed, options)
        view = match.view()
        while not view["gameOver"] and match.moves < game.step_cap:
            match.play(bot.act(view))
            view = match.view()
        scores.append(view["score"])
    return statistics.fmean(scores)


def figures(slug: str, random_seeds: int, bot_seeds: int) -> dict[str, Any]:
    env_id = {game: name for name, game in env_ids().items()}[slug]
    if slug == "delvewick":
        tasks = {f"startLevel={n}": {"startLevel": n} for n in range(1, len(LEVELS) + 1)}
        bot_range = range(1)
    else:
        tasks = {"": None}
        bot_range = range(bot_seeds)
    found: dict[str, Any] = {}
    for key, options in tasks.items():
        started = time.process_time()
        low = random_mean(env_id, range(random_seeds), options)
        middle = time.process_time()
        high = bot_mean(slug, bot_range, options)
        done = time.process_time()
        found[key] = {
            "random": low,
            "bot": high,
            "random_seeds": [0, random_seeds - 1],
            "bot_seeds": [bot_range[0], bot_range[-1]],
        }
        print(
            f"{slug:10} {key or '(default)':13} random {low:10.2f} ({middle - started:6.1f} s)"
            f"  bot {high:10.2f} ({done - middle:6.1f} s)",
            flush=True,
        )
    if slug == "delvewick":
        found[""] = found["startLevel=1"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--random-seeds", type=int, default=100)
    parser.add_argument("--bot-seeds", type=int, default=20)
    parser.add_argument("--write", action="store_true", help="store them in baselines.json")
    args = parser.parse_args()
    games = {slug: figures(slug, args.random_seeds, args.bot_seeds) for slug in args.games}
    if args.write:
        kept = json.loads(PATH.read_text(encoding="utf-8")) if PATH.exists() else {"games": {}}
        kept["games"].update(games)
        kept["made_by"] = (
            "benchmarks/gym_baselines.py: random = mean score of a uniformly random legal "
            "action of the env's default mask, seeds 0..random_seeds[1]; bot = mean score of "
            "playbench.bots.<game>.make_bot(seed) through Match, seeds bot_seeds, each run "
            "stopped at the game's step_cap"
        )
        kept["made"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        PATH.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
