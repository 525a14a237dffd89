"""The Gem Swap bots: driven from Match.view() only, deterministic, with golden scores."""

import json

import pytest

from playbench.bots.gemswap import GreedyBot, SearchBot, make_bot, make_greedy, swaps_of
from playbench.core import get_game
from playbench.core.match import Match

GAME = get_game("gem-swap")


def run(bot, seed: int) -> tuple[int, list[dict]]:
    """A whole game of ``bot`` that sees each view only as JSON text, as over HTTP."""
    match = Match.start("gem-swap", seed)
    while not match.view()["gameOver"]:
        view = json.loads(json.dumps(match.view()))
        result = match.play(bot.act(view))
        assert result.ok, result.reason
    return match.view()["score"], match.log


@pytest.mark.parametrize(("seed", "score"), [(0, 5350), (1, 10430)])
def test_search_bot_golden_scores(seed, score):
    assert run(make_bot(seed), seed)[0] == score


@pytest.mark.parametrize(("seed", "score"), [(0, 4840), (1, 3820), (2, 2950)])
def test_greedy_bot_golden_scores(seed, score):
    assert run(make_greedy(seed), seed)[0] == score


def test_make_bot_is_the_search_bot_and_deterministic_for_its_seed():
    assert isinstance(make_bot(3), SearchBot) and isinstance(make_greedy(3), GreedyBot)
    view = Match.start("gem-swap", 5).view()
    assert make_bot(3).act(view) == make_bot(3).act(view)


def test_the_bot_sees_no_hidden_state():
    """Two games with the same board but other hidden refills look the same to the bot,
    so it plays the same swap in both."""
    state = GAME.new(8)
    other = GAME.from_json({**GAME.to_json(state), "rng": GAME.to_json(GAME.new(99))["rng"]})
    first, second = Match(GAME, state).view(), Match(GAME, other).view()
    assert first == second
    assert make_bot(4).act(first) == make_bot(4).act(second)


def test_the_bot_needs_only_the_observation_and_the_legal_actions():
    view = Match.start("gem-swap", 6).view()
    bare = {"observation": view["observation"], "legalActions": view["legalActions"]}
    assert make_bot(1).act(bare) == make_bot(1).act(view)
    assert make_greedy(1).act(bare) == make_greedy(1).act(view)


def test_the_bot_plays_one_of_the_legal_swaps():
    view = Match.start("gem-swap", 2).view()
    action = make_bot(0).act(view)
    assert action in view["legalActions"] and action["command"].startswith("swap")
    assert len(swaps_of(view)) == len(view["legalActions"]) - 2


def test_a_finished_game_gets_the_free_moves_query():
    view = {"observation": {}, "legalActions": [], "gameOver": True}
    assert make_bot(0).act(view) == {"command": "moves"}
    assert make_greedy(0).act(view) == {"command": "moves"}
