"""The Gymnasium door: every env passes Gymnasium's own checks and plays its game."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.games.chimestep.learning import TICK_COUNTS
from playbench.games.delvewick.levels import LEVELS, SOLUTION_LETTERS
from playbench.gym import env_ids
from playbench.gym.env import ActionOutOfSpace
from tests.games.delvewick.test_levels import LEVEL_POINTS

ENV_IDS = env_ids()
IDS = list(ENV_IDS)
OBS_TYPES = ["dict", "rgb", "text"]
#: frame shapes: an 18-pixel status band over the largest board of the env: Delvewick's
#: level 8 is 12 x 28 cells of 16 px, the pyramid 7 tiers of 40 px, Gem Swap 8 x 8 cells of
#: 40 px, Cogcrawl 18 x 48 glyphs of 10 x 16 px
PICTURE_SHAPES = {
    "playbench/Delvewick-v0": (210, 448, 3),
    "playbench/Chimestep-v0": (298, 280, 3),
    "playbench/GemSwap-v0": (338, 320, 3),
    "playbench/Cogcrawl-v0": (306, 480, 3),
}
INFO_KEYS = {
    "action_mask",
    "illegal",
    "reason",
    "events",
    "score",
    "progress",
    "normalised_score",
}


def table(slug: str):
    return learning_of(get_game(slug)).actions


def step_cap(env_id: str) -> int:
    return get_game(ENV_IDS[env_id]).step_cap


def masked_choice(rng: np.random.Generator, info: dict) -> int:
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def any_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal index, or 0 after game over (the vector env then resets, whatever it gets)."""
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


@pytest.mark.parametrize(
    "make",
    [
        {"render_mode": "ansi"},
        {"render_mode": "rgb_array"},
        {"obs_type": "rgb"},
        {"obs_type": "text", "json_info": True},
        {"one_hot": True, "mask_in_observation": True},
        {"obs_type": "frame"},
        {"obs_type": "planes", "illegal": "penalty"},
        {"illegal": "terminate", "allow_quit": True},
    ],
)
@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_without_warnings(env_id: str, make: dict) -> None:
    env = gymnasium.make(env_id, **make)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(warning.message) for warning in caught] == []


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
@pytest.mark.parametrize("env_id", IDS)
def test_vector_env_of_eight(env_id: str, mode: str, obs_type: str) -> None:
    envs = gymnasium.make_vec(env_id, num_envs=8, vectorization_mode=mode, obs_type=obs_type)
    try:
        observations, infos = envs.reset(seed=11)
        size = table(ENV_IDS[env_id]).size
        assert infos["action_mask"].shape == (8, size)
        assert infos["action_mask"].dtype == np.int8
        rng = np.random.default_rng(0)
        for _ in range(3):
            actions = np.array([any_legal(rng, mask) for mask in infos["action_mask"]])
            observations, rewards, _, _, infos = envs.step(actions)
            assert rewards.shape == (8,)
            assert not infos["illegal"].any()
        assert observations in envs.observation_space
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", IDS)
def test_rgb_frame_is_a_real_picture(env_id: str) -> None:
    env = gymnasium.make(env_id, render_mode="rgb_array")
    env.reset(seed=4)
    frame = env.render()
    assert frame.dtype == np.uint8
    assert frame.shape == PICTURE_SHAPES[env_id]
    colours = np.unique(frame.reshape(-1, 3), axis=0)
    assert len(colours) >= 4


@pytest.mark.parametrize("env_id", IDS)
def test_ansi_is_the_text_board(env_id: str) -> None:
    env = gymnasium.make(env_id, render_mode="ansi", games="any")
    env.reset(seed=4)
    match = Match.start(ENV_IDS[env_id], 4)
    assert env.render() == match.game.render(match.state)


@pytest.mark.parametrize("env_id", IDS)
def test_masked_random_play_reaches_game_over(env_id: str) -> None:
    env = gymnasium.make(env_id, json_info=True)
    rng = np.random.default_rng(5)
    _, info = env.reset(seed=5)
    total = 0.0
    for _ in range(step_cap(env_id)):
        _, reward, terminated, truncated, info = env.step(masked_choice(rng, info))
        assert not info["illegal"], info["reason"]
        total += reward
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert info["action_mask"].sum() == 0
    assert total == info["score"] == info["observation"].get("score", total)


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_episode(env_id: str) -> None:
    def run() -> list:
        env = gymnasium.make(env_id)
        rng = np.random.default_rng(9)
        observation, info = env.reset(seed=9)
        seen = [observation]
        for _ in range(25):
            observation, reward, terminated, _, info = env.step(masked_choice(rng, info))
            seen += [observation, reward]
            if terminated:
                observation, info = env.reset()
                seen.append(observation)
        return seen

    first, second = run(), run()
    for one, two in zip(first, second, strict=True):
        if isinstance(one, dict):
            assert all(np.array_equal(one[key], two[key]) for key in one)
        else:
            assert one == two


