"""MaskablePPO on all four games through the Gymnasium door, trained on the train games of
the protocol (``playbench.gym.protocol``) and measured on its held-out test games, beside
the random agent and the bot.

    pip install -e '.[rl]'
    nice -n 19 python benchmarks/train_ppo.py [--steps 60000] [--minutes 3]
        [--test-games 100] [--games SLUG ...] [--out benchmarks]

Budget: each game trains for ``--steps`` environment steps or ``--minutes`` of wall time,
whichever ends first (the steps reached are printed and stored), torch on one thread, on
4 envs made by ``gymnasium.make`` (one-hot boards, the default mask: Cogcrawl's ``up`` on
level 1 left out, illegal actions no-ops), rewards divided by 100 for the value function
(the curves show them unscaled). Training resets draw from the protocol's training games:
seeds 1,000 .. 1,000,999 for Gem Swap, Chimestep and Cogcrawl (the first four episodes
seeded 1,000-1,003), start levels 1-6 for Delvewick.

Evaluation plays the first ``--test-games`` test games: seeds 0 .. n - 1 (never a
training seed), or for Delvewick start levels 7 and 8 in turn (levels never trained on).
The trained policy is masked and samples its actions (seeded): Delvewick draws nothing at
random, so a greedy policy would play two games over and over, and a greedy Chimestep
policy ran its test games to the 20,000-step cap (hops while the hop cooldown is on are
buffered and pass no time). The random agent
plays a uniformly random legal action on the same games. Prints each mean with its 95%
interval (mean +- 1.96 standard errors) and its normalised score (random 0, bot 1, by
``playbench/gym/baselines.json``), beside the bot's mean from that file; writes the
learning curves (episode scores against steps, with the mean of the last 50) as
``train_ppo_<game>.png`` and the figures as ``train_ppo.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import gymnasium
import matplotlib
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import playbench  # noqa: F401  (registers the env ids)
from playbench.gym import env_ids, protocol
from playbench.gym.baselines import figures

matplotlib.use("Agg")
from matplotlib import pyplot

GAMES = ("gem-swap", "delvewick", "chimestep", "cogcrawl")
ENVS = 4
REWARD_SCALE = 0.01
CURVE_WINDOW = 50
Z95 = 1.96
TRAIN_SEED = protocol.TRAIN_START_SEED
POLICY_SEED = 0
#: the env keywords of training and evaluation alike
MAKE = {"one_hot": True}


class Curve(BaseCallback):
    """Records each finished training episode's score and stops at the wall-time limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds
        self.points: list[tuple[int, float]] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.points.append((self.num_timesteps, float(info["episode"]["r"])))
        return time.monotonic() < self.deadline


def interval(scores: list[float]) -> dict[str, float]:
    values = np.array(scores, dtype=float)
    half = Z95 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    mean = float(values.mean())
    return {"mean": mean, "low": mean - half, "high": mean + half}


def evaluate(
    env_id: str,
    games: list[tuple[int, dict | None]],
    model: MaskablePPO | None,
    deterministic: bool = False,
) -> tuple[list[float], list[float], list[int]]:
    """Scores, normalised scores and moves played over ``games``: the model's masked
    policy, or random (a uniformly random legal action). The env plays each game's seed
    itself (``games="any"``: the test games are named here, seed and options)."""
    env = gymnasium.make(env_id, games="any", **MAKE)
    chooser = np.random.default_rng(POLICY_SEED)
    if model is not None:
        model.set_random_seed(POLICY_SEED)
    scores, normalised, lengths = [], [], []
    for seed, options in games:
        observation, info = env.reset(seed=seed, options=options)
        done = False
        while not done:
            if model is None:
                action = int(chooser.choice(np.flatnonzero(info["action_mask"])))
            else:
                masks = get_action_masks(env)
                chosen = model.predict(observation, action_masks=masks, deterministic=deterministic)
                action = int(chosen[0])
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        scores.append(float(info["score"]))
        normalised.append(float(info["normalised_score"]))
        lengths.append(env.unwrapped.match.moves)
    return scores, normalised, lengths


def scale_reward(env: gymnasium.Env) -> gymnasium.Env:
    return gymnasium.wrappers.TransformReward(env, lambda reward: reward * REWARD_SCALE)


def bot_figure(slug: str, games: list[tuple[int, dict | None]]) -> float:
    """The bot's mean over the test games' options, from baselines.json."""
    return statistics.fmean(figures(slug, options)["bot"] for _, options in games)


