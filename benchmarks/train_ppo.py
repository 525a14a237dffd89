"""Proof that the games are learnable through the Gymnasium door: sb3-contrib's MaskablePPO
on Gem Swap and on Delvewick level 1, against the random agent on 100 held-out seeds.

    pip install -e '.[rl]'
    nice -n 19 python benchmarks/train_ppo.py [--gem-swap-steps 400000] [--delvewick-steps 100000]
        [--minutes 9] [--out benchmarks]

Each game trains for its step budget or for ``--minutes`` of wall time, whichever ends
first (the steps reached are printed), torch on one thread, on 4 envs made by
``gymnasium.make`` with one-hot boards, rewards divided by 100 for the value function (the
curves show them unscaled).
Training games draw their seeds from the env's generator (seeded with 1, below 2**63);
evaluation plays seeds 0-99 (never a training seed in practice), the policy
deterministic and masked, the random agent a uniformly random legal action; for Gem Swap
also a stronger baseline, a uniformly random legal swap (never the hint, which costs 50
points). Prints each mean with its 95% interval (mean +- 1.96 standard errors), writes the
learning curves (mean episode score over the last 50 training episodes, against steps) as
``train_ppo_<game>.png`` and the figures as ``train_ppo.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import gymnasium
import matplotlib
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import playbench  # noqa: F401  (registers the env ids)
from playbench.games.delvewick.levels import LEVELS

matplotlib.use("Agg")
from matplotlib import pyplot

EVAL_SEEDS = range(100)
ENVS = 4
REWARD_SCALE = 0.01
CURVE_WINDOW = 50
Z95 = 1.96
TRAIN_SEED = 1


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
    half = Z95 * values.std(ddof=1) / math.sqrt(len(values))
    mean = float(values.mean())
    return {"mean": mean, "low": mean - half, "high": mean + half}


def evaluate(
    env_id: str, make: dict[str, Any], model: MaskablePPO | None, shunned: tuple[str, ...] = ()
) -> list[float]:
    """Scores over the held-out seeds: the model's masked greedy policy, or random (a
    uniformly random legal action, never one whose text is ``shunned`` while another is
    legal)."""
    env = gymnasium.make(env_id, **make)
    texts = [env.unwrapped.action_text(index) for index in range(env.action_space.n)]
    allowed = np.array([text not in shunned for text in texts], dtype=np.int8)
    chooser = np.random.default_rng(0)
    scores = []
    for seed in EVAL_SEEDS:
        observation, info = env.reset(seed=seed)
        done = False
        while not done:
            if model is None:
                legal = np.flatnonzero(info["action_mask"] & allowed)
                if not len(legal):
                    legal = np.flatnonzero(info["action_mask"])
                action = int(chooser.choice(legal))
            else:
                masks = get_action_masks(env)
                action = int(model.predict(observation, action_masks=masks, deterministic=True)[0])
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        scores.append(float(info["score"]))
    return scores


def scale_reward(env: gymnasium.Env) -> gymnasium.Env:
    return gymnasium.wrappers.TransformReward(env, lambda reward: reward * REWARD_SCALE)


def train(
    name: str,
    env_id: str,
    make: dict[str, Any],
    steps: int,
    minutes: float,
    shunned: tuple[str, ...],
) -> dict:
    envs = make_vec_env(
        env_id, n_envs=ENVS, seed=TRAIN_SEED, env_kwargs=make, wrapper_class=scale_reward
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
    trained = evaluate(env_id, make, model)
    random = evaluate(env_id, make, None)
    stronger = evaluate(env_id, make, None, shunned) if shunned else None
    return {
        "game": name,
        "env": env_id,
        "steps": model.num_timesteps,
        "budget": steps,
        "train_seconds": round(seconds, 1),
        "episodes": len(curve.points),
        "trained": interval(trained),
        "random": interval(random),
        "random_without": {"shunned": list(shunned), **interval(stronger)} if stronger else None,
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
    axes.axhspan(random["low"], random["high"], color="grey", alpha=0.3, label="random, 95%")
    if (stronger := result["random_without"]) is not None:
        label = f"random without {', '.join(stronger['shunned'])}, 95%"
        axes.axhspan(stronger["low"], stronger["high"], color="orange", alpha=0.3, label=label)
    axes.axhspan(trained["low"], trained["high"], color="green", alpha=0.3, label="trained, 95%")
    # the rare far episodes would squeeze the bands and the mean into a thin strip
    axes.set_ylim(top=max(float(np.percentile(scores, 99)), trained["high"]) * 1.1)
    axes.set_xlabel("environment steps")
    axes.set_ylabel("episode score")
    axes.set_title(f"MaskablePPO on {result['game']}")
    axes.legend(loc="upper left", ncol=2, fontsize="small")
    figure.tight_layout()
    path = out / f"train_ppo_{result['game'].lower().replace(' ', '-')}.png"
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path


def main() -> None:
    # one thread: on a shared machine torch's thread pool spins against other work and
    # ran 20 times slower (29 s of CPU for 2,048 steps against 1.7 s)
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gem-swap-steps", type=int, default=400_000)
    parser.add_argument("--delvewick-steps", type=int, default=100_000)
    parser.add_argument("--minutes", type=float, default=9.0, help="wall-time cap per game")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    plans = [
        ("Gem Swap", "playbench/GemSwap-v0", {"one_hot": True}, args.gem_swap_steps, ("hint",)),
        (
            "Delvewick level 1",
            "playbench/Delvewick-v0",
            {"one_hot": True, "options": {"level": LEVELS[0].to_json()}},
            args.delvewick_steps,
            (),
        ),
    ]
    results = []
    for name, env_id, make, steps, shunned in plans:
        result = train(name, env_id, make, steps, args.minutes, shunned)
        path = plot(result, args.out)
        results.append(result)
        trained, random = result["trained"], result["random"]
        print(
            f"{name:<18} {result['steps']:>7,} steps in {result['train_seconds']:>6,.0f} s  "
            f"trained {trained['mean']:>8,.1f} ({trained['low']:,.1f}-{trained['high']:,.1f})  "
            f"random {random['mean']:>8,.1f} ({random['low']:,.1f}-{random['high']:,.1f})  "
            f"separate: {trained['low'] > random['high']}  {path.name}"
        )
        if (stronger := result["random_without"]) is not None:
            print(
                f"{'':<18} random without {', '.join(shunned)}: {stronger['mean']:,.1f} "
                f"({stronger['low']:,.1f}-{stronger['high']:,.1f})  "
                f"separate: {trained['low'] > stronger['high']}"
            )
    summary = [{key: value for key, value in r.items() if key != "curve"} for r in results]
    (args.out / "train_ppo.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
