"""Invariants of every env under any masked play: the arrays stay in their space, the mask
is the game's legal set less its quits and dominated moves, the rewards add up to the
score, the env is its match."""

from __future__ import annotations

import gymnasium
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.gym import env_ids

ENV_IDS = env_ids()


@settings(max_examples=30, deadline=None)
@given(
    env_id=st.sampled_from(sorted(ENV_IDS)),
    seed=st.integers(0, 2**32),
    picks=st.lists(st.integers(0, 1000), max_size=40),
)
def test_masked_play_keeps_every_invariant(env_id: str, seed: int, picks: list[int]) -> None:
    slug = ENV_IDS[env_id]
    env = gymnasium.make(env_id, disable_env_checker=True, json_info=True)
    observation, info = env.reset(seed=seed)
    total = 0.0
    for pick in picks:
        assert observation in env.observation_space
        match = env.unwrapped.match
        legal = match.game.legal_actions(match.state)
        expected = [0] * len(info["action_mask"])
        learning = learning_of(match.game)
        quits = learning.quits(match.state) if learning.quits else ()
        dominated = learning.dominated(match.state) if learning.dominated else ()
        for index in learning.actions.legal(legal):
            expected[index] = int(index not in quits and index not in dominated)
        assert info["action_mask"].tolist() == expected
        assert info["observation"] == match.game.observe(match.state)
        chosen = np.flatnonzero(info["action_mask"])
        if not len(chosen):
            break
        observation, reward, terminated, _, info = env.step(int(chosen[pick % len(chosen)]))
        assert not info["illegal"]
        total += reward
        assert total == info["score"] == match.score
        assert terminated == match.over
    played = env.unwrapped.match
    replayed = Match.replay(slug, played.seed, played.options, played.log)
    assert replayed.fingerprint() == env.unwrapped.match.fingerprint()
