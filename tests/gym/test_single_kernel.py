"""The single env on a game's kernel (a batch of one) against the same env on its rules
(the kernels turned off): the same observations, rewards, ends, infos and matches, step
for step, through ``gymnasium.make``, on drawn seeds and keywords."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from playbench.games.delvewick.levels import LEVELS
from playbench.gym.env import ActionOutOfSpace
from playbench.kernels import KERNELS_ENV, wanted
from playbench.runner.replay import dump_lines, header, replay_name, verify_replay

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

DELVEWICK = "playbench/Delvewick-v0"
ENV_IDS = (DELVEWICK, "playbench/Chimestep-v0", "playbench/GemSwap-v0", "playbench/Cogcrawl-v0")
STEPS = 3000


def _make(env_id: str, kernel: bool, **keywords):
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv(KERNELS_ENV, "1" if kernel else "0")
        env = gymnasium.make(env_id, **{"events": False, **keywords})
    assert (env.unwrapped._kernel is not None) == kernel
    return env


def _same(one, other, where: str) -> None:
    """Equal, and of the same types (arrays: dtype, shape and writeability too)."""
    assert type(one) is type(other), (where, type(one), type(other))
    if isinstance(one, tuple | list):
        assert len(one) == len(other), where
        for k, (mine, theirs) in enumerate(zip(one, other, strict=True)):
            _same(mine, theirs, f"{where} [{k}]")
    elif isinstance(one, dict):
        assert list(one) == list(other), where
        for key in one:
            _same(one[key], other[key], f"{where} {key}")
    elif isinstance(one, np.ndarray):
        np.testing.assert_array_equal(one, other, err_msg=where)
        assert (one.dtype, one.shape) == (other.dtype, other.shape), where
        assert one.flags.writeable == other.flags.writeable, where
    else:
        assert one == other, (where, one, other)


def _pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal action mostly, sometimes any action of the space (an illegal one included:
    both refuse it alike)."""
    legal = np.flatnonzero(mask)
    if rng.random() < 0.1 or not len(legal):
        return int(rng.integers(len(mask)))
    return int(legal[int(rng.integers(len(legal)))])


def _same_matches(fast, slow) -> None:
    one, other = fast.unwrapped.match, slow.unwrapped.match
    assert (one.seed, one.options, one.log, one.moves) == (
        other.seed,
        other.options,
        other.log,
        other.moves,
    )
    assert one.game.to_json(one.state) == other.game.to_json(other.state)


def play_both(env_id: str, seed: int, steps: int, **keywords) -> int:
    """Play ``steps`` steps on both, resetting when an episode ends (the first reset on
    ``seed``), a deep copy and a pickle half way; returns the episodes ended."""
    fast, slow = _make(env_id, True, **keywords), _make(env_id, False, **keywords)
    out = fast.reset(seed=seed)
    _same(out, slow.reset(seed=seed), f"seed {seed} reset")
    assert fast.unwrapped._on_kernel
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(steps):
        if step == steps // 2:
            _same_matches(fast, slow)
            fast, slow = copy.deepcopy(fast), copy.deepcopy(slow)
            fast = pickle.loads(pickle.dumps(fast))
            _same_matches(fast, slow)
            _same(fast.unwrapped.action_masks(), slow.unwrapped.action_masks(), "mask")
        action = _pick(rng, out[-1]["action_mask"])
        out = fast.step(action)
        _same(out, slow.step(action), f"seed {seed} step {step} action {action}")
        if out[2] or out[3]:
            ended += 1
            _same_matches(fast, slow)
            out = fast.reset()
            _same(out, slow.reset(), f"seed {seed} reset after step {step}")
    _same_matches(fast, slow)
    return ended


@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=2, deadline=None, phases=[Phase.generate])
@given(seed=st.integers(0, 2**63 - 1), cap=st.integers(30, 400))
def test_the_kernel_plays_as_the_rules_on_drawn_seeds(env_id, seed, cap) -> None:
    assert play_both(env_id, seed, STEPS, max_episode_steps=cap) > 0


