"""from_trusted_json builds exactly the state from_json builds, for every game, on states
reached by random play (every attribute compared, types included)."""

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import Rng, StateError, all_games, get_game
from playbench.core.game import Game
from playbench.games.cogcrawl.delver import delver_reply


def snapshot(value: Any) -> Any:
    """A plain, comparable picture of a state: every attribute, with the type of every
    container and object, so a list where a tuple belongs differs too."""
    if isinstance(value, (bool, int, str, float)) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, (bytes, bytearray)):
        return (type(value).__name__, bytes(value))
    if isinstance(value, dict):
        return ("dict", [(snapshot(k), snapshot(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [snapshot(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(map(repr, value)))
    slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    fields = slots or sorted(vars(value))
    return (type(value).__name__, [(name, snapshot(getattr(value, name))) for name in fields])


def states_of_random_play(game: Game, seed: int, steps: int) -> list[Any]:
    chooser = Rng.from_seed(seed, 7)
    state = game.new(seed)
    states = [state]
    for _ in range(steps):
        legal = game.legal_actions(state)
        if not legal:
            break
        state = game.step(state, chooser.choice(legal)).state
        states.append(state)
    return states


@pytest.mark.parametrize("slug", [game.slug for game in all_games()])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60))
def test_from_trusted_json_equals_from_json(slug, seed, steps):
    game = get_game(slug)
    for state in states_of_random_play(game, seed, steps):
        data = game.to_json(state)
        assert snapshot(game.from_trusted_json(data)) == snapshot(game.from_json(data))


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_cogcrawl_deep_states_from_the_delver(seed):
    """States deep in a run (several levels, monsters, a full pack): the delver plays."""
    game = get_game("cogcrawl")
    state = game.new(seed)
    for turn in range(240):
        if game.is_over(state):
            break
        state = game.step(state, delver_reply(game.observe(state))).state
        if turn % 12 == 0:
            data = game.to_json(state)
            assert snapshot(game.from_trusted_json(data)) == snapshot(game.from_json(data))


def test_snapshot_tells_a_changed_state_apart():
    game = get_game("gem-swap")
    state = game.new(3)
    other = game.from_json(game.to_json(state))
    assert snapshot(other) == snapshot(state)
    other.colors[0] = (other.colors[0] + 1) % 7
    assert snapshot(other) != snapshot(state)


def test_a_game_without_a_trusted_reader_reads_trusted_states_with_the_full_check():
    """The contract's default: ``from_trusted_json`` is ``from_json`` (its StateError too)."""
    game = get_game("delvewick")
    checked = type(game)(
        state=SimpleNamespace(to_json=game.codec.to_json, from_json=game.codec.from_json),
        rules=game.rules,
        view=game.views,
        commands=game.grammar,
        spec=game.about,
    )
    data = game.to_json(game.new(1))
    assert snapshot(checked.from_trusted_json(data)) == snapshot(game.from_json(data))
    with pytest.raises(StateError):
        checked.from_trusted_json({"unexpected": True})


@pytest.mark.parametrize("slug", [game.slug for game in all_games()])
def test_a_state_of_another_form_gets_the_full_checks_error(slug):
    """A sealed state an earlier release wrote in another form: a StateError, no crash.
    Without a key the trusted reader never looks at (``game``), the state still reads."""
    game = get_game(slug)
    data = game.to_json(game.new(1))
    refused = []
    for key in data:
        changed = {k: v for k, v in data.items() if k != key}
        try:
            game.from_trusted_json(changed)
        except StateError:
            refused.append(key)
    assert "score" in refused and "game" not in refused
    with pytest.raises(StateError):
        game.from_trusted_json([data])
