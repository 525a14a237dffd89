"""Code written for Gymnasium runs on the envs unchanged: the mask where sb3-contrib and
Gymnasium users look for it, the vector env's info in Gymnasium's layout, every Gymnasium
vector wrapper over the default ``make_vec``, pickles and deep copies that play on alike,
``progress`` normalised by the stored baselines."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as vector_wrappers
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from playbench.core.registry import get_game
from playbench.gym import env_ids
from playbench.gym.baselines import figures
from playbench.gym.vector import action_masks

ENV_IDS = env_ids()
IDS = list(ENV_IDS)


def legal_pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random legal action, or 0 for a row of zeros (an ended env, reset by any action)."""
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


@pytest.mark.parametrize("env_id", IDS)
def test_action_masks_is_where_sb3_contrib_and_gymnasium_users_look(env_id: str) -> None:
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=4)
    assert env.unwrapped.action_masks().tolist() == info["action_mask"].tolist()
    assert action_masks(env).tolist() == info["action_mask"].tolist()
    assert env.get_wrapper_attr("action_masks")().tolist() == info["action_mask"].tolist()
    assert is_masking_supported(env)
    assert get_action_masks(env).tolist() == info["action_mask"].tolist()
    wrapped = gymnasium.wrappers.RecordEpisodeStatistics(env)
    assert get_action_masks(wrapped).tolist() == info["action_mask"].tolist()


def test_a_time_limit_of_ones_own_still_ends_the_episode_and_keeps_the_mask_reachable() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", max_episode_steps=2)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    _, _, _, truncated, info = env.step(legal_pick(rng, info["action_mask"]))
    assert not truncated
    _, _, _, truncated, info = env.step(legal_pick(rng, info["action_mask"]))
    assert truncated
    assert get_action_masks(env).tolist() == info["action_mask"].tolist()


@pytest.mark.parametrize("env_id", IDS)
def test_vector_info_is_in_gymnasiums_layout_with_key_flags(env_id: str) -> None:
    native = gymnasium.make_vec(env_id, num_envs=3, autoreset_mode=AutoresetMode.SAME_STEP)
    sync = gymnasium.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    _, info = native.reset(seed=20)
    _, other = sync.reset(seed=20)
    assert set(info) == set(other)
    for key in info:
        if key.startswith("_"):
            assert info[key].dtype == np.bool_ and info[key].all(), key
    rng = np.random.default_rng(20)
    finals = 0
    for _ in range(400):
        picks = [legal_pick(rng, mask) for mask in info["action_mask"]]
        _, _, terminated, truncated, info = native.step(picks)
        _, _, _, _, other = sync.step(picks)
        assert set(info) == set(other)
        assert info["action_mask"].tolist() == other["action_mask"].tolist()
        if "final_info" in info:
            finals += 1
            ended = terminated | truncated
            assert info["_final_obs"].tolist() == ended.tolist()
            assert info["_final_info"].tolist() == other["_final_info"].tolist()
            assert set(info["final_info"]) == set(other["final_info"])
            for i in np.flatnonzero(ended):
                assert info["final_info"]["score"][i] == other["final_info"]["score"][i]
                for key in ("progress", "normalised_score"):
                    assert info["final_info"][key][i] == other["final_info"][key][i], key
                assert info["final_info"]["_score"][i]
    if env_id in ("playbench/Delvewick-v0", "playbench/GemSwap-v0"):
        assert finals > 0


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_vector_wrappers_take_the_default_make_vec(env_id: str) -> None:
    envs = gymnasium.make_vec(env_id, num_envs=4)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    wrapped = vector_wrappers.RecordEpisodeStatistics(
        vector_wrappers.NormalizeObservation(vector_wrappers.FlattenObservation(envs))
    )
    observations, info = wrapped.reset(seed=8)
    assert observations.shape == wrapped.observation_space.shape
    rng = np.random.default_rng(8)
    episodes = 0
    for _ in range(300):
        picks = [legal_pick(rng, mask) for mask in info["action_mask"]]
        observations, _, _, _, info = wrapped.step(picks)
        assert observations.dtype == np.float32 and np.isfinite(observations).all()
        if "episode" in info:
            episodes += int(info["_episode"].sum())
    if env_id in ("playbench/Delvewick-v0", "playbench/GemSwap-v0"):
        assert episodes > 0


def test_the_ending_steps_mask_is_the_last_states_and_the_next_step_resets() -> None:
    envs = gymnasium.make_vec("playbench/GemSwap-v0", num_envs=2)
    _, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    while True:
        picks = [legal_pick(rng, mask) for mask in info["action_mask"]]
        _, _, terminated, _, info = envs.step(picks)
        if terminated.any():
            break
    ended = int(np.flatnonzero(terminated)[0])
    match = envs.unwrapped.matches[ended]
    assert match.over and not info["action_mask"][ended].any()
    assert envs.unwrapped.action_masks().tolist() == info["action_mask"].tolist()
    assert info["score"][ended] == match.score
    _, reward, terminated, _, info = envs.step([5, 5])
    assert reward[ended] == 0 and not terminated[ended]
    assert info["score"][ended] == 0 and not info["illegal"][ended]
    assert info["action_mask"][ended].any()


