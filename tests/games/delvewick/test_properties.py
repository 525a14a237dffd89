"""Hypothesis properties over random action lists on every shipped and a busy custom level."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.core import Rng, canonical_json

from .helpers import BY_LETTER, GAME

ALL_ACTIONS = [BY_LETTER[letter] for letter in "UDLRW"]
JUNK = [{"type": "move", "dir": "in"}, {"type": "dig"}, {}, "up", None]
BUSY = {
    "name": "busy",
    "quota": 3,
    "oil": 60,
    "rows": [
        "##########",
        "#O*G.O*G.#",
        "#.O*.G.O.#",
        "#*.O.*O..#",
        "#..M.....#",
        "#%%%.%%.X#",
        "##########",
    ],
}
STACKS = {
    "name": "stacks",
    "quota": 2,
    "oil": 60,
    "rows": [
        "###########",
        "#O%O%O%O%O#",
        "#*%G%*%O%*#",
        "#O%*%O%G%O#",
        "#%M%%%%%%%#",
        "#%%%%%%%%X#",
        "###########",
    ],
}
OPTIONS = [{"startLevel": k} for k in range(1, 9)] + [{"level": BUSY}, {"level": STACKS}]

runs = st.tuples(
    st.sampled_from(OPTIONS),
    st.lists(st.sampled_from(ALL_ACTIONS * 4 + JUNK), min_size=10, max_size=80),
)


def replay(options, actions):
    """States after each action (refused ones included), starting with the fresh state."""
    state = GAME.new(0, options)
    states = [state]
    for action in actions:
        state = GAME.step(state, action).state
        states.append(state)
    return states


@given(runs)
def test_legal_actions_are_exactly_the_accepted_ones(run):
    options, actions = run
    for state in replay(options, actions):
        accepted = [a for a in ALL_ACTIONS if GAME.step(state, a).ok]
        assert GAME.legal_actions(state) == accepted
        assert not any(GAME.step(state, junk).ok for junk in JUNK)


@given(runs)
def test_step_never_mutates_its_input_and_score_never_falls(run):
    options, actions = run
    state = GAME.new(0, options)
    for action in actions:
        before = canonical_json(GAME.to_json(state))
        outcome = GAME.step(state, action)
        assert canonical_json(GAME.to_json(state)) == before
        assert outcome.reward >= 0
        assert GAME.score(outcome.state) == GAME.score(state) + outcome.reward
        if not outcome.ok:
            assert outcome.state is state and outcome.reward == 0 and outcome.reason
        state = outcome.state


@given(runs)
def test_json_round_trip_keeps_the_state_and_its_future(run):
    options, actions = run
    cut = len(actions) // 2
    middle = replay(options, actions[:cut])[-1]
    loaded = GAME.from_json(GAME.to_json(middle))
    assert canonical_json(GAME.to_json(loaded)) == canonical_json(GAME.to_json(middle))
    for action in actions[cut:]:
        first, second = GAME.step(middle, action), GAME.step(loaded, action)
        assert first.ok == second.ok and first.events == second.events
        middle, loaded = first.state, second.state
        assert GAME.to_json(middle) == GAME.to_json(loaded)


@given(runs)
def test_same_actions_same_states(run):
    options, actions = run
    first = [GAME.fingerprint(s) for s in replay(options, actions)]
    second = [GAME.fingerprint(s) for s in replay(options, actions)]
    assert first == second


@given(runs)
def test_the_incremental_gravity_pass_equals_a_full_scan(run):
    """A state loaded from JSON wakes every movable, so stepping through JSON before each
    action runs every gravity pass over the whole board; the results must not differ."""
    options, actions = run
    fast = full = GAME.new(0, options)
    for action in actions:
        first = GAME.step(fast, action)
        second = GAME.step(GAME.from_json(GAME.to_json(full)), action)
        assert first.events == second.events
        fast, full = first.state, second.state
        assert GAME.to_json(fast) == GAME.to_json(full)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: str(o.get("startLevel", "custom")))
def test_the_incremental_pass_equals_a_full_scan_over_long_random_play(options):
    for seed in range(4):
        chooser = Rng.from_seed(seed, 7)
        fast = full = GAME.new(0, options)
        for _ in range(120):
            if GAME.is_over(fast):
                break
            action = chooser.choice(GAME.legal_actions(fast))
            fast = GAME.step(fast, action).state
            full = GAME.step(GAME.from_json(GAME.to_json(full)), action).state
            assert GAME.to_json(fast) == GAME.to_json(full)
