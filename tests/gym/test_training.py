"""A short MaskablePPO run through the door (sb3-contrib, the `[rl]` extra): it trains on
the env as Gymnasium makes it and its masked policy plays only legal actions."""

from __future__ import annotations

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks


def test_maskable_ppo_trains_a_few_hundred_steps_and_plays_legally() -> None:
    torch.set_num_threads(1)
    env = gymnasium.make("playbench/GemSwap-v0", one_hot=True)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=64, seed=1, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    observation, info = env.reset(seed=int(np.random.default_rng().integers(2**31)))
    for _ in range(30):
        masks = get_action_masks(env)
        action, _ = model.predict(observation, action_masks=masks, deterministic=True)
        assert info["action_mask"][int(action)] == 1
        observation, _, terminated, _, info = env.step(int(action))
        assert not info["illegal"]
    assert terminated
