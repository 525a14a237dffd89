"""Deep play: a greedy player clears stages into target 2; invariants hold all the way;
a golden replay pins the whole engine down."""

import json

from hypothesis import given
from hypothesis import strategies as st

from playbench.core import canonical_json

from .helpers import GAME, greedy_from_state
from .test_properties import CANDIDATES, SEEDS, _normal

GOLDEN_SEED = 0
GOLDEN_STEPS = 600
#: (stage, score, tick, lives) after the golden replay, recorded when the rules were
#: written; any change to it is a change of the rules and must be deliberate
GOLDEN = (5, 17474, 1308, 3)


def _greedy_run(seed, steps, detours=()):
    """Greedy play; ``detours[i]`` (a candidate index, or -1) replaces the greedy action."""
    state = GAME.new(seed)
    for number in range(steps):
        if GAME.is_over(state):
            return
        detour = detours[number] if number < len(detours) else -1
        action = CANDIDATES[detour] if detour >= 0 else greedy_from_state(state)
        outcome = GAME.step(state, action)
        yield state, action, outcome
        state = outcome.state


def test_greedy_play_clears_stages_and_reaches_target_two():
    for seed in (1, 2, 3):
        states = [o.state for _, _, o in _greedy_run(seed, 1200)]
        views = [GAME.observe(s) for s in states]
        assert max(v["stage"] for v in views) >= 3
        assert any(v["target"] == 2 and v["status"] == "playing" for v in views)
        assert any(v["status"] == "stageClear" for v in views)


def test_golden_replay_is_reproduced_through_json():
    actions = [a for _, a, _ in _greedy_run(GOLDEN_SEED, GOLDEN_STEPS)]
    direct = GAME.new(GOLDEN_SEED)
    relayed = GAME.to_json(GAME.new(GOLDEN_SEED))
    for action in actions:
        direct = GAME.step(direct, action).state
        relayed = GAME.to_json(
            GAME.step(GAME.from_json(json.loads(json.dumps(relayed))), action).state
        )
    assert canonical_json(GAME.to_json(direct)) == canonical_json(relayed)
    view = GAME.observe(direct)
    assert (view["stage"], view["score"], view["tick"], view["lives"]) == GOLDEN


@given(SEEDS, st.lists(st.integers(min_value=-1, max_value=len(CANDIDATES) - 1), max_size=300))
def test_invariants_hold_in_deep_play(seed, detours):
    for state, action, outcome in _greedy_run(seed, 300, detours):
        assert outcome.ok == (_normal(action) in GAME.legal_actions(state))
        assert outcome.reward >= 0
        assert sum(event["points"] for event in outcome.events) == outcome.reward
        legal = GAME.legal_actions(state)
        for action in CANDIDATES:
            assert GAME.step(state, action).ok == (_normal(action) in legal)
