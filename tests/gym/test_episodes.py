"""Episodes that teach: Cogcrawl's quit and Gem Swap's hint left out of the mask, what an
illegal action does (``illegal=``), the seed ranges and tasks of the train/test
protocol."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from playbench.core.match import Match
from playbench.games.cogcrawl.learning import UP
from playbench.games.gemswap.learning import HINT_INDEX
from playbench.gym import protocol
from playbench.gym.env import PlaybenchEnv


def test_cogcrawls_up_on_level_one_is_out_of_the_mask_unless_asked_for() -> None:
    match = Match.start("cogcrawl", 0)
    assert {"actions": [{"do": "up"}]} in match.game.legal_actions(match.state)
    env = gymnasium.make("playbench/Cogcrawl-v0")
    _, info = env.reset(seed=0)
    assert info["action_mask"][UP] == 0
    _, reward, terminated, _, info = env.step(UP)
    assert (reward, terminated, info["illegal"]) == (0.0, False, True)
    assert info["reason"] == "up is not legal now"
    assert env.unwrapped.match.state.dl == 1 and not env.unwrapped.match.over
    asked = gymnasium.make("playbench/Cogcrawl-v0", allow_quit=True)
    _, info = asked.reset(seed=0)
    assert info["action_mask"][UP] == 1
    _, reward, terminated, _, info = asked.step(UP)
    assert terminated and info["score"] == 0 and not info["illegal"]


def test_the_vector_env_leaves_the_quit_out_too() -> None:
    envs = gymnasium.make_vec("playbench/Cogcrawl-v0", num_envs=2)
    _, info = envs.reset(seed=0)
    assert info["action_mask"][:, UP].tolist() == [0, 0]
    asked = gymnasium.make_vec("playbench/Cogcrawl-v0", num_envs=2, allow_quit=True)
    _, info = asked.reset(seed=0)
    assert info["action_mask"][:, UP].tolist() == [1, 1]


def test_gem_swaps_hint_is_out_of_the_mask_unless_asked_for() -> None:
    """A hint costs 50 points and answers in the events alone: a pure loss to an agent of
    the observation, so the random agent of the mask never buys one."""
    env = gymnasium.make("playbench/GemSwap-v0")
    _, info = env.reset(seed=5)
    assert info["action_mask"][HINT_INDEX] == 0 and info["action_mask"].sum() > 0
    _, reward, _, _, info = env.step(HINT_INDEX)
    assert (reward, info["illegal"], info["score"]) == (0.0, True, 0)
    asked = gymnasium.make("playbench/GemSwap-v0", allow_dominated=True, events=True)
    _, info = asked.reset(seed=5)
    assert info["action_mask"][HINT_INDEX] == 1
    _, reward, _, _, info = asked.step(HINT_INDEX)
    assert reward == -50 and info["events"][0]["type"] == "hint"
    envs = gymnasium.make_vec("playbench/GemSwap-v0", num_envs=2)
    _, info = envs.reset(seed=5)
    assert info["action_mask"][:, HINT_INDEX].tolist() == [0, 0]


def an_illegal_swap(info: dict) -> int:
    return int(np.flatnonzero(info["action_mask"] == 0)[0])


@pytest.mark.parametrize(
    ("illegal", "reward", "terminated"),
    [("noop", 0.0, False), ("penalty", -2.5, False), ("terminate", 0.0, True)],
)
def test_what_an_illegal_action_does(illegal: str, reward: float, terminated: bool) -> None:
    env = gymnasium.make("playbench/GemSwap-v0", illegal=illegal, illegal_penalty=2.5)
    _, info = env.reset(seed=1)
    before = env.unwrapped.match.fingerprint()
    _, got, ended, truncated, info = env.step(an_illegal_swap(info))
    assert (got, ended, truncated, info["illegal"]) == (reward, terminated, False, True)
    assert env.unwrapped.match.fingerprint() == before
    legal = int(np.flatnonzero(info["action_mask"])[0])
    if not terminated:
        assert not env.step(legal)[4]["illegal"]


@pytest.mark.parametrize(
    ("illegal", "reward", "terminated"),
    [("noop", 0.0, False), ("penalty", -1.0, False), ("terminate", 0.0, True)],
)
def test_the_vector_env_does_the_same_with_an_illegal_action(
    illegal: str, reward: float, terminated: bool
) -> None:
    envs = gymnasium.make_vec("playbench/GemSwap-v0", num_envs=2, illegal=illegal)
    _, info = envs.reset(seed=1)
    legal = int(np.flatnonzero(info["action_mask"][1])[0])
    picks = [an_illegal_swap({"action_mask": info["action_mask"][0]}), legal]
    _, rewards, ended, _, info = envs.step(picks)
    assert rewards[0] == reward and ended.tolist() == [terminated, False]
    assert info["illegal"].tolist() == [True, False]


def test_an_unknown_illegal_mode_is_refused_by_name() -> None:
    with pytest.raises(
        ValueError, match=r"illegal must be one of \['noop', 'penalty', 'terminate'\]"
    ):
        gymnasium.make("playbench/GemSwap-v0", illegal="punish")


def test_resets_without_a_seed_draw_from_the_seed_range() -> None:
    env = gymnasium.make("playbench/GemSwap-v0", start_seed=500, num_seeds=3)
    env.reset(seed=0)
    drawn = set()
    for _ in range(40):
        env.reset()
        drawn.add(env.unwrapped.match.seed)
    assert drawn == {500, 501, 502}
    envs = gymnasium.make_vec("playbench/GemSwap-v0", num_envs=2, start_seed=500, num_seeds=3)
    envs.reset()
    assert {match.seed for match in envs.unwrapped.matches} <= {500, 501, 502}


def test_tasks_draw_the_options_of_each_episode() -> None:
    tasks = [{"startLevel": 2}, {"startLevel": 6}]
    env = gymnasium.make("playbench/Delvewick-v0", tasks=tasks)
    env.reset(seed=1)
    levels = set()
    for _ in range(30):
        env.reset()
        levels.add(env.unwrapped.match.state.level.number)
    assert levels == {2, 6}
    env.reset(seed=3, options={"startLevel": 8})
    assert env.unwrapped.match.state.level.number == 8


def test_bad_seed_ranges_and_tasks_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        PlaybenchEnv("gem-swap", num_seeds=-1)
    with pytest.raises(ValueError, match="at least one set of options"):
        PlaybenchEnv("delvewick", tasks=[])


def test_the_protocols_train_and_test_games_never_meet() -> None:
    for slug in ("gem-swap", "chimestep", "cogcrawl"):
        keywords = protocol.train_keywords(slug)
        train = range(keywords["start_seed"], keywords["start_seed"] + keywords["num_seeds"])
        tests = [seed for seed, _ in protocol.test_games(slug)]
        assert tests == list(range(100))
        assert not set(tests) & {train[0], train[-1]} and max(tests) < train[0]
    train_levels = {task["startLevel"] for task in protocol.train_keywords("delvewick")["tasks"]}
    test_levels = {options["startLevel"] for _, options in protocol.test_games("delvewick", 4)}
    assert train_levels == {1, 2, 3, 4, 5, 6} and test_levels == {7, 8}
