"""The native vector env on a game's kernel against the same env on its loop over matches
(the kernels turned off): the same observations, rewards, ends and infos, step for step,
through ``gymnasium.make_vec``, with drawn seeds, step caps and (Delvewick) tasks."""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from playbench.gym.env import ActionOutOfSpace
from playbench.kernels import KERNELS_ENV, wanted

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

ENV_ID = "playbench/Delvewick-v0"
ENV_IDS = (ENV_ID, "playbench/Chimestep-v0", "playbench/GemSwap-v0", "playbench/Cogcrawl-v0")
ENVS = 16
ROUNDS = 400


def _make(env_id: str, kernel: bool, **keywords):
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv(KERNELS_ENV, "1" if kernel else "0")
        envs = gymnasium.make_vec(env_id, num_envs=ENVS, events=False, **keywords)
    assert (envs._kernel is not None) == kernel
    return envs


def _same(one, other, where: str) -> None:
    if isinstance(one, tuple):
        assert len(one) == len(other), where
        for k, (mine, theirs) in enumerate(zip(one, other, strict=True)):
            _same(mine, theirs, f"{where} [{k}]")
    elif isinstance(one, dict):
        assert sorted(one) == sorted(other), where
        for key in one:
            _same(one[key], other[key], f"{where} {key}")
    elif isinstance(one, np.ndarray) and one.dtype == object:
        assert one.tolist() == other.tolist(), where
    else:
        np.testing.assert_array_equal(one, other, err_msg=where)
        assert np.asarray(one).dtype == np.asarray(other).dtype, where


