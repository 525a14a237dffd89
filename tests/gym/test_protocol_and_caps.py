"""What generic RL code assumes of an env, held: ``spec.max_episode_steps`` is the cap that
holds and the one asked is honoured; ``reset(seed=...)`` plays a training game unless a
test game is asked for; ``reward="progress"`` sums to the episode's progress."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from stable_baselines3.common.env_util import make_vec_env

from playbench.core.registry import get_game
from playbench.gym import env_ids, protocol
from playbench.kernels.draws import integers_each

ENV_IDS = env_ids()
IDS = list(ENV_IDS)
TRAIN = range(protocol.TRAIN_START_SEED, protocol.TRAIN_START_SEED + protocol.TRAIN_NUM_SEEDS)


def drawn(count: int, high: int = 2**31) -> list[int]:
    return np.random.default_rng().integers(high, size=count).tolist()


def illegal_swap(info: dict) -> int:
    return int(np.flatnonzero(info["action_mask"] == 0)[0])


def steps_to_truncation(env: gymnasium.Env | gymnasium.vector.VectorEnv, limit: int) -> int:
    """Gem Swap steps of an illegal swap (a no-op) until the episode is cut."""
    _, info = env.reset(seed=drawn(1)[0])
    vector = isinstance(env, gymnasium.vector.VectorEnv)
    row = info["action_mask"][0] if vector else info["action_mask"]
    action = illegal_swap({"action_mask": row})
    for step in range(1, limit + 1):
        _, _, terminated, truncated, _ = env.step([action] * env.num_envs if vector else action)
        assert not np.any(terminated)
        if np.any(truncated):
            return step
    return 0


@pytest.mark.parametrize("env_id", IDS)
def test_the_spec_says_the_games_cap(env_id: str) -> None:
    cap = get_game(ENV_IDS[env_id]).step_cap
    assert gymnasium.spec(env_id).max_episode_steps == cap
    assert gymnasium.make(env_id).spec.max_episode_steps == cap
    assert gymnasium.make_vec(env_id, 2).spec.max_episode_steps == cap
    assert gymnasium.make_vec(env_id, 2, "sync").envs[0].spec.max_episode_steps == cap


def test_gem_swap_is_cut_at_its_cap_and_at_the_one_asked_above_or_below_it() -> None:
    env = gymnasium.make("playbench/GemSwap-v0")
    assert steps_to_truncation(env, 600) == 500
    for asked in (1000, 7):
        env = gymnasium.make("playbench/GemSwap-v0", max_episode_steps=asked)
        assert env.spec.max_episode_steps == asked
        assert steps_to_truncation(env, 1100) == asked
        envs = gymnasium.make_vec("playbench/GemSwap-v0", 2, max_episode_steps=asked)
        assert envs.spec.max_episode_steps == asked
        assert steps_to_truncation(envs, 1100) == asked
    unbounded = gymnasium.make("playbench/GemSwap-v0", max_episode_steps=-1)
    assert unbounded.spec.max_episode_steps is None
    assert steps_to_truncation(unbounded, 600) == 0


@pytest.mark.parametrize("asked", [0, -5, 2.5, True])
def test_a_vector_cap_that_is_no_count_is_refused(asked: object) -> None:
    with pytest.raises(ValueError, match="max_episode_steps must be a whole number above 0"):
        gymnasium.make_vec("playbench/GemSwap-v0", 2, max_episode_steps=asked)


def played(env: gymnasium.Env) -> tuple[int, dict | None]:
    return env.unwrapped.match.seed, env.unwrapped.match.options


@pytest.mark.parametrize("env_id", IDS)
def test_a_seeded_reset_plays_a_training_game_and_the_same_one_again(env_id: str) -> None:
    slug = ENV_IDS[env_id]
    env = gymnasium.make(env_id)
    for seed in [0, 1, 99, *drawn(5)]:
        env.reset(seed=seed)
        game_seed, options = played(env)
        if slug == protocol.DELVEWICK:
            assert options["startLevel"] in protocol.DELVEWICK_TRAIN_LEVELS
        else:
            assert game_seed in TRAIN and options is None
        twin = gymnasium.make(env_id)
        twin.reset(seed=seed)
        assert played(twin) == (game_seed, options)


@pytest.mark.parametrize("env_id", IDS)
def test_sb3s_make_vec_env_with_seed_0_trains_on_training_games(env_id: str) -> None:
    slug = ENV_IDS[env_id]
    envs = make_vec_env(env_id, n_envs=3, seed=0)
    envs.reset()
    for _ in range(3):
        for env in envs.envs:
            game_seed, options = played(env)
            if slug == protocol.DELVEWICK:
                assert options["startLevel"] in protocol.DELVEWICK_TRAIN_LEVELS
            else:
                assert game_seed in TRAIN
            env.reset()


@pytest.mark.parametrize("env_id", IDS)
def test_games_test_plays_held_out_game_i_at_seed_i(env_id: str) -> None:
    slug = ENV_IDS[env_id]
    env = gymnasium.make(env_id, games="test")
    held_out = protocol.test_games(slug)
    for index in drawn(4, len(held_out)):
        env.reset(seed=index)
        assert played(env) == held_out[index]
    env.reset()
    assert played(env) in held_out
    with pytest.raises(ValueError, match=r"games='test' plays held-out games 0 \.\. 99, got"):
        env.reset(seed=100)


def test_games_any_plays_the_seed_itself() -> None:
    env = gymnasium.make("playbench/Cogcrawl-v0", games="any")
    for seed in [*drawn(3), 5]:
        env.reset(seed=seed)
        assert played(env) == (seed, None)


def test_a_reset_of_ones_own_options_holds_for_that_episode() -> None:
    env = gymnasium.make("playbench/Delvewick-v0")
    env.reset(seed=3, options={"startLevel": 7})
    assert played(env)[1] == {"startLevel": 7}
    env.reset(seed=3)
    assert played(env)[1]["startLevel"] in protocol.DELVEWICK_TRAIN_LEVELS


@pytest.mark.parametrize(
    ("env_id", "keywords", "message"),
    [
        ("playbench/GemSwap-v0", {"start_seed": 0, "num_seeds": 200}, "reach the test seeds"),
        ("playbench/GemSwap-v0", {"start_seed": 50}, "reach the test seeds"),
        ("playbench/Delvewick-v0", {"options": {"startLevel": 7}}, "7 is a test level"),
        ("playbench/Delvewick-v0", {"tasks": [{"startLevel": 2}, {"startLevel": 8}]}, "8 is a"),
        ("playbench/GemSwap-v0", {"games": "held-out"}, "games must be one of"),
        ("playbench/GemSwap-v0", {"games": "test", "num_seeds": 5}, "no use with games='test'"),
    ],
)
def test_draws_that_reach_a_test_game_or_mean_nothing_are_refused(
    env_id: str, keywords: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        gymnasium.make(env_id, **keywords)
    with pytest.raises(ValueError, match=message):
        gymnasium.make_vec(env_id, 2, **keywords)


def test_narrower_training_seeds_and_any_seeds_stay_where_asked() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", start_seed=500, num_seeds=3)
    for seed in drawn(6):
        env.reset(seed=seed)
        assert played(env)[0] in {500, 501, 502}
    env = gymnasium.make("playbench/GemSwap-v0", games="any", start_seed=0, num_seeds=2)
    env.reset()
    assert played(env)[0] in {0, 1}


@pytest.mark.parametrize("env_id", IDS)
def test_progress_rewards_sum_to_the_episodes_progress(env_id: str) -> None:
    seed = drawn(1)[0]
    env = gymnasium.make(env_id, reward="progress", max_episode_steps=400)
    scored = gymnasium.make(env_id, max_episode_steps=400)
    _, info = env.reset(seed=seed)
    scored.reset(seed=seed)
    game = env.unwrapped.game
    start = game.progress(env.unwrapped.match.state)
    rng = np.random.default_rng(seed)
    rewards, points, done = [], 0.0, False
    while not done:
        before = game.progress(env.unwrapped.match.state)
        legal = np.flatnonzero(info["action_mask"])
        action = int(rng.choice(legal))
        _, reward, terminated, truncated, info = env.step(action)
        _, gained, *_ = scored.step(action)
        assert reward == game.progress(env.unwrapped.match.state) - before
        rewards.append(reward)
        points += gained
        done = terminated or truncated
    end = game.progress(env.unwrapped.match.state)
    assert math.isclose(math.fsum(rewards), end - start, abs_tol=1e-9)
    assert env.unwrapped.match.fingerprint() == scored.unwrapped.match.fingerprint()
    assert points == info["score"]


def test_an_unknown_reward_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"reward must be one of \['score', 'progress'\]"):
        gymnasium.make("playbench/GemSwap-v0", reward="points")


@pytest.mark.parametrize("bits", ["PCG64", "PCG64DXSM", "SFC64", "Philox", "MT19937"])
def test_a_seed_draw_is_what_numpys_integers_draws_from_the_same_generator(bits) -> None:
    """A reset's seed draw (``integers_each``, C where the kernels are built) is
    ``int(generator.integers(n))``: the same numbers from the same draws (the generators'
    states stay equal) on drawn seeds and ranges, the ranges where Lemire's method rejects
    a quarter of its draws and the narrow ones on the 32-bit outputs included."""
    rng = np.random.default_rng()
    ranges = [
        2**63 - 1,
        2**63 - 1 - protocol.TRAIN_START_SEED,
        2**62 + 1,
        2**32 + 1,
        2**32,
        protocol.TRAIN_NUM_SEEDS,
        1,
        *rng.integers(2**33, 2**63, size=6).tolist(),
        *rng.integers(1, 2**32, size=3).tolist(),
    ]
    for _ in range(4):
        seed = int(rng.integers(2**63))
        mine = np.random.Generator(getattr(np.random, bits)(seed))
        numpys = np.random.Generator(getattr(np.random, bits)(seed))
        for n in ranges:
            drawn_here = [integers_each([mine], n)[0] for _ in range(40)]
            assert drawn_here == [int(numpys.integers(n)) for _ in range(40)], (bits, seed, n)
            assert all(type(value) is int and 0 <= value < n for value in drawn_here)
        # the same state: the same draws from here on, raw and bounded
        assert (
            mine.bit_generator.random_raw(8).tolist() == numpys.bit_generator.random_raw(8).tolist()
        )
        assert mine.integers(1000, size=8).tolist() == numpys.integers(1000, size=8).tolist()


@pytest.mark.parametrize(
    ("slug", "keywords"),
    [
        ("gem-swap", {}),
        ("gem-swap", {"games": "any"}),
        ("gem-swap", {"games": "test"}),
        ("cogcrawl", {"start_seed": 5000, "num_seeds": 7}),
        ("delvewick", {}),
        ("delvewick", {"games": "any", "tasks": [{"startLevel": 2}, {"startLevel": 5}]}),
    ],
)
def test_many_draws_at_once_are_each_generators_own_draw(slug: str, keywords: dict) -> None:
    """``Seeds.draws`` (a vector env's envs starting again at once) gives what ``game``
    gives each generator in turn with no seed asked, and leaves every generator where
    ``game`` leaves it, in every mode."""
    seeds = protocol.Seeds(slug, **keywords)
    first = np.random.default_rng().integers(2**63, size=5).tolist()
    mine = [np.random.default_rng(seed) for seed in first]
    theirs = [np.random.default_rng(seed) for seed in first]
    options = {"startLevel": 3} if slug == "delvewick" else None
    assert seeds.draws(mine, options) == [seeds.game(g, None, options) for g in theirs]
    assert [g.integers(2**40) for g in mine] == [g.integers(2**40) for g in theirs]
