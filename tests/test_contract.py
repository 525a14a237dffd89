"""Every registered game honours the contract: determinism, purity, round-trips, views."""

import copy
import json

import pytest

from playbench.core import Game, Rng, all_games, canonical_json, get_game
from playbench.core.controls import controls_of
from playbench.core.errors import CommandError, StateError, UnknownGameError
from playbench.core.game import Spec
from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS, SOLUTION_LETTERS

GAMES = all_games()
SLUGS = [game.slug for game in GAMES]
PLAY_STEPS = 150
#: the most random runs a check plays to see enough of a short game
MOST_RUNS = 40


def random_run(game: Game, seed: int, steps: int = PLAY_STEPS):
    """Play random legal actions; yield (state_before, action, outcome)."""
    chooser = Rng.from_seed(seed, 99)
    state = game.new(seed)
    for _ in range(steps):
        if game.is_over(state):
            return
        actions = game.legal_actions(state)
        assert actions, "a running game must offer at least one legal action"
        action = chooser.choice(actions)
        outcome = game.step(state, action)
        yield state, action, outcome
        state = outcome.state


def test_registry_is_not_empty():
    assert SLUGS, "no game registered"


def test_unknown_slug_names_the_known_ones():
    with pytest.raises(UnknownGameError) as info:
        get_game("no-such-game")
    for slug in SLUGS:
        assert slug in str(info.value)


@pytest.mark.parametrize("slug", SLUGS)
def test_same_seed_same_run(slug):
    game = get_game(slug)
    first = [game.fingerprint(o.state) for _, _, o in random_run(game, 5)]
    second = [game.fingerprint(o.state) for _, _, o in random_run(game, 5)]
    assert first == second and first


@pytest.mark.parametrize("slug", SLUGS)
def test_legal_actions_are_accepted_and_step_is_pure(slug):
    game = get_game(slug)
    for state, action, outcome in random_run(game, 11):
        before = canonical_json(game.to_json(state))
        assert outcome.ok, f"legal action {action} refused: {outcome.reason}"
        assert canonical_json(game.to_json(state)) == before, "step mutated its input"


@pytest.mark.parametrize("slug", SLUGS)
def test_score_never_decreases_in_random_play(slug):
    game = get_game(slug)
    for state, _, outcome in random_run(game, 13):
        if game.score_can_fall:
            assert game.score(outcome.state) == game.score(state) + outcome.reward
        else:
            assert game.score(outcome.state) >= game.score(state)


@pytest.mark.parametrize("slug", SLUGS)
def test_terminal_keys_parse_and_leave_the_quit_key_free(slug):
    controls = controls_of(get_game(slug))
    game = get_game(slug)
    assert controls.quit_key == "Q" and "Q" not in controls.keys and "Q" not in controls.panels
    for command in controls.keys.values():
        if not command.endswith("..."):
            game.parse_command(command)


@pytest.mark.parametrize("slug", SLUGS)
def test_json_round_trip_through_text(slug):
    game = get_game(slug)
    for _, _, outcome in random_run(game, 17, steps=60):
        data = game.to_json(outcome.state)
        again = game.from_json(json.loads(json.dumps(data)))
        assert canonical_json(game.to_json(again)) == canonical_json(data)
        assert game.observe(again) == game.observe(outcome.state)


@pytest.mark.parametrize("slug", SLUGS)
def test_from_json_rejects_garbage(slug):
    game = get_game(slug)
    for bad in (None, 3, "state", [], {}, {"unexpected": True}):
        with pytest.raises(StateError):
            game.from_json(bad)


@pytest.mark.parametrize("slug", SLUGS)
def test_from_json_does_not_alias_its_input(slug):
    game = get_game(slug)
    data = game.to_json(game.new(3))
    kept = copy.deepcopy(data)
    state = game.from_json(data)
    game.step(state, game.legal_actions(state)[0])
    assert data == kept


@pytest.mark.parametrize("slug", SLUGS)
def test_views_are_json_ready(slug):
    game = get_game(slug)
    for _, _, outcome in random_run(game, 19, steps=30):
        json.dumps(game.observe(outcome.state))
        assert isinstance(game.render(outcome.state), str)
        assert isinstance(game.legal_actions(outcome.state), list)
        json.dumps(outcome.events)


@pytest.mark.parametrize("slug", SLUGS)
def test_observation_hides_the_rng(slug):
    game = get_game(slug)
    state = game.new(23)
    rng_words = [str(w) for w in _rng_words(game.to_json(state))]
    text = canonical_json(game.observe(state))
    for word in rng_words:
        if len(word) > 6:
            assert word not in text


