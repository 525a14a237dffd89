"""Properties over random play: determinism, JSON round trip, legal actions agree with
step, score never falls, events account for every point."""

import json

from hypothesis import given
from hypothesis import strategies as st

from playbench.core import canonical_json
from playbench.games.chimestep.rules import INTRO_TICKS

from .helpers import GAME

CANDIDATES = [
    {"type": "start"},
    {"type": "hop", "dir": "upLeft"},
    {"type": "hop", "dir": "upRight"},
    {"type": "hop", "dir": "downLeft"},
    {"type": "hop", "dir": "downRight"},
    {"type": "toll"},
    {"type": "tick"},
    {"type": "tick", "count": 4},
    {"type": "tick", "count": 30},
]
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
PLAYS = st.lists(st.integers(min_value=0, max_value=len(CANDIDATES) - 1), max_size=120)


def _play(seed, plays):
    """Yield (state, action, outcome) for the candidate actions chosen by ``plays``."""
    state = GAME.new(seed)
    for choice in plays:
        action = CANDIDATES[choice]
        outcome = GAME.step(state, action)
        yield state, action, outcome
        state = outcome.state


def _normal(action):
    return {"type": "tick"} if action["type"] == "tick" else action


@given(SEEDS, PLAYS)
def test_same_seed_same_actions_same_states(seed, plays):
    first = [GAME.fingerprint(o.state) for _, _, o in _play(seed, plays)]
    second = [GAME.fingerprint(o.state) for _, _, o in _play(seed, plays)]
    assert first == second


@given(SEEDS, PLAYS)
def test_json_round_trip_of_every_reached_state(seed, plays):
    for _, _, outcome in _play(seed, plays):
        data = GAME.to_json(outcome.state)
        again = GAME.from_json(json.loads(json.dumps(data)))
        assert canonical_json(GAME.to_json(again)) == canonical_json(data)


@given(SEEDS, PLAYS)
def test_legal_actions_are_exactly_what_step_acts_on(seed, plays):
    for state, _, _ in _play(seed, plays):
        legal = GAME.legal_actions(state)
        for action in CANDIDATES:
            outcome = GAME.step(state, action)
            assert outcome.ok == (_normal(action) in legal), (action, outcome.reason)
            if not outcome.ok:
                assert outcome.state is state and outcome.reason


@given(SEEDS, PLAYS)
def test_score_never_falls_and_events_account_for_every_point(seed, plays):
    for state, _, outcome in _play(seed, plays):
        assert outcome.reward >= 0
        assert GAME.score(outcome.state) == GAME.score(state) + outcome.reward
        assert sum(event["points"] for event in outcome.events) == outcome.reward


@given(SEEDS, st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=8))
def test_batched_ticks_equal_single_ticks(seed, counts):
    state = GAME.step(GAME.new(seed), {"type": "start"}).state
    state = GAME.step(state, {"type": "tick", "count": INTRO_TICKS}).state
    hopped = GAME.step(state, {"type": "hop", "dir": "downLeft"})
    assert hopped.ok and GAME.observe(hopped.state)["hopCooldown"] == 4
    state = GAME.step(hopped.state, {"type": "hop", "dir": "downRight"}).state
    assert GAME.observe(state)["bufferedHop"] == "downRight"
    batched = single = state
    for count in counts:
        batched = GAME.step(batched, {"type": "tick", "count": count}).state
        for _ in range(count):
            single = GAME.step(single, {"type": "tick"}).state
    assert GAME.fingerprint(batched) == GAME.fingerprint(single)


@given(SEEDS, PLAYS)
def test_step_never_mutates_its_input(seed, plays):
    for state, _, _ in _play(seed, plays):
        before = canonical_json(GAME.to_json(state))
        for action in CANDIDATES:
            GAME.step(state, action)
        assert canonical_json(GAME.to_json(state)) == before


@given(SEEDS, PLAYS)
def test_no_reached_state_shows_the_chick_on_an_awake_hush_without_shimmer(seed, plays):
    for _, _, outcome in _play(seed, plays):
        view = GAME.observe(outcome.state)
        if view["status"] == "playing" and not view["shimmerTicks"]:
            assert view["position"] not in [
                {"row": h["row"], "col": h["col"]} for h in view["hushCells"]
            ]