@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=3, deadline=None, phases=[Phase.generate])
@given(
    seed=st.integers(0, 2**63 - 1),
    illegal=st.sampled_from(["noop", "penalty", "terminate"]),
    reward=st.sampled_from(["score", "progress"]),
    shape=st.sampled_from([{}, {"one_hot": True}, {"mask_in_observation": True}]),
    games=st.sampled_from(["train", "any"]),
    allowed=st.booleans(),
)
def test_the_kernel_plays_as_the_rules_with_drawn_keywords(
    env_id, seed, illegal, reward, shape, games, allowed
) -> None:
    """Drawn keywords, the quits and dominated actions (Cogcrawl's up from the first level,
    Gem Swap's hint) left out of the masks or kept in."""
    keywords = {"illegal": illegal, "reward": reward, "games": games, **shape}
    keywords.update(allow_quit=allowed, allow_dominated=allowed)
    play_both(env_id, seed, STEPS // 3, illegal_penalty=0.25, **keywords)


@settings(max_examples=2, deadline=None, phases=[Phase.generate])
@given(seed=st.integers(0, 2**63 - 1), data=st.data())
def test_delvewick_start_levels_and_a_custom_level_play_as_the_rules(seed, data) -> None:
    start = data.draw(st.integers(1, len(LEVELS)))
    play_both(DELVEWICK, seed, STEPS // 3, options={"startLevel": start}, games="any")
    level = LEVELS[data.draw(st.integers(0, len(LEVELS) - 1))]
    custom = {"level": {"name": "drawn", "quota": 1, "oil": level.oil, "rows": list(level.rows)}}
    play_both(DELVEWICK, seed, STEPS // 3, options=custom, games="any")


def test_an_episode_outside_the_kernels_table_is_played_on_the_rules() -> None:
    """A custom level asked for at reset is not in a table made for the shipped levels:
    that episode runs on the rules, the next one on the kernel again, both as the rules."""
    seed = int(np.random.default_rng().integers(2**32))
    level = LEVELS[seed % len(LEVELS)]
    custom = {"level": {"name": "drawn", "quota": 2, "oil": level.oil, "rows": list(level.rows)}}
    fast, slow = _make(DELVEWICK, True, games="any"), _make(DELVEWICK, False, games="any")
    rng = np.random.default_rng(seed)
    for options, on_kernel in ((custom, False), (None, True)):
        out = fast.reset(seed=seed, options=options)
        _same(out, slow.reset(seed=seed, options=options), "reset")
        assert fast.unwrapped._on_kernel is on_kernel
        for step in range(200):
            action = _pick(rng, out[-1]["action_mask"])
            out = fast.step(action)
            _same(out, slow.step(action), f"{options} step {step}")
            if out[2] or out[3]:
                break
        _same_matches(fast, slow)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_action_out_of_the_space_is_refused_alike_and_changes_nothing(env_id) -> None:
    seed = int(np.random.default_rng().integers(2**32))
    fast, slow = _make(env_id, True), _make(env_id, False)
    fast.reset(seed=seed)
    slow.reset(seed=seed)
    size = fast.action_space.n
    for wrong in (size, -1, 1.0, True, np.array([0, 1])):
        refusals = []
        for env in (fast, slow):
            with pytest.raises(ActionOutOfSpace) as refused:
                env.step(wrong)
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1]
    _same_matches(fast, slow)
    legal = int(np.flatnonzero(slow.unwrapped.action_masks())[0])
    _same(fast.step(legal), slow.step(legal), "after the refusals")


@pytest.mark.parametrize(
    "keywords",
    [{"events": True}, {"json_info": True}, {"obs_type": "frame"}, {"obs_type": "text"}],
)
def test_what_the_kernel_does_not_give_runs_on_the_rules(keywords) -> None:
    """Events, the JSON view and the pictures come from the rules' state only."""
    env = gymnasium.make(DELVEWICK, **keywords)
    assert env.unwrapped._kernel is None
    _, info = env.reset(seed=int(np.random.default_rng().integers(2**32)))
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, _, _, _, info = env.step(legal)
    assert bool(info["events"]) == keywords.get("events", False), "events when asked for"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_envs_made_by_default_step_on_the_kernel(env_id) -> None:
    """``gymnasium.make`` and ``make_vec`` with no keywords give the envs on the kernel,
    whose events are empty tuples; ``events=True`` gives them on the rules."""
    seed = int(np.random.default_rng().integers(2**32))
    env, envs = gymnasium.make(env_id), gymnasium.make_vec(env_id, num_envs=2)
    assert env.unwrapped._kernel is not None and envs._kernel is not None
    _, info = env.reset(seed=seed)
    _, vector_info = envs.reset(seed=seed)
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    picks = [int(np.flatnonzero(row)[0]) for row in vector_info["action_mask"]]
    _, _, _, _, vector_info = envs.step(np.array(picks))
    assert info["events"] == () and list(vector_info["events"]) == [(), ()], seed
    assert gymnasium.make(env_id, events=True).unwrapped._kernel is None
    assert gymnasium.make_vec(env_id, num_envs=2, events=True)._kernel is None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_episodes_the_kernel_starts_itself_are_the_rules_starts(env_id) -> None:
    """After the rules took the env's options (or a task) once, later resets on them start
    on the kernel from the seed alone: each start, its match read back out, a pickle right after
    it, and the first steps are the rules'; a bad seed is refused as the rules refuse it,
    and options given to reset start on the rules again."""
    draws = np.random.default_rng()
    seed = int(draws.integers(2**62))
    keywords = {"games": "any"}
    if env_id == DELVEWICK:
        levels = draws.choice(np.arange(1, len(LEVELS) + 1), size=3, replace=False)
        keywords["tasks"] = [{"startLevel": int(level)} for level in levels]
    fast, slow = _make(env_id, True, **keywords), _make(env_id, False, **keywords)
    kernel = fast.unwrapped._kernel
    rng = np.random.default_rng(seed)
    taken: list = []
    for episode in range(8):
        asked = None if episode % 2 else seed + episode
        out = fast.reset(seed=asked)
        _same(out, slow.reset(seed=asked), f"seed {seed} episode {episode} reset")
        assert fast.unwrapped._on_kernel
        options = kernel.match.options
        assert kernel.stale == any(options is one for one in taken), (episode, options)
        taken.append(options)
        if episode == 3:
            fast = pickle.loads(pickle.dumps(fast))
            kernel, taken = fast.unwrapped._kernel, []  # a new env: its rules take them again
        _same_matches(fast, slow)
        held = (copy.deepcopy(out[0]), copy.deepcopy(out[1]))
        for step in range(40):
            action = _pick(rng, out[-1]["action_mask"])
            out = fast.step(action)
            _same(out, slow.step(action), f"seed {seed} episode {episode} step {step}")
            if out[2] or out[3]:
                break
        _same(held, (copy.deepcopy(held[0]), held[1]), "an earlier observation kept as it was")
        _same_matches(fast, slow)
    refusals = []
    for env in (fast, slow):
        with pytest.raises(ValueError) as refused:
            env.reset(seed=2**63)
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1] and "seed" in refusals[0]
    assert len(taken) > len({id(options) for options in taken}), "some starts on the kernel"
    options = {"startLevel": 2} if env_id == DELVEWICK else {}
    out = fast.reset(seed=seed, options=options)
    _same(out, slow.reset(seed=seed, options=options), "reset with options")
    assert fast.unwrapped._on_kernel and not kernel.stale
    _same_matches(fast, slow)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_episode_of_the_default_env_is_a_replay_playbench_verify_accepts(
    env_id, tmp_path
) -> None:
    """The env made by default steps on the kernel; the match it keeps and the rewards and
    scores it hands out, written as a replay, re-simulate on the rules step for step, and
    a score edited by one point is refused."""
    seed = int(np.random.default_rng().integers(2**31))
    rng = np.random.default_rng(seed)
    env = gymnasium.make(env_id, games="any", max_episode_steps=300)
    assert env.unwrapped._kernel is not None
    _, info = env.reset(seed=seed)
    lines = []
    while True:
        pick = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(pick)
        action = env.unwrapped.match.log[-1]
        step = {"step": len(lines) + 1, "action": action, "reward": int(reward)}
        lines.append({**step, "score": int(info["score"])})
        if terminated or truncated:
            break
    match = env.unwrapped.match
    assert match.log == [line["action"] for line in lines], seed
    slug = match.game.slug
    end = {"score": int(info["score"]), "fingerprint": match.fingerprint(), "steps": len(lines)}
    first = header(slug, match.seed, match.options, "gym", None)
    path = tmp_path / replay_name(slug, match.seed)
    path.write_bytes(dump_lines([first, *lines, {"end": end}]))
    verdict = verify_replay(path)
    assert verdict.ok and verdict.score == info["score"], (seed, verdict.problem)
    lines[-1]["score"] += 1
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(dump_lines([first, *lines, {"end": {**end, "score": end["score"] + 1}}]))
    assert not verify_replay(edited).ok, seed