def test_delvewick_level_one_solution_through_the_env() -> None:
    env = gymnasium.make("playbench/Delvewick-v0", games="any", events=True)
    observation, info = env.reset(seed=0)
    rewards = []
    for letter in LEVELS[0].solution:
        observation, reward, terminated, _, info = env.step(SOLUTION_LETTERS.index(letter))
        assert not info["illegal"]
        rewards.append(reward)
    assert sum(rewards) == LEVEL_POINTS[0]
    assert info["events"][-2]["type"] == "levelClear"
    expected = [2 / 8, 0, 0, 1, 0, LEVEL_POINTS[0] / 5000]
    assert observation["stats"].tolist() == np.array(expected, dtype=np.float32).tolist()
    assert not terminated


def test_delvewick_observation_arrays() -> None:
    env = gymnasium.make("playbench/Delvewick-v0", json_info=True, games="any")
    observation, info = env.reset(seed=0)
    rows = info["observation"]["board"]
    glyphs = " #%.Oo*vGgXEM"
    board = observation["board"]
    assert board.shape == (12, 28)
    assert "".join(glyphs[code] for code in board[0, : len(rows[0])]) == rows[0]
    assert board[: len(rows), len(rows[0]) :].sum() == 0
    assert board[len(rows) :].sum() == 0
    row = next(r for r, text in enumerate(rows) if "M" in text)
    assert observation["mole"].tolist() == [row, rows[row].index("M")]
    assert observation["stats"].tolist() == [0.125, 0, 0, 1, 0, 0]


def test_one_hot_board_planes_and_the_mask_in_the_observation() -> None:
    plain = gymnasium.make("playbench/Delvewick-v0")
    wide = gymnasium.make("playbench/Delvewick-v0", one_hot=True, mask_in_observation=True)
    board = plain.reset(seed=0)[0]["board"]
    observation, info = wide.reset(seed=0)
    planes = observation["board"]
    assert planes.shape == (13, 12, 28)
    assert planes.sum(axis=0).tolist() == np.ones((12, 28), dtype=int).tolist()
    assert planes.argmax(axis=0).tolist() == board.tolist()
    assert observation["action_mask"].tolist() == info["action_mask"].tolist()


def test_illegal_action_is_a_noop_with_a_flag() -> None:
    env = gymnasium.make("playbench/Delvewick-v0")
    observation, info = env.reset(seed=0)
    blocked = int(np.flatnonzero(info["action_mask"] == 0)[0])
    after, reward, terminated, truncated, info = env.step(blocked)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["illegal"] is True
    assert info["reason"] == f"{env.unwrapped.action_text(blocked)} is not legal now"
    assert all(np.array_equal(observation[key], after[key]) for key in observation)
    assert env.unwrapped.match.moves == 0


@pytest.mark.parametrize(
    "action", [5, -1, 2.0, 4.0, True, np.True_, "up", np.array([4]), np.array([1, 2]), None]
)
def test_an_action_outside_the_space_is_an_error_that_changes_nothing(action: object) -> None:
    env = gymnasium.make("playbench/Delvewick-v0")
    env.reset(seed=int(np.random.default_rng().integers(2**31)))
    before = env.unwrapped.match.fingerprint()
    with pytest.raises(ActionOutOfSpace, match=r"is not in Discrete\(5\): an action is one"):
        env.step(action)
    with pytest.raises(gymnasium.error.InvalidAction):
        env.step(action)
    with pytest.raises(ValueError, match=f"action {re.escape(repr(action))} "):
        env.step(action)
    assert env.unwrapped.match.fingerprint() == before and env.unwrapped.match.moves == 0
    legal = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    _, _, _, _, info = env.step(np.int64(legal))
    assert not info["illegal"]
    _, _, _, _, info = env.step(np.array(legal))
    assert not info["illegal"]


def test_gem_swap_hint_costs_its_points_as_a_negative_reward() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", allow_dominated=True, events=True)
    _, info = env.reset(seed=2)
    swap = int(np.flatnonzero(info["action_mask"])[0])
    _, gained, _, _, info = env.step(swap)
    hint = table("gem-swap").size - 1
    _, reward, _, _, info = env.step(hint)
    assert gained > 0
    assert reward == -50
    assert info["events"][0]["type"] == "hint"


