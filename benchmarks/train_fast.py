"""Masked PPO at the kernels' speed: 20 million steps a game, then the held-out games.

    pip install -e '.[rl]'
    python benchmarks/train_fast.py [--games SLUG ...] [--steps 20000000] [--envs 512]
        [--horizon 64] [--test-games 100] [--threads 1] [--out benchmarks]

A PPO in the manner of PufferLib and CleanRL, written for these envs: one native vector
env of ``--envs`` games through Gymnasium's API (``gymnasium.make_vec(id, num_envs=N,
events=False)``, stepped by the game's compiled kernel in one call a step), the protocol's
training games (``playbench.gym.protocol.train_keywords``), the mask applied to the logits,
and every array of the dict observation fed as it is: each board plane of categories
through a learned embedding of 4 numbers a cell (Cogcrawl's 18 x 48 map as the 15 x 15
window around the hero), the other arrays as numbers. Two layers of 64, a policy and a
value head; rewards are the score gained divided by the game's span between the random
agent and the bot (``playbench/gym/baselines.json``), so an episode's rewards sum to about
its normalised score. One pass over each rollout of ``envs x horizon`` steps in
minibatches of 8,192.

Under the vector env's ``NEXT_STEP`` autoreset the step after an episode ends hands out
that episode's last observation and resets whatever the action: that step is no sample.
Its observation is the one a truncated episode's value is bootstrapped from.

The time is split three ways and printed: the env's ``step`` (CPU and wall), the policy's
acting, and the learning. Evaluation plays the first ``--test-games`` test games of the
protocol (seeds 0 .. n - 1, never a training seed; Delvewick's levels 7 and 8 in turn,
never trained on) to their ends in one vector env, the trained policy sampling masked
actions and the random agent a uniformly random legal action, and prints each mean score
with its 95% interval (mean +- 1.96 standard errors) and the normalised score (random 0,
bot 1). Writes ``train_fast.json`` and ``train_fast_<game>.png`` (the training episodes'
normalised scores against steps) in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium
import matplotlib
import numpy as np
import torch
from torch import nn
from train_ppo import GAMES, against, interval, save

import playbench  # noqa: F401  (registers the env ids)
from playbench.gym import env_ids, protocol
from playbench.gym.baselines import figures

matplotlib.use("Agg")
from matplotlib import pyplot

EMBED = 4
HIDDEN = 64
MINIBATCH = 8_192
GAMMA = 0.995
LAMBDA = 0.95
CLIP = 0.2
ENTROPY = 0.01
VALUE = 0.5
LEARNING_RATE = 2.5e-4
MAX_GRAD = 0.5
#: the board planes cropped around a position: key -> (position key, radius); the
#: position is (x, y), the plane rows by y
CROPS = {"cogcrawl": {"map": ("position", 7)}}
POLICY_SEED = 0


class Features(nn.Module):
    """The dict observation as one vector: planes of categories embedded, numbers kept."""

    def __init__(self, space: gymnasium.spaces.Dict, crops: dict[str, tuple[str, int]]) -> None:
        super().__init__()
        self.crops = crops
        self.planes = nn.ModuleDict()
        self.numbers: dict[str, float] = {}
        size = 0
        for key, box in space.spaces.items():
            cells = int(np.prod(box.shape))
            if key in crops:
                cells = (2 * crops[key][1] + 1) ** 2
            if box.dtype == np.uint8 and cells >= 16:
                self.planes[key] = nn.Embedding(int(box.high.max()) + 1, EMBED)
                size += cells * EMBED
            else:
                top = float(np.max(np.abs(np.concatenate([box.low.ravel(), box.high.ravel()]))))
                self.numbers[key] = 1.0 / top if np.isfinite(top) and top > 0 else 1.0
                size += cells
        self.size = size

    def forward(self, observation: dict[str, torch.Tensor]) -> torch.Tensor:
        parts = []
        for key, embedding in self.planes.items():
            plane = observation[key].long()
            if key in self.crops:
                plane = crop(plane, observation[self.crops[key][0]].long(), self.crops[key][1])
            parts.append(embedding(plane).flatten(1))
        for key, scale in self.numbers.items():
            parts.append(observation[key].float().flatten(1) * scale)
        return torch.cat(parts, dim=1)


def crop(plane: torch.Tensor, position: torch.Tensor, radius: int) -> torch.Tensor:
    """The (2r+1)^2 window of each plane (B, H, W) around its (x, y), 0 off the plane."""
    padded = nn.functional.pad(plane, (radius, radius, radius, radius))
    offsets = torch.arange(2 * radius + 1)
    rows = position[:, 1:2] + offsets
    columns = position[:, 0:1] + offsets
    batch = torch.arange(plane.shape[0])[:, None, None]
    return padded[batch, rows[:, :, None], columns[:, None, :]]


class Agent(nn.Module):
    def __init__(self, space: gymnasium.spaces.Dict, actions: int, crops: dict) -> None:
        super().__init__()
        self.features = Features(space, crops)
        self.body = nn.Sequential(
            nn.Linear(self.features.size, HIDDEN),
            nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN),
            nn.ReLU(),
        )
        self.policy = nn.Linear(HIDDEN, actions)
        self.value = nn.Linear(HIDDEN, 1)

    def forward(
        self, observation: dict[str, torch.Tensor], mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.body(self.features(observation))
        logits = self.policy(hidden).masked_fill(~mask, -1e9)
        return torch.log_softmax(logits, dim=1), self.value(hidden).squeeze(1)


def playable(mask: np.ndarray) -> torch.Tensor:
    """The mask as booleans, a row of zeros (an ended game: any action resets it) as ones."""
    rows = torch.from_numpy(mask.astype(np.bool_))
    rows[~rows.any(dim=1)] = True
    return rows


def sample(log_probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    noise = torch.rand(log_probs.shape, generator=generator).clamp_(1e-12, 1.0)
    return torch.argmax(log_probs - torch.log(-torch.log(noise)), dim=1)


def tensors(observation: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {
        key: torch.from_numpy(np.ascontiguousarray(value)) for key, value in observation.items()
    }


@dataclass
class Clock:
    env_cpu: float = 0.0
    env_wall: float = 0.0
    act: float = 0.0
    learn: float = 0.0
    began: float = field(default_factory=time.monotonic)
    began_cpu: float = field(default_factory=time.process_time)


@dataclass
class Rollout:
    """One rollout's buffers, ``horizon`` steps of ``count`` envs (the observations, masks
    and values one step more: the step after the last, to bootstrap from)."""

    store: dict[str, torch.Tensor]
    masks: torch.Tensor
    actions: torch.Tensor
    chosen_log: torch.Tensor
    rewards: torch.Tensor
    terminated: torch.Tensor
    ended: torch.Tensor
    valid: torch.Tensor
    values: torch.Tensor

    @classmethod
    def for_shapes(cls, observation: dict, actions: int, horizon: int, count: int) -> Rollout:
        def flags() -> torch.Tensor:
            return torch.zeros((horizon, count), dtype=torch.bool)

        store = {
            key: torch.zeros(
                (horizon + 1, count, *value.shape[1:]), dtype=torch.from_numpy(value).dtype
            )
            for key, value in observation.items()
        }
        return cls(
            store=store,
            masks=torch.zeros((horizon + 1, count, actions), dtype=torch.bool),
            actions=torch.zeros((horizon, count), dtype=torch.long),
            chosen_log=torch.zeros((horizon, count)),
            rewards=torch.zeros((horizon, count)),
            terminated=flags(),
            ended=flags(),
            valid=flags(),
            values=torch.zeros((horizon + 1, count)),
        )


def env_id_of(slug: str) -> str:
    return {game: name for name, game in env_ids().items()}[slug]


def train(slug: str, steps: int, count: int, horizon: int, seed: int) -> tuple[Agent, dict]:
    envs = gymnasium.make_vec(
        env_id_of(slug), num_envs=count, events=False, **protocol.train_keywords(slug)
    )
    if getattr(envs.unwrapped, "_kernel", None) is None:
        raise SystemExit(f"{slug}: the vector env is not on a compiled kernel here")
    torch.manual_seed(seed)
    agent = Agent(
        envs.single_observation_space, int(envs.single_action_space.n), CROPS.get(slug, {})
    )
    optimiser = torch.optim.Adam(agent.parameters(), lr=LEARNING_RATE, eps=1e-5)
    generator = torch.Generator().manual_seed(seed)
    # rewards and the curve on the span from the random agent to the bot
    figure = figures(slug, None)
    low, span = figure["random"], max(figure["bot"] - figure["random"], 1.0)
    scale = 1.0 / span
    clock = Clock()
    observation, info = envs.reset(seed=protocol.TRAIN_START_SEED + seed)
    mask = playable(info["action_mask"])
    after_end = torch.zeros(count, dtype=torch.bool)
    keys = list(observation)
    rollout = Rollout.for_shapes(observation, mask.shape[1], horizon, count)
    store, masks, actions, chosen_log = (
        rollout.store,
        rollout.masks,
        rollout.actions,
        rollout.chosen_log,
    )
    rewards, terminated, ended = rollout.rewards, rollout.terminated, rollout.ended
    valid, values = rollout.valid, rollout.values
    curve: list[tuple[int, float]] = []
    done_steps = 0
    updates = 0
    while done_steps < steps:
        began = time.process_time()
        for t in range(horizon):
            for key in keys:
                store[key][t] = torch.from_numpy(observation[key])
            masks[t] = mask
            valid[t] = ~after_end
            with torch.no_grad():
                log_probs, value = agent({key: store[key][t] for key in keys}, mask)
            action = sample(log_probs, generator)
            actions[t] = action
            chosen_log[t] = log_probs.gather(1, action[:, None]).squeeze(1)
            values[t] = value
            wall, cpu = time.monotonic(), time.process_time()
            observation, reward, term, trunc, info = envs.step(action.numpy())
            clock.env_cpu += time.process_time() - cpu
            clock.env_wall += time.monotonic() - wall
            rewards[t] = torch.from_numpy(np.asarray(reward, dtype=np.float32)) * scale
            terminated[t] = torch.from_numpy(term)
            over = term | trunc
            now_ended = torch.from_numpy(over)
            ended[t] = now_ended
            for i in np.flatnonzero(over):
                curve.append((done_steps + t * count, (float(info["score"][i]) - low) / span))
            after_end = now_ended
            mask = playable(info["action_mask"])
        for key in keys:
            store[key][horizon] = torch.from_numpy(observation[key])
        masks[horizon] = mask
        with torch.no_grad():
            _, values[horizon] = agent({key: store[key][horizon] for key in keys}, mask)
        done_steps += horizon * count
        clock.act += time.process_time() - began
        began = time.process_time()
        update(agent, optimiser, rollout, generator)
        updates += 1
        clock.learn += time.process_time() - began
    envs.close()
    wall = time.monotonic() - clock.began
    cpu = time.process_time() - clock.began_cpu
    return agent, {
        "steps": done_steps,
        "updates": updates,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "env_cpu_seconds": round(clock.env_cpu, 1),
        "env_wall_seconds": round(clock.env_wall, 1),
        "env_share_of_wall": round(clock.env_wall / wall, 4),
        "env_share_of_cpu": round(clock.env_cpu / cpu, 4),
        "acting_cpu_seconds": round(clock.act - clock.env_cpu, 1),
        "learning_cpu_seconds": round(clock.learn, 1),
        "steps_per_second": round(done_steps / wall),
        "episodes": len(curve),
        "curve": curve,
    }


def update(agent, optimiser, rollout: Rollout, generator: torch.Generator) -> None:
    """One pass of PPO's clipped loss over the rollout, advantages by GAE."""
    horizon, count = rollout.rewards.shape
    advantages = torch.zeros((horizon, count))
    running = torch.zeros(count)
    for t in reversed(range(horizon)):
        # the observation after step t is the ended episode's last one: the value of a
        # truncated episode's state, and nothing after a terminated one
        following = rollout.values[t + 1] * (~rollout.terminated[t])
        delta = rollout.rewards[t] + GAMMA * following - rollout.values[t]
        running = delta + GAMMA * LAMBDA * (~rollout.ended[t]) * running
        advantages[t] = running
    returns = advantages + rollout.values[:horizon]
    rows = rollout.valid.flatten().nonzero().squeeze(1)
    flat = {key: value[:horizon].flatten(0, 1) for key, value in rollout.store.items()}
    flat_masks = rollout.masks[:horizon].flatten(0, 1)
    order = rows[torch.randperm(len(rows), generator=generator)]
    adv = advantages.flatten()
    for start in range(0, len(order), MINIBATCH):
        batch = order[start : start + MINIBATCH]
        log_probs, value = agent(
            {key: value[batch] for key, value in flat.items()}, flat_masks[batch]
        )
        new_log = log_probs.gather(1, rollout.actions.flatten()[batch, None]).squeeze(1)
        ratio = torch.exp(new_log - rollout.chosen_log.flatten()[batch])
        advantage = adv[batch]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        policy_loss = -torch.min(
            ratio * advantage, ratio.clamp(1 - CLIP, 1 + CLIP) * advantage
        ).mean()
        value_loss = ((value - returns.flatten()[batch]) ** 2).mean()
        probs = log_probs.exp()
        entropy = -(probs * log_probs.clamp(min=-30.0)).sum(dim=1).mean()
        loss = policy_loss + VALUE * value_loss - ENTROPY * entropy
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(agent.parameters(), MAX_GRAD)
        optimiser.step()


