"""The native vector env against Gymnasium's own sync env over single envs, on drawn seeds
and keywords: the same observations, rewards, ends, masks and ``info`` (keys, flags,
dtypes, values) at every step, in every autoreset mode; the sync env's keywords taken,
``vector_kwargs`` included; an action outside the space refused before any env moves."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from playbench.gym import env_ids
from playbench.gym.env import ActionOutOfSpace
from playbench.gym.vector import PlaybenchVectorEnv, action_masks, make_vec

IDS = list(env_ids())
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]


def same(one: object, two: object) -> bool:
    """Equal in type, keys, dtype, shape and value, through dicts and object arrays."""
    if isinstance(one, dict):
        return (
            isinstance(two, dict)
            and set(one) == set(two)
            and all(same(one[key], two[key]) for key in one)
        )
    if isinstance(one, np.ndarray):
        if not isinstance(two, np.ndarray) or (one.dtype, one.shape) != (two.dtype, two.shape):
            return False
        if one.dtype == object:
            return all(same(a, b) for a, b in zip(one.tolist(), two.tolist(), strict=True))
        return np.array_equal(one, two)
    if isinstance(one, list | tuple):
        return len(one) == len(two) and all(same(a, b) for a, b in zip(one, two, strict=True))
    return type(one) is type(two) and one == two


def differences(one: dict, two: dict, path: str = "") -> list[str]:
    """The keys of two infos that differ (for a readable failure)."""
    keys = set(one) | set(two)
    return [f"{path}{key}" for key in sorted(keys) if not same(one.get(key), two.get(key))]


def pick(rng: np.random.Generator, masks: np.ndarray, size: int) -> np.ndarray:
    """A legal action of each row (any action for a row of zeros), now and then an illegal
    one inside the space."""
    picks = []
    for row in masks:
        legal = np.flatnonzero(row)
        if len(legal) and rng.random() > 0.05:
            picks.append(int(rng.choice(legal)))
        else:
            picks.append(int(rng.integers(size)))
    return np.array(picks)


def play_both(
    env_id: str, mode: AutoresetMode, steps: int, other: str = "sync", **keywords: object
) -> int:
    """Step a native and a sync (or async) env of drawn seeds alike, comparing everything;
    the number of episodes that ended."""
    rng = np.random.default_rng()
    count = int(rng.integers(2, 5))
    # held-out games are numbered 0-99: env i of a reset with seed s plays game s + i
    seed = int(rng.integers(100 - count if keywords.get("games") == "test" else 2**31))
    native = make_vec(env_id, count, vector_kwargs={"autoreset_mode": mode}, **keywords)
    sync = gymnasium.make_vec(
        env_id, count, other, vector_kwargs={"autoreset_mode": mode}, **keywords
    )
    assert isinstance(native.unwrapped, PlaybenchVectorEnv)
    assert native.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"] == mode
    first, info = native.reset(seed=seed)
    second, other = sync.reset(seed=seed)
    size = native.single_action_space.n
    ended = 0
    for step in range(steps):
        assert same(first, second), (seed, step)
        assert not differences(info, other), (seed, step, differences(info, other))
        masks = action_masks(native)
        assert np.array_equal(masks, np.stack(sync.call("action_masks"))), (seed, step)
        assert np.array_equal(masks, action_masks(sync))
        picks = pick(rng, masks, size)
        first, reward, terminated, truncated, info = native.step(picks)
        second, reward2, terminated2, truncated2, other = sync.step(picks)
        assert reward.tolist() == reward2.tolist(), (seed, step)
        assert reward.dtype == reward2.dtype
        assert terminated.tolist() == terminated2.tolist(), (seed, step)
        assert truncated.tolist() == truncated2.tolist(), (seed, step)
        ended += int((terminated | truncated).sum())
    sync.close()
    return ended


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.value)
@pytest.mark.parametrize("env_id", IDS)
def test_native_plays_as_sync_step_for_step(env_id: str, mode: AutoresetMode) -> None:
    cap = int(np.random.default_rng().integers(8, 40))
    ended = play_both(env_id, mode, 120, max_episode_steps=cap)
    assert ended > 0


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.value)
def test_native_plays_as_sync_with_the_json_view_progress_rewards_and_test_games(
    mode: AutoresetMode,
) -> None:
    keywords = {"json_info": True, "reward": "progress", "games": "test", "illegal": "penalty"}
    assert play_both("playbench/GemSwap-v0", mode, 80, **keywords) > 0
    assert play_both("playbench/Delvewick-v0", mode, 60, max_episode_steps=25, **keywords) > 0


@pytest.mark.parametrize(
    "keywords",
    [
        {"obs_type": "frame"},
        {"obs_type": "planes"},
        {"obs_type": "text"},
        {"obs_type": "rgb"},
        {"one_hot": True, "mask_in_observation": True},
    ],
    ids=lambda keywords: "-".join(map(str, keywords.values())),
)
def test_native_plays_as_sync_in_every_observation_type(keywords: dict) -> None:
    for env_id in ("playbench/Chimestep-v0", "playbench/GemSwap-v0"):
        play_both(env_id, AutoresetMode.NEXT_STEP, 25, max_episode_steps=10, **keywords)


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.value)
def test_native_plays_as_async_too(mode: AutoresetMode) -> None:
    assert play_both("playbench/GemSwap-v0", mode, 50, "async", max_episode_steps=12) > 0


def test_native_plays_as_sync_under_disabled_autoreset_with_a_reset_mask() -> None:
    mode = AutoresetMode.DISABLED
    seed = int(np.random.default_rng().integers(2**31))
    keywords = {"max_episode_steps": 6, "vector_kwargs": {"autoreset_mode": mode}}
    native = make_vec("playbench/GemSwap-v0", 3, **keywords)
    sync = gymnasium.make_vec("playbench/GemSwap-v0", 3, "sync", **keywords)
    first, info = native.reset(seed=seed)
    second, other = sync.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        picks = pick(rng, action_masks(native), 113)
        first, _, _, truncated, info = native.step(picks)
        second, _, _, _, other = sync.step(picks)
    assert truncated.all() and same(first, second) and not differences(info, other)
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset_mask"):
        native.step(picks)
    reset_mask = np.array([True, False, True])
    first, info = native.reset(options={"reset_mask": reset_mask})
    second, other = sync.reset(options={"reset_mask": reset_mask.copy()})
    assert same(first, second) and not differences(info, other)
    assert info["_score"].tolist() == [True, False, True]


def test_the_sync_envs_keywords_are_taken_flat_and_unknown_ones_refused() -> None:
    envs = gymnasium.make_vec(
        "playbench/Chimestep-v0", 2, copy=False, observation_mode="same", autoreset_mode="SameStep"
    )
    assert envs.autoreset_mode == AutoresetMode.SAME_STEP and not envs.unwrapped.copy
    with pytest.raises(ValueError, match=r"vector_kwargs takes \['copy', 'observation_mode'"):
        PlaybenchVectorEnv("chimestep", 2, vector_kwargs={"shared_memory": True})
    with pytest.raises(ValueError, match="observation_mode must be 'same'"):
        make_vec("playbench/Chimestep-v0", 2, vector_kwargs={"observation_mode": "different"})
    # Gymnasium's own make_vec refuses vector_kwargs for every env's own vector env
    with pytest.raises(gymnasium.error.Error, match="only through kwargs"):
        gymnasium.make_vec("playbench/Chimestep-v0", 2, vector_kwargs={"copy": False})
    synced = make_vec("playbench/Chimestep-v0", 2, "sync", vector_kwargs={"copy": False})
    assert isinstance(synced, gymnasium.vector.SyncVectorEnv) and not synced.copy
    native = make_vec(
        "playbench:playbench/Chimestep-v0",
        2,
        gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
        vector_kwargs={"copy": False},
    )
    assert isinstance(native, PlaybenchVectorEnv) and not native.copy
    assert native.spec.kwargs["copy"] is False


@pytest.mark.parametrize(
    "actions",
    [
        [7, 4],
        [-1, 0],
        [0, 1.0],
        [True, 0],
        np.array([0.0, 1.0]),
        np.array([True, False]),
        np.array([[0], [1]]),
        [0, 1, 2],
        3,
    ],
    ids=repr,
)
def test_an_action_outside_the_space_is_refused_before_any_env_moves(actions: object) -> None:
    envs = gymnasium.make_vec("playbench/Delvewick-v0", num_envs=2)
    envs.reset(seed=int(np.random.default_rng().integers(2**31)))
    before = [match.fingerprint() for match in envs.unwrapped.matches]
    with pytest.raises(ActionOutOfSpace, match=r"actions|is not in Discrete\(5\)"):
        envs.step(actions)
    assert [match.fingerprint() for match in envs.unwrapped.matches] == before
    _, _, _, _, info = envs.step(np.array([4, 4], dtype=np.uint8))
    assert info["_illegal"].all()