def _rng_words(data):
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "rng":
                yield from value
            else:
                yield from _rng_words(value)
    elif isinstance(data, list):
        for value in data:
            yield from _rng_words(value)


@pytest.mark.parametrize("slug", SLUGS)
def test_spec_is_complete(slug):
    game = get_game(slug)
    spec = game.spec()
    assert isinstance(spec, Spec)
    data = spec.to_json()
    json.dumps(data)
    for key in ("description", "goal", "scoring"):
        assert data[key].strip()
    assert data["rules"] and data["commands"] and data["observation"]
    assert data["actionSchema"]
    for command in spec.commands:
        game.parse_command(command.example)


@pytest.mark.parametrize("slug", SLUGS)
def test_parse_command_rejects_nonsense(slug):
    game = get_game(slug)
    for text in ("", "   ", "fly to the moon", "\x00"):
        with pytest.raises(CommandError):
            game.parse_command(text)


@pytest.mark.parametrize("slug", SLUGS)
def test_bad_action_shapes_are_refused_not_raised(slug):
    game = get_game(slug)
    state = game.new(29)
    for bad in (None, 7, "up", ["move", "up"]):
        outcome = game.step(state, bad)
        assert not outcome.ok and outcome.reason
        # a refusal costs nothing, unless the rules count it (Cogcrawl's parse failure)
        assert outcome.state is state or outcome.counted


@pytest.mark.parametrize("slug", SLUGS)
def test_new_rejects_bad_seed(slug):
    from playbench.core import OptionsError

    game = get_game(slug)
    for bad in (-1, "7", 1.5):
        with pytest.raises(OptionsError):
            game.new(bad)


# -- the kernel's contract: command text, replay, view, progress -----------------------------
@pytest.mark.parametrize("slug", SLUGS)
def test_command_text_round_trips_every_legal_action_over_random_play(slug):
    game = get_game(slug)
    checked = 0
    # two runs at least, more while a short game has checked few actions
    for seed in range(3, 3 + MOST_RUNS):
        for state, _, _ in random_run(game, seed):
            for action in game.legal_actions(state):
                assert game.parse_command(game.command_text(action)) == action
                checked += 1
        if seed > 3 and checked > 100:
            break
    assert checked > 100


@pytest.mark.parametrize("slug", SLUGS)
def test_command_text_refuses_what_is_no_action(slug):
    game = get_game(slug)
    for junk in (None, 7, "up", [], {"type": "no such thing"}):
        with pytest.raises(CommandError):
            game.command_text(junk)


@pytest.mark.parametrize("slug", SLUGS)
def test_replay_of_the_log_equals_the_match(slug):
    chooser = Rng.from_seed(21, 5)
    match = Match.start(slug, 21)
    for _ in range(PLAY_STEPS):
        if match.over:
            break
        match.play(chooser.choice(match.game.legal_actions(match.state)))
    again = Match.replay(slug, 21, None, match.log)
    assert match.log and again.fingerprint() == match.fingerprint()
    assert again.view() == match.view()


@pytest.mark.parametrize("slug", SLUGS)
def test_view_round_trips_through_json_text(slug):
    chooser = Rng.from_seed(8, 1)
    match = Match.start(slug, 8)
    for _ in range(40):
        view = match.view()
        assert json.loads(json.dumps(view)) == view
        assert view["commands"] == match.legal_commands()
        assert len(view["commands"]) == len(view["legalActions"])
        if match.over:
            break
        match.play(chooser.choice(view["legalActions"]))


@pytest.mark.parametrize("slug", SLUGS)
def test_progress_stays_between_0_and_1(slug):
    game = get_game(slug)
    assert game.progress(game.new(2)) == 0.0
    for _, _, outcome in random_run(game, 2):
        assert 0.0 <= game.progress(outcome.state) <= 1.0


def action_of(letter: str) -> dict:
    word = ("up", "down", "left", "right", "wait")[SOLUTION_LETTERS.index(letter)]
    return get_game("delvewick").parse_command(word)


def test_progress_is_monotone_over_a_won_delvewick_run_and_1_at_the_win():
    game = get_game("delvewick")
    match = Match.start(game, 0)
    seen = [game.progress(match.state)]
    for level in LEVELS:
        for letter in level.solution:
            assert match.play(action_of(letter)).ok
            seen.append(game.progress(match.state))
    assert seen == sorted(seen)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and match.over