def play_tests(slug: str, count: int, choose) -> tuple[list[float], list[float]]:
    """Scores and normalised scores of the first ``count`` test games, each played once to
    its end in one vector env by ``choose(observation, mask) -> actions``."""
    games = protocol.test_games(slug, count)
    envs = gymnasium.make_vec(env_id_of(slug), num_envs=count, events=False, games="test")
    seeds = [seed for seed, _ in games]
    every = sorted({json.dumps(options, sort_keys=True) for _, options in games})
    observation, info = envs.reset(seed=seeds, options=json.loads(every[0]))
    for text in every[1:]:
        chosen = [json.dumps(options, sort_keys=True) == text for _, options in games]
        observation, info = envs.reset(
            seed=seeds, options={**json.loads(text), "reset_mask": np.array(chosen)}
        )
    scores = [float("nan")] * count
    normalised = [float("nan")] * count
    open_games = np.ones(count, dtype=np.bool_)
    while open_games.any():
        actions = choose(observation, playable(info["action_mask"]))
        observation, _, term, trunc, info = envs.step(actions)
        for i in np.flatnonzero((term | trunc) & open_games):
            scores[i] = float(info["score"][i])
            normalised[i] = float(info["normalised_score"][i])
            open_games[i] = False
    envs.close()
    return scores, normalised


