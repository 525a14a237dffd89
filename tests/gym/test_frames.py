"""Pictures for CNNs: the small frame and the one-hot board planes, in the spaces SB3's
CnnPolicy takes, built from the game's own tiles and arrays, every cell at least 3 x 3
pixels."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.preprocessing import is_image_space

from playbench.core.learning import learning_of
from playbench.gym import env_ids

ENV_IDS = env_ids()
IDS = list(ENV_IDS)
#: (board rows, columns) of each env's tiles, the scale of a cell and the frame's (height,
#: width): the smallest at least 64 a side giving a cell at least 3 pixels a side
GRIDS = {
    "playbench/Delvewick-v0": ((12, 28), 3, (64, 84)),
    "playbench/Chimestep-v0": ((7, 7), 9, (64, 64)),
    "playbench/GemSwap-v0": ((8, 8), 8, (64, 64)),
    "playbench/Cogcrawl-v0": ((18, 48), 3, (64, 144)),
}
PLANES = {
    "playbench/Delvewick-v0": 13,
    "playbench/Chimestep-v0": 4 + 7,
    "playbench/GemSwap-v0": 8 + 5,
    "playbench/Cogcrawl-v0": None,
}


@pytest.mark.parametrize("env_id", IDS)
def test_the_frame_is_the_games_tiles_scaled_onto_black(env_id: str) -> None:
    env = gymnasium.make(env_id, obs_type="frame")
    (rows, columns), scale, shape = GRIDS[env_id]
    assert env.observation_space.shape == (*shape, 3)
    assert is_image_space(env.observation_space)
    frame, _ = env.reset(seed=6)
    assert frame in env.observation_space
    tiles = learning_of(env.unwrapped.game).tiles(env.unwrapped.match.state)
    height, width = tiles.shape[:2]
    assert scale >= 3
    expected = np.zeros((*shape, 3), dtype=np.uint8)
    expected[: height * scale, : width * scale] = tiles.repeat(scale, 0).repeat(scale, 1)
    assert np.array_equal(frame, expected)
    assert height <= rows and width <= columns


def test_a_larger_frame_scales_the_tiles_further() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", obs_type="frame", frame_size=84)
    frame, _ = env.reset(seed=1)
    assert frame.shape == (84, 84, 3)
    tiles = learning_of(env.unwrapped.game).tiles(env.unwrapped.match.state)
    assert np.array_equal(frame[:80, :80], tiles.repeat(10, 0).repeat(10, 1))
    assert not frame[80:].any() and not frame[:, 80:].any()


@pytest.mark.parametrize("env_id", IDS)
def test_planes_are_the_board_planes_one_hot_scaled_up(env_id: str) -> None:
    env = gymnasium.make(env_id, obs_type="planes")
    plain = gymnasium.make(env_id)
    planes, _ = env.reset(seed=6)
    arrays, _ = plain.reset(seed=6)
    assert planes in env.observation_space
    assert is_image_space(env.observation_space, check_channels=False)
    boards = [
        (name, array.categories)
        for name, array in env.unwrapped.learning.arrays(None).items()
        if array.categories
    ]
    channels = sum(k for _, k in boards)
    assert PLANES[env_id] in (None, channels)
    (_, _), scale, shape = GRIDS[env_id]
    assert planes.shape == (channels, *shape)
    at = 0
    for name, categories in boards:
        board = arrays[name]
        for category in range(categories):
            cell = (board == category).astype(np.uint8) * 255
            scaled = cell.repeat(scale, 0).repeat(scale, 1)
            height, width = scaled.shape
            assert np.array_equal(planes[at + category, :height, :width], scaled)
            assert not planes[at + category, height:].any()
            assert not planes[at + category, :, width:].any()
        at += categories
    vector = gymnasium.make_vec(env_id, num_envs=2, obs_type="planes")
    batch, _ = vector.reset(seed=6)
    assert np.array_equal(batch[0], planes)


@pytest.mark.parametrize("obs_type", ["frame", "planes"])
@pytest.mark.parametrize("env_id", IDS)
def test_sb3_cnn_policy_trains_on_them_for_a_few_hundred_steps(env_id: str, obs_type: str) -> None:
    torch.set_num_threads(1)
    env = gymnasium.make(env_id, obs_type=obs_type, illegal="penalty", max_episode_steps=100)
    model = PPO("CnnPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    observation, _ = env.reset(seed=0)
    action, _ = model.predict(observation, deterministic=True)
    assert env.action_space.contains(int(action))


@pytest.mark.parametrize("frame_size", [64, (36, 200), 100])
def test_a_frame_size_that_gives_a_cell_under_3_pixels_is_refused(frame_size: object) -> None:
    with pytest.raises(ValueError, match=r"gives a cell of the 18 x 48 board \d pixels a side"):
        gymnasium.make("playbench/Cogcrawl-v0", obs_type="frame", frame_size=frame_size)
    with pytest.raises(ValueError, match="a frame must be at least 54 x 144"):
        gymnasium.make_vec("playbench/Cogcrawl-v0", 2, obs_type="planes", frame_size=frame_size)


@pytest.mark.parametrize("frame_size", [0, -3, 2.5, (64,), (64, "a"), True])
def test_a_frame_size_that_is_no_size_is_refused(frame_size: object) -> None:
    with pytest.raises(ValueError, match="frame_size must be a whole number above 0"):
        gymnasium.make("playbench/GemSwap-v0", obs_type="frame", frame_size=frame_size)
