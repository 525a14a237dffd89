"""The Chimestep bots: golden runs, determinism, and play from the view alone."""

import copy
import json

import pytest

from playbench.bots.chimestep import ChimestepBot, GreedyBot, make_bot
from playbench.core import Rng, get_game
from playbench.core.match import Match

GAME = get_game("chimestep")
GOLDEN_MOVES = 2000
#: (stage, score, lives) after GOLDEN_MOVES actions of the bot, recorded when it was
#: written; a change of the bot or the rules that moves them must be deliberate
GOLDEN = {0: (7, 25981, 3), 1: (6, 24905, 3), 2: (6, 21931, 3)}


def _play(bot, seed: int, moves: int) -> Match:
    """Drive ``bot`` through a match, handing it a JSON copy of ``Match.view()`` only."""
    match = Match.start("chimestep", seed)
    for _ in range(moves):
        view = match.view()
        if view["gameOver"]:
            break
        result = match.play(bot.act(json.loads(json.dumps(view))))
        assert result.ok, result.reason
    return match


def _summary(match: Match) -> tuple[int, int, int]:
    observation = GAME.observe(match.state)
    return observation["stage"], observation["score"], observation["lives"]


@pytest.mark.parametrize("seed", sorted(GOLDEN))
def test_golden_runs(seed):
    assert _summary(_play(make_bot(seed), seed, GOLDEN_MOVES)) == GOLDEN[seed]


def test_make_bot_is_the_planner():
    assert isinstance(make_bot(3), ChimestepBot)


def test_the_bot_is_deterministic_for_its_seed():
    first = _play(make_bot(5), 5, 600)
    second = _play(make_bot(5), 5, 600)
    assert first.log == second.log and first.fingerprint() == second.fingerprint()


def test_the_bot_never_sees_the_hidden_generator():
    """Twin states that differ only in their hidden generator show the same view, and the
    bot (with the same memory) answers both the same way, at every step of a run."""
    match = Match.start("chimestep", 7)
    bot = make_bot(7)
    for step in range(400):
        twin_data = GAME.to_json(match.state)
        twin_data["rng"] = Rng.from_seed(1000 + step).to_json()
        twin = Match(GAME, GAME.from_json(twin_data), log=list(match.log))
        view = match.view()
        assert twin.view() == view
        twin_bot = copy.deepcopy(bot)
        action = bot.act(view)
        assert twin_bot.act(twin.view()) == action
        assert match.play(action).ok


def test_the_model_tracks_every_hidden_clock_from_the_view():
    """What the bot rebuilds from views equals the real state in every hidden count: Hush
    clocks, muffle time awake, spawn clock and queue, rings."""
    match = Match.start("chimestep", 2)
    bot = make_bot(2)
    compared = 0
    for _ in range(800):
        action = bot.act(match.view())
        state, model = match.state, bot.model
        assert (model.hush, model.spawn_clock, model.spawn_index, model.rings) == (
            state.hush,
            state.spawn_clock,
            state.spawn_index,
            state.rings,
        )
        compared += bool(state.hush)
        match.play(action)
    assert compared > 300


def test_the_greedy_baseline_plays_from_the_view():
    match = _play(GreedyBot(0), 0, 600)
    assert _summary(match) == (5, 17474, 3)