def train(slug: str, steps: int, minutes: float, test_games: int) -> dict:
    env_id = {game: name for name, game in env_ids().items()}[slug]
    keywords = {**MAKE, **protocol.train_keywords(slug)}
    envs = make_vec_env(
        env_id, n_envs=ENVS, seed=TRAIN_SEED, env_kwargs=keywords, wrapper_class=scale_reward
    )
    model = MaskablePPO(
        "MultiInputPolicy",
        envs,
        n_steps=256,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        ent_coef=0.01,
        seed=TRAIN_SEED,
        device="cpu",
        verbose=0,
    )
    curve = Curve(minutes * 60)
    began = time.monotonic()
    model.learn(total_timesteps=steps, callback=curve)
    seconds = time.monotonic() - began
    games = protocol.test_games(slug, test_games)
    trained, trained_normalised, trained_moves = evaluate(env_id, games, model)
    random, random_normalised, random_moves = evaluate(env_id, games, None)
    return {
        "game": slug,
        "env": env_id,
        "steps": model.num_timesteps,
        "budget": steps,
        "minutes": minutes,
        "train_seconds": round(seconds, 1),
        "episodes": len(curve.points),
        "test_games": len(games),
        "trained_moves": statistics.fmean(trained_moves),
        "random_moves": statistics.fmean(random_moves),
        "trained": interval(trained),
        "trained_normalised": interval(trained_normalised),
        "random": interval(random),
        "random_normalised": interval(random_normalised),
        "bot": bot_figure(slug, games),
        # make_vec_env puts Monitor inside the reward scaling: these are the scores
        "curve": curve.points,
    }


def plot(result: dict, out: Path) -> Path:
    points = result["curve"]
    steps = [step for step, _ in points]
    scores = np.array([score for _, score in points])
    window = min(CURVE_WINDOW, max(1, len(scores)))
    smooth = np.convolve(scores, np.ones(window) / window, mode="valid")
    figure, axes = pyplot.subplots(figsize=(7, 4))
    axes.plot(steps, scores, ".", alpha=0.2, label="training episode")
    axes.plot(steps[window - 1 :], smooth, label=f"mean of the last {window}")
    random, trained = result["random"], result["trained"]
    for band, colour, label in ((random, "grey", "random"), (trained, "green", "trained")):
        label = f"{label} (test), 95%"
        axes.axhspan(band["low"], band["high"], color=colour, alpha=0.3, label=label)
    # the rare far episodes would squeeze the bands and the mean into a thin strip
    axes.set_ylim(top=max(float(np.percentile(scores, 99)), trained["high"]) * 1.1)
    axes.set_ylabel("training episode score (train games)")
    axes.set_title(f"MaskablePPO on {result['game']} (the bot: {result['bot']:,.0f})")
    axes.legend(loc="upper left", ncol=2, fontsize="small")
    return save(figure, out / f"train_ppo_{result['game']}.png")


def against(result: dict) -> str:
    """The trained agent's mean test score with its 95% interval, normalised too, beside
    the random agent's and the bot's."""
    trained, random = result["trained"], result["random"]
    shown = result["trained_normalised"]
    return (
        f"trained {trained['mean']:>8,.1f} ({trained['low']:,.1f}-{trained['high']:,.1f}) "
        f"normalised {shown['mean']:.3f} ({shown['low']:.3f}-{shown['high']:.3f})  "
        f"random {random['mean']:>8,.1f} ({random['low']:,.1f}-{random['high']:,.1f})  "
        f"bot {result['bot']:,.1f}"
    )


def save(figure, path: Path) -> Path:
    """Write a learning curve's figure (its x axis the environment steps) and close it."""
    figure.axes[0].set_xlabel("environment steps")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path


def main() -> None:
    # one thread: on a shared machine torch's thread pool spins against other work and
    # ran 20 times slower (29 s of CPU for 2,048 steps against 1.7 s)
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--steps", type=int, default=60_000, help="step budget per game")
    parser.add_argument("--minutes", type=float, default=3.0, help="wall-time cap per game")
    parser.add_argument("--test-games", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    results = []
    for slug in args.games:
        result = train(slug, args.steps, args.minutes, args.test_games)
        picture = plot(result, args.out)
        results.append(result)
        apart = result["trained"]["low"] > result["random"]["high"]
        print(
            f"{slug:<10} {result['steps']:>7,} steps in {result['train_seconds']:>5,.0f} s  "
            f"{against(result)}  apart: {apart}  {picture.name}",
            flush=True,
        )
    # the games run replace their own entries; the others' stay
    path = args.out / "train_ppo.json"
    kept = json.loads(path.read_text()) if path.exists() else []
    ran = {result["game"] for result in results}
    summary = [entry for entry in kept if entry.get("game") not in ran]
    summary += [{key: value for key, value in r.items() if key != "curve"} for r in results]
    order = {slug: index for index, slug in enumerate(GAMES)}
    summary.sort(key=lambda entry: order.get(entry.get("game"), len(order)))
    path.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