def test_a_hint_asked_for_at_the_gym_door_answers_in_the_json_observation() -> None:
    """``allow_dominated=True`` keeps ``hint``; its answer is then in ``info["observation"]``
    (``json_info=True``) and the ``ansi`` render until the next swap, not in the events
    alone."""
    seed = int(np.random.default_rng().integers(2**31))
    env = gymnasium.make(
        "playbench/GemSwap-v0",
        allow_dominated=True,
        json_info=True,
        render_mode="ansi",
        events=True,
    )
    _, info = env.reset(seed=seed)
    assert info["observation"]["hint"] is None
    _, _, _, _, info = env.step(table("gem-swap").size - 1)
    (event,) = info["events"]
    assert info["observation"]["hint"] == {"swap": event["swap"], "gems": event["gems"]}, seed
    assert f"hint: {event['swap']} lines up {event['gems']} gems" in env.render()
    swap = table("gem-swap").indices[event["swap"]][0]
    _, _, _, _, info = env.step(swap)
    assert not info["illegal"] and info["observation"]["hint"] is None, seed


def test_chimestep_tick_counts_advance_the_clock_by_their_count() -> None:
    env = gymnasium.make("playbench/Chimestep-v0")
    _, info = env.reset(seed=3)
    assert info["action_mask"].tolist() == [1] + [0] * 11
    _, _, _, _, info = env.step(0)
    first_tick = 6
    assert info["action_mask"][first_tick:].tolist() == [1] * len(TICK_COUNTS)
    for offset, count in enumerate(TICK_COUNTS):
        before = env.unwrapped.match.state.tick
        env.step(first_tick + offset)
        assert env.unwrapped.match.state.tick == before + count


def test_options_pass_through_make_and_reset() -> None:
    env = gymnasium.make("playbench/Delvewick-v0", options={"startLevel": 3})
    observation, _ = env.reset(seed=0)
    assert observation["stats"][0] * 8 == 3
    observation, _ = env.reset(seed=0, options={"startLevel": 5})
    assert observation["stats"][0] * 8 == 5
    observation, _ = env.reset(seed=0)
    assert observation["stats"][0] * 8 == 3


def test_bad_options_fail_at_reset_with_the_game_reason() -> None:
    env = gymnasium.make("playbench/Delvewick-v0")
    with pytest.raises(ValueError, match="startLevel must be an integer from 1 to 8, got 9"):
        env.reset(seed=0, options={"startLevel": 9})


def test_truncated_by_max_episode_steps() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", max_episode_steps=3, allow_dominated=True)
    env.reset(seed=1)
    hint = table("gem-swap").size - 1
    results = [env.step(hint)[2:4] for _ in range(3)]
    assert results == [(False, False), (False, False), (False, True)]


def test_step_before_reset_says_so() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", disable_env_checker=True, render_mode="ansi")
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.render()


def test_unknown_render_mode_is_refused() -> None:
    with (
        pytest.warns(UserWarning, match="not in the possible render_modes"),
        pytest.raises(ValueError, match="render_mode must be one of"),
    ):
        gymnasium.make("playbench/GemSwap-v0", render_mode="svg")


def test_cogcrawl_arrays_read_from_the_state_are_the_seat_observation() -> None:
    """The arrays read the state directly, and show exactly what the JSON view shows."""
    glyph_ids = {glyph: code for code, glyph in enumerate(" .#|-+'<>}$%!)[\"@")}
    hunger = {"Not hungry": 0, "Hungry": 1, "Weak": 2, "Fainting": 3}
    kinds = ["gold", "food", "potion", "weapon", "armour", "cogheart"]
    env = gymnasium.make("playbench/Cogcrawl-v0", json_info=True)
    seed = int(np.random.default_rng().integers(2**31))
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(300):
        view = info["observation"]
        status, run = view["status"], view["run"]
        expected = [
            status["dl"] / 10,
            min(max(status["hp"] / status["max_hp"], 0), 1),
            min(status["max_hp"] / 100, 1),
            status["xl"] / 14,
            min(max((status["ac"] + 10) / 30, 0), 1),
            min(status["gold"] / 1000, 1),
            hunger[status["hunger"]] / 3,
            float(status["confused"]),
            min(view["dungeon_turn"] / 50_000, 1),
            min(run["score"] / 10_000, 1),
            run["deepest"] / 10,
        ]
        assert observation["stats"].tolist() == np.array(expected, dtype=np.float32).tolist()
        assert observation["position"].tolist() == [view["position"]["x"], view["position"]["y"]]
        pack = [0] * 26
        for entry in view["pack"]:
            pack[ord(entry["letter"]) - ord("a")] = kinds.index(entry["kind"]) + 1
        assert observation["pack"].tolist() == pack
        for row, text in zip(observation["map"], view["map"], strict=True):
            for code, glyph in zip(row.tolist(), text, strict=True):
                assert code == glyph_ids[glyph] if glyph in glyph_ids else code > 16
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            break
        observation, _, _, _, info = env.step(int(rng.choice(legal)))
