"""Vector envs: the native one plays exactly as Gymnasium's sync env of single envs, info
keeps its keys and types, masks are read-only, every mode survives game overs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from playbench.games.delvewick.levels import LEVELS
from playbench.gym import env_ids

IDS = list(env_ids())


def any_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal index, or 0 where none is (NEXT_STEP: that env resets whatever it gets)."""
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_chimestep_under_gymnasium_vector_envs_survives_teeters_and_game_overs(mode: str) -> None:
    envs = gymnasium.make_vec("playbench/Chimestep-v0", num_envs=2, vectorization_mode=mode)
    try:
        _, info = envs.reset(seed=[1, 2])
        rng = np.random.default_rng(0)
        for _ in range(300):
            picks = [any_legal(rng, mask) for mask in info["action_mask"]]
            _, _, _, _, info = envs.step(np.array(picks))
        assert set(info) >= {"action_mask", "illegal", "reason", "events", "score"}
    finally:
        envs.close()


def test_same_step_autoreset_hands_out_the_next_episode_and_the_final_one() -> None:
    envs = gymnasium.make_vec(
        "playbench/GemSwap-v0",
        num_envs=2,
        json_info=True,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    _, info = envs.reset(seed=5)
    steps = 0
    while True:
        picks = [int(np.flatnonzero(mask)[0]) for mask in info["action_mask"]]
        _, _, terminated, _, info = envs.step(picks)
        steps += 1
        if terminated.any():
            break
    assert steps == 30
    assert info["action_mask"].any(axis=1).all()
    ended = int(np.flatnonzero(terminated)[0])
    assert info["_final_obs"][ended]
    final = info["final_info"]
    assert info["_final_info"].tolist() == terminated.tolist()
    assert final["action_mask"][ended].sum() == 0
    assert final["observation"]["movesLeft"][ended] == 0
    assert final["score"][ended] == final["score"].max()
    assert info["observation"]["movesLeft"][ended] == 30
    assert info["final_obs"][ended]["stats"][0] == 0


@pytest.mark.parametrize("make", [gymnasium.make, gymnasium.make_vec])
def test_the_mask_handed_out_is_read_only_and_the_next_action_stays_legal(make) -> None:
    env = make("playbench/Delvewick-v0")
    _, info = env.reset(seed=0)
    mask = info["action_mask"]
    legal = mask.copy()
    with pytest.raises(ValueError, match="read-only"):
        mask[...] = 0
    copy = env.unwrapped.action_masks()
    copy[...] = 0
    assert env.unwrapped.action_masks().tolist() == legal.tolist()
    pick = int(np.flatnonzero(legal.reshape(-1, legal.shape[-1])[0])[0])
    _, _, _, _, info = env.step(pick if make is gymnasium.make else [pick])
    assert not np.any(info["illegal"])


@pytest.mark.parametrize("env_id", IDS)
def test_info_has_the_same_keys_and_types_every_step(env_id: str) -> None:
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=3)
    shape = {key: type(value) for key, value in info.items()}
    rng = np.random.default_rng(3)
    for _ in range(200):
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            _, info = env.reset()
        else:
            _, _, _, _, info = env.step(int(rng.choice(legal)))
        assert {key: type(value) for key, value in info.items()} == shape


@pytest.mark.parametrize("env_id", IDS)
def test_native_vector_rows_are_the_single_envs_observations(env_id: str) -> None:
    make = {"one_hot": True, "mask_in_observation": True}
    envs = gymnasium.make_vec(env_id, num_envs=4, **make)
    singles = [gymnasium.make(env_id, **make) for _ in range(4)]
    seed = int(np.random.default_rng().integers(2**31))
    batch, info = envs.reset(seed=seed)
    rows = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    rng = np.random.default_rng(seed)
    ended = np.zeros(4, dtype=np.bool_)
    for _ in range(40):
        assert batch in envs.observation_space
        for i, row in enumerate(rows):
            for key, array in row.items():
                assert np.array_equal(batch[key][i], array), key
        picks = [any_legal(rng, mask) for mask in info["action_mask"]]
        batch, _, terminated, truncated, info = envs.step(picks)
        rows = []
        for i, (env, pick) in enumerate(zip(singles, picks, strict=True)):
            rows.append(env.reset()[0] if ended[i] else env.step(pick)[0])
        ended = terminated | truncated


def test_two_delvewick_vector_envs_of_different_board_shapes_step_in_turn() -> None:
    """A vector env of level 1 alone (the board its own size) and one of every level (the
    board the largest level's size) start on the same layout; stepped in turn, each hands
    out its own matches' boards in its own shape."""
    one_level = {"level": LEVELS[0].to_json()}
    envs = [
        gymnasium.make_vec("playbench/Delvewick-v0", num_envs=3, options=options)
        for options in (one_level, None)
    ]
    seed = int(np.random.default_rng().integers(2**31))
    infos = [env.reset(seed=seed)[1] for env in envs]
    shapes = [(3, LEVELS[0].height, LEVELS[0].width), (3, 12, 28)]
    rng = np.random.default_rng(seed)
    for _ in range(6):
        for k, env in enumerate(envs):
            picks = [int(rng.choice(np.flatnonzero(mask))) for mask in infos[k]["action_mask"]]
            batch, _, _, _, infos[k] = env.step(picks)
            learning = env.unwrapped.learning
            described = learning.arrays(env.unwrapped.options)
            assert batch["board"].shape == shapes[k]
            for i, match in enumerate(env.unwrapped.matches):
                expected = learning.encode(match.state, described)["board"]
                assert batch["board"][i].tolist() == expected.tolist()