def _picks(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A legal action a row mostly, sometimes any action of the space (an illegal one
    included: both loops refuse it alike)."""
    picks = (rng.random(mask.shape) * mask).argmax(axis=1)
    wild = rng.random(len(picks)) < 0.05
    picks[wild] = rng.integers(0, mask.shape[1], int(wild.sum()))
    return picks


@pytest.mark.parametrize("env_id", ENV_IDS)
@settings(max_examples=2, deadline=None, phases=[Phase.generate])
@given(
    seed=st.integers(0, 2**32),
    cap=st.integers(20, 300),
    levels=st.sets(st.integers(1, 8), min_size=1),
)
def test_the_kernel_loop_hands_out_what_the_match_loop_does(env_id, seed, cap, levels):
    keywords = {"max_episode_steps": cap, "games": "any"}
    if env_id == ENV_ID:
        keywords["tasks"] = [{"startLevel": level} for level in sorted(levels)]
    fast, slow = _make(env_id, True, **keywords), _make(env_id, False, **keywords)
    _same(fast.reset(seed=seed), slow.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    mask = slow.action_masks()
    for step in range(ROUNDS):
        picks = _picks(rng, mask)
        if step == ROUNDS // 2:
            fast, slow = copy.deepcopy(fast), copy.deepcopy(slow)
            np.testing.assert_array_equal(fast.action_masks(), slow.action_masks())
            wrong = picks.copy()
            wrong[int(rng.integers(ENVS))] = mask.shape[1]
            refusals = []
            for envs in (fast, slow):
                with pytest.raises(ActionOutOfSpace) as refused:
                    envs.step(wrong)
                refusals.append(str(refused.value))
            assert refusals[0] == refusals[1]
            picks = picks.tolist()
        out = fast.step(picks)
        _same(out, slow.step(picks), f"seed {seed} step {step}")
        mask = out[4]["action_mask"]
        np.testing.assert_array_equal(fast.action_masks(), slow.action_masks())
    for one, other in zip(fast.matches, slow.matches, strict=True):
        assert one.fingerprint() == other.fingerprint()


def _legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def _first_game_over(env_id: str, seed: int) -> int | None:
    """The step at which the first of the envs' first episodes ends by the game, on random
    legal actions drawn from ``seed``; None when none does before the game's cap."""
    probe = _make(env_id, False, games="any")
    probe.reset(seed=seed)
    rng, mask = np.random.default_rng(seed), probe.action_masks()
    for step in range(1, probe.max_episode_steps):
        _, _, terminated, _, info = probe.step(_legal(rng, mask))
        if terminated.any():
            return step
        mask = info["action_mask"]
    return None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_episode_the_game_ends_on_its_cap_step_is_also_truncated(env_id) -> None:
    """As Gymnasium's TimeLimit says it (and so the sync env): terminated and truncated."""
    draws = np.random.default_rng()
    for _ in range(20):
        seed = int(draws.integers(2**32))
        cap = _first_game_over(env_id, seed)
        if cap is not None:
            break
    else:
        pytest.fail("no episode ended by the game before its cap in 20 drawn seeds")
    fast, slow = (_make(env_id, kernel, games="any", max_episode_steps=cap) for kernel in (1, 0))
    _same(fast.reset(seed=seed), slow.reset(seed=seed), "reset")
    rng, mask = np.random.default_rng(seed), slow.action_masks()
    for step in range(1, cap + 1):
        picks = _legal(rng, mask)
        out = fast.step(picks)
        _same(out, slow.step(picks), f"seed {seed} step {step}")
        mask = out[4]["action_mask"]
    _, _, terminated, truncated, _ = out
    assert terminated.any() and truncated.all(), (seed, cap, terminated, truncated)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_action_out_of_the_space_moves_no_env_on_either_loop(env_id) -> None:
    seed = int(np.random.default_rng().integers(2**32))
    fast, slow = _make(env_id, True), _make(env_id, False)
    fast.reset(seed=seed)
    slow.reset(seed=seed)
    size = int(fast.single_action_space.n)
    picks = np.zeros(ENVS, dtype=np.int64)
    picks[ENVS // 2] = size
    for envs in (fast, slow):
        before = [match.fingerprint() for match in envs.matches]
        with pytest.raises(ActionOutOfSpace, match=f"env {ENVS // 2}: action {size}"):
            envs.step(picks)
        assert [match.fingerprint() for match in envs.matches] == before
    _same(fast.step(picks * 0), slow.step(picks * 0), f"seed {seed} after the refusal")


def test_the_kernel_loop_is_only_taken_where_it_gives_the_same(monkeypatch) -> None:
    with monkeypatch.context() as patched:
        patched.setenv(KERNELS_ENV, "1")
        assert gymnasium.make_vec(ENV_ID, num_envs=2, events=True)._kernel is None
        assert gymnasium.make_vec(ENV_ID, num_envs=2, json_info=True)._kernel is None
        assert gymnasium.make_vec(ENV_ID, num_envs=2, obs_type="frame")._kernel is None
        assert gymnasium.make_vec(ENV_ID, num_envs=2)._kernel is not None


@pytest.mark.parametrize("allow_dominated", [False, True])
def test_gem_swaps_hint_goes_through_both_loops_alike(allow_dominated) -> None:
    """Gem Swap's ``hint`` costs points and is dominated: left out of the masks and refused
    unless ``allow_dominated=True``, when it is played; picked often here, either way the
    kernel's loop hands out what the loop over matches does."""
    seed = int(np.random.default_rng().integers(2**32))
    keywords = {"allow_dominated": allow_dominated, "max_episode_steps": 60}
    fast = _make("playbench/GemSwap-v0", True, **keywords)
    slow = _make("playbench/GemSwap-v0", False, **keywords)
    _same(fast.reset(seed=seed), slow.reset(seed=seed), "reset")
    rng, mask = np.random.default_rng(seed), slow.action_masks()
    hint = mask.shape[1] - 1
    assert bool(mask[:, hint].all()) == allow_dominated
    refused = 0
    for step in range(120):
        picks = _picks(rng, mask)
        picks[rng.random(ENVS) < 0.3] = hint
        out = fast.step(picks)
        _same(out, slow.step(picks), f"seed {seed} step {step}")
        refused += int(out[4]["illegal"][picks == hint].sum())
        mask = out[4]["action_mask"]
    assert (refused == 0) == allow_dominated


@pytest.mark.parametrize("allow_quit", [False, True])
def test_cogcrawls_up_from_the_first_level_goes_through_both_loops_alike(allow_quit) -> None:
    """Cogcrawl's ``up`` on the first level quits the run: left out of the masks and refused
    unplayed unless ``allow_quit=True``, when it ends the run; picked often here (and other
    actions off the mask, some of which the rules would play), either way the kernel's loop
    hands out what the loop over matches does."""
    from playbench.games.cogcrawl.learning import UP

    seed = int(np.random.default_rng().integers(2**32))
    keywords = {"allow_quit": allow_quit, "max_episode_steps": 80}
    fast = _make("playbench/Cogcrawl-v0", True, **keywords)
    slow = _make("playbench/Cogcrawl-v0", False, **keywords)
    out = fast.reset(seed=seed)
    _same(out, slow.reset(seed=seed), "reset")
    rng, mask = np.random.default_rng(seed), slow.action_masks()
    observation, going, tried = out[0], np.ones(ENVS, dtype=np.bool_), 0
    for step in range(120):
        picks = _picks(rng, mask)
        picks[rng.random(ENVS) < 0.2] = UP
        out = fast.step(picks)
        _same(out, slow.step(picks), f"seed {seed} step {step}")
        # up from the first level (its stats[0] is 1/10) in a run still going: it quits
        # where the mask shows it (on the stair, and only with allow_quit), else is refused
        ups = going & (picks == UP) & (observation["stats"][:, 0] < 0.15)
        climbs = ups & (mask[:, UP] == 1)
        assert out[2][climbs].all() and out[4]["illegal"][ups & ~climbs].all(), f"seed {seed}"
        assert not climbs.any() or allow_quit, f"seed {seed} step {step}"
        tried += int(climbs.sum() if allow_quit else ups.sum())
        observation, mask = out[0], out[4]["action_mask"]
        going = ~(out[2] | out[3])
    assert tried > 0, f"seed {seed}: no env picked up where the test looks"


def _arrays(out, observation: bool = True) -> list[np.ndarray]:
    """The arrays a step handed out (rewards, ends, info's, and the observation's), but
    the object arrays."""
    rewards, terminated, truncated, info = out[1:]
    found = [rewards, terminated, truncated, *info.values()]
    if observation:
        found += list(out[0].values())
    return [array for array in found if array.dtype != object]


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize(
    "shape", [{}, {"one_hot": True}, {"mask_in_observation": True}, {"copy": False}]
)
def test_what_a_step_hands_out_stays_as_it_was_after_the_next(env_id, shape) -> None:
    """Each step's arrays are new (none shares memory with an earlier step's but, with
    ``copy=False``, the observation's, which are the batch's own as Gymnasium's sync env
    hands out its own), and a step's ``info`` and rewards are left as they were by the
    steps and resets (of every env or some) after it; the observation shapes and the copy
    keyword hand out what the loop over matches does."""
    seed = int(np.random.default_rng().integers(2**32))
    keywords = {"games": "any", "max_episode_steps": 25, **shape}
    copied = shape.get("copy", True)
    fast, slow = _make(env_id, True, **keywords), _make(env_id, False, **keywords)
    out = fast.reset(seed=seed)
    _same(out, slow.reset(seed=seed), "reset")
    rng, mask = np.random.default_rng(seed), slow.action_masks()
    kept: list[tuple[tuple, tuple]] = []
    for step in range(60):
        picks = _picks(rng, mask)
        out = fast.step(picks)
        _same(out, slow.step(picks), f"seed {seed} step {step}")
        mask = out[4]["action_mask"]
        mine = _arrays(out, copied)
        for _, earlier in kept[-3:]:
            olds = _arrays(earlier, copied)
            assert not any(np.shares_memory(a, b) for a in mine for b in olds), step
        held = out if copied else (None, *out[1:])
        kept.append((copy.deepcopy(held), held))
        if step % 20 == 19:
            # a reset, all envs or some, leaves the steps' arrays as they were too
            mask_of = {"options": {"reset_mask": rng.random(ENVS) < 0.5}} if step % 40 else {}
            out = fast.reset(seed=seed + step, **copy.deepcopy(mask_of))
            _same(out, slow.reset(seed=seed + step, **mask_of), f"seed {seed} reset {step}")
            mask = out[1]["action_mask"]
    for number, (was, held) in enumerate(kept):
        _same(held, was, f"seed {seed} step {number} kept")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(0, 40), cap=st.integers(1, 12))
def test_the_tally_counts_as_the_numpy_form_of_its_rules(seed, count, cap) -> None:
    """The binding's ``tally`` (each env's steps, ends and normalised score after a step)
    against the same rules in NumPy, on drawn steps, ends, scores and figures (a span of 0:
    no figures, normalised 0)."""
    from playbench.kernels import native

    rng = np.random.default_rng(seed)
    over, refused, ended = (rng.random((3, count)) < 0.3).astype(np.bool_)
    scores = rng.integers(-(2**40), 2**40, count)
    low = rng.normal(0, 500, count)
    span = np.where(rng.random(count) < 0.3, 0.0, rng.normal(0, 5000, count))
    steps = rng.integers(0, cap + 1, count)
    going = ~ended
    counted = (steps + going) * going
    terminated, truncated = over & going, going & (steps + going >= cap)
    normalised = np.zeros(count)
    np.divide(scores - low, span, out=normalised, where=span != 0)
    outs = np.empty(count, np.bool_), np.empty(count, np.bool_), np.empty(count)
    counts = native().tally(over, refused, scores, low, span, cap, steps, ended, *outs)
    assert counts == (int(refused.sum()), int((terminated | truncated).sum()))
    assert steps.tolist() == counted.tolist()
    assert ended.tolist() == (terminated | truncated).tolist()
    assert outs[0].tolist() == terminated.tolist() and outs[1].tolist() == truncated.tolist()
    assert outs[2].tobytes() == normalised.tobytes()


def test_the_tally_refuses_buffers_of_other_lengths() -> None:
    from playbench.kernels import native

    ones, eights = np.zeros(3, np.bool_), np.zeros(3, np.int64)
    with pytest.raises(ValueError, match="one entry of each env"):
        native().tally(
            ones, ones, eights, np.zeros(3), np.zeros(2), 5, eights, ones, ones, ones, np.zeros(3)
        )


@pytest.mark.parametrize("slug", ["delvewick", "chimestep", "gem-swap", "cogcrawl"])
def test_a_batch_writing_into_new_records_writes_every_field_whole(slug) -> None:
    """``Batch.renew`` (the vector env's copy of each step's observations) leaves the new
    records as np.empty gives them: every step, its restarts included, must write each
    field of every run whole. A batch whose new records are filled with random bytes
    first shows what a batch that keeps its records shows, step for step."""
    from playbench.core import get_game
    from playbench.kernels import batched
    from playbench.kernels.draws import LegalPicks

    seed = int(np.random.default_rng().integers(2**32))
    rng, noise = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    kept, renewed = (batched(get_game(slug), 24) for _ in range(2))
    starts = rng.integers(0, 2**31, 24) if kept.module.STARTS_ON_SEED else kept.starts
    for runs in (kept, renewed):
        runs.starts[:] = starts
        runs.reset()
    pick = LegalPicks(rng)
    for step in range(400):
        actions = pick(kept.mask)
        renewed.renew()
        renewed.records.view(np.uint8)[:] = noise.integers(0, 256, renewed.records.nbytes)
        kept.step(actions)
        renewed.step(actions)
        for name, array in kept.obs.items():
            np.testing.assert_array_equal(renewed.obs[name], array, f"seed {seed} step {step}")
        assert np.array_equal(renewed.mask, kept.mask)