def same(one, two) -> bool:
    if isinstance(one, dict):
        return set(one) == set(two) and all(np.array_equal(one[k], two[k]) for k in one)
    return np.array_equal(one, two)


def play_alike(first, second, steps: int, seed: int) -> None:
    """Step both with the same legal picks (resetting a single env after its episode),
    asserting the same observations, rewards, ends, masks and scores."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = first.unwrapped.action_masks()
        pick = legal_pick(rng, mask) if mask.ndim == 1 else [legal_pick(rng, r) for r in mask]
        one, two = first.step(pick), second.step(pick)
        for a, b in zip(one[:4], two[:4], strict=True):
            assert same(a, b)
        for key in ("action_mask", "score", "progress", "normalised_score", "illegal"):
            assert np.array_equal(one[4][key], two[4][key]), key
        if mask.ndim == 1 and (one[2] or one[3]):
            assert same(first.reset()[0], second.reset()[0])


@pytest.mark.parametrize("clone", [lambda env: pickle.loads(pickle.dumps(env)), copy.deepcopy])
@pytest.mark.parametrize("env_id", IDS)
def test_pickles_and_deep_copies_play_on_identically(env_id: str, clone) -> None:
    env = gymnasium.make(env_id)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(15):
        env.step(legal_pick(rng, action_masks(env)))
    twin = clone(env)
    assert twin.unwrapped.match.fingerprint() == env.unwrapped.match.fingerprint()
    assert action_masks(twin).tolist() == action_masks(env).tolist()
    play_alike(env, twin, 300, 9)
    assert twin.unwrapped.match.fingerprint() == env.unwrapped.match.fingerprint()
    envs = gymnasium.make_vec(env_id, num_envs=3)
    envs.reset(seed=9)
    twins = clone(envs)
    play_alike(envs, twins, 200, 9)
    assert [m.fingerprint() for m in twins.unwrapped.matches] == [
        m.fingerprint() for m in envs.unwrapped.matches
    ]


def test_a_pickled_env_never_reset_resets_alike() -> None:
    env = gymnasium.make("playbench/Chimestep-v0")
    twin = pickle.loads(pickle.dumps(env))
    first, second = env.reset(seed=3)[0], twin.reset(seed=3)[0]
    assert all(np.array_equal(first[key], second[key]) for key in first)


@pytest.mark.parametrize("env_id", IDS)
def test_normalised_score_is_the_score_normalised_by_the_stored_baselines(env_id: str) -> None:
    slug = ENV_IDS[env_id]
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=5)
    found = figures(slug, env.unwrapped.match.options)
    rng = np.random.default_rng(5)
    for _ in range(200):
        expected = (info["score"] - found["random"]) / (found["bot"] - found["random"])
        assert info["normalised_score"] == expected
        _, _, terminated, truncated, info = env.step(legal_pick(rng, info["action_mask"]))
        if terminated or truncated:
            break
    assert isinstance(info["normalised_score"], float)
    assert found["bot"] > found["random"]


@pytest.mark.parametrize("env_id", IDS)
def test_progress_is_the_games_own_from_zero_at_every_reset(env_id: str) -> None:
    """``info["progress"]`` is ``Game.progress`` of the state: 0 at each reset (a drawn
    seed, and each of Delvewick's start levels), then what the rules say after each step;
    the normalised score beside it is another figure (below 0 at a Gem Swap reset)."""
    seed = int(np.random.default_rng().integers(2**31))
    game = get_game(ENV_IDS[env_id])
    starts = [None]
    if game.slug == "delvewick":
        starts += [{"startLevel": level} for level in range(2, 9)]
    env = gymnasium.make(env_id)
    rng = np.random.default_rng(seed)
    for options in starts:
        _, info = env.reset(seed=seed, options=options)
        assert info["progress"] == 0.0, (seed, options)
        for _ in range(60):
            _, _, terminated, truncated, info = env.step(legal_pick(rng, info["action_mask"]))
            assert info["progress"] == game.progress(env.unwrapped.match.state), seed
            assert 0.0 <= info["progress"] <= 1.0
            if terminated or truncated:
                break
    if game.slug == "gem-swap":
        assert env.reset(seed=seed)[1]["normalised_score"] < 0


def test_random_play_over_the_baseline_seeds_averages_normalised_score_zero() -> None:
    """The random agent of benchmarks/gym_baselines.py over its seeds, replayed here on
    Delvewick's start levels: their mean final normalised score is 0, so the stored figure is the
    agent's mean, not a number typed in."""
    for level in (1, 5):
        options = {"startLevel": level}
        found = figures("delvewick", options)
        env = gymnasium.make("playbench/Delvewick-v0", options=options)
        finals = []
        for seed in range(found["random_seeds"][0], found["random_seeds"][1] + 1):
            rng = np.random.default_rng(seed)
            _, info = env.reset(seed=seed)
            done = False
            while not done:
                _, _, terminated, truncated, info = env.step(legal_pick(rng, info["action_mask"]))
                done = terminated or truncated
            finals.append(info["normalised_score"])
        assert abs(float(np.mean(finals))) < 1e-9