def evaluate(slug: str, agent: Agent, count: int) -> dict:
    generator = torch.Generator().manual_seed(POLICY_SEED)

    def trained(observation, mask):
        with torch.no_grad():
            log_probs, _ = agent(tensors(observation), mask)
        return sample(log_probs, generator).numpy()

    def random(observation, mask):
        return sample(torch.log(mask.float()), generator).numpy()

    began = time.monotonic()
    scores, normalised = play_tests(slug, count, trained)
    random_scores, random_normalised = play_tests(slug, count, random)
    games = protocol.test_games(slug, count)
    return {
        "test_games": count,
        "trained": interval(scores),
        "trained_normalised": interval(normalised),
        "random": interval(random_scores),
        "random_normalised": interval(random_normalised),
        "bot": statistics.fmean(figures(slug, options)["bot"] for _, options in games),
        "evaluation_seconds": round(time.monotonic() - began, 1),
    }


def plot(result: dict, out: Path) -> Path:
    points = result.pop("curve")
    steps = np.array([step for step, _ in points], dtype=float)
    scores = np.array([score for _, score in points])
    window = max(1, min(500, len(scores) // 20))
    figure, axes = pyplot.subplots(figsize=(7, 4))
    if len(scores):
        smooth = np.convolve(scores, np.ones(window) / window, mode="valid")
        label = f"training episodes, mean of the last {window}"
        axes.plot(steps[window - 1 :], smooth, label=label)
    else:
        axes.set_xlim(0, result["steps"])
        axes.text(0.5, 0.5, "no training episode ended", transform=axes.transAxes, ha="center")
    for name, colour in (("random_normalised", "grey"), ("trained_normalised", "green")):
        band = result[name]
        label = f"{name.split('_')[0]} on the test games, 95%"
        axes.axhspan(band["low"], band["high"], color=colour, alpha=0.3, label=label)
    axes.axhline(1.0, color="black", linestyle=":", label="the bot")
    axes.set_ylabel("normalised score (random 0, bot 1)")
    axes.set_title(f"PPO on the kernel: {result['game']}, {result['steps']:,} steps")
    axes.legend(loc="best", fontsize="small")
    return save(figure, out / f"train_fast_{result['game']}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--steps", type=int, default=20_000_000, help="steps per game")
    parser.add_argument("--envs", type=int, default=512)
    parser.add_argument("--horizon", type=int, default=64)
    parser.add_argument("--test-games", type=int, default=100)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch's threads (one: a busy machine makes more spin)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = args.out / "train_fast.json"
    for slug in args.games:
        agent, result = train(slug, args.steps, args.envs, args.horizon, args.seed)
        result = {"game": slug, "envs": args.envs, "horizon": args.horizon, **result}
        result.update(evaluate(slug, agent, args.test_games))
        picture = plot(result, args.out)
        print(
            f"{slug:<10} {result['steps']:>11,} steps in {result['wall_seconds']:>7,.0f} s wall "
            f"({result['steps_per_second']:,}/s), env {result['env_share_of_wall']:.1%} of wall "
            f"{result['env_share_of_cpu']:.1%} of CPU  {against(result)}  {picture.name}",
            flush=True,
        )
        # each game's run replaces its own entry; the others' stay
        kept = json.loads(path.read_text()) if path.exists() else []
        summary = [entry for entry in kept if entry.get("game") != slug] + [result]
        order = {game: index for index, game in enumerate(GAMES)}
        summary.sort(key=lambda entry: order.get(entry["game"], len(order)))
        path.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
