"""The random and bot agents."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from pathlib import Path

import pytest

from playbench.agents import AgentError, BotAgent, RandomAgent, make_agent
from playbench.agents.bot import bot_factory
from playbench.cli import main
from playbench.core import all_games, get_game
from playbench.core.match import Match
from playbench.runner.episode import EpisodeSpec, Task, play

#: the games that name a bot: every game
BOT_GAMES = [game.slug for game in all_games() if game.bot is not None]


@pytest.mark.parametrize("slug", [game.slug for game in all_games()])
def test_every_game_names_a_bot_module_with_make_bot(slug):
    path = get_game(slug).bot
    assert path is not None and callable(importlib.import_module(path).make_bot)


def test_random_plays_the_offered_legal_actions_each_about_equally_often():
    game = get_game("gem-swap")
    agent = RandomAgent(game)
    agent.reset(3)
    view = Match.start(game, 0).view()
    swaps = [a["command"] for a in view["legalActions"] if a["command"].startswith("swap ")]
    assert len(swaps) == 12 and {"hint", "moves"} <= set(view["commands"])
    counts = Counter(agent.act(view)["command"] for _ in range(6000))
    # the moves a model is offered: the swaps, never hint (which costs) nor moves
    assert set(counts) == set(swaps)
    assert all(400 <= count <= 600 for count in counts.values())


def test_random_never_leaves_cogcrawl_by_its_first_up_stairs():
    game = get_game("cogcrawl")
    agent = RandomAgent(game)
    agent.reset(1)
    view = Match.start(game, 0).view()
    assert {"actions": [{"do": "up"}]} in view["legalActions"]
    picks = [agent.act(view) for _ in range(500)]
    assert {"actions": [{"do": "up"}]} not in picks and len({json.dumps(p) for p in picks}) == 12


def test_random_is_the_same_for_a_seed_and_differs_across_seeds():
    game = get_game("gem-swap")
    view = Match.start(game, 1).view()

    def picks(seed):
        agent = RandomAgent(game)
        agent.reset(seed)
        return [json.dumps(agent.act(view)) for _ in range(30)]

    assert picks(5) == picks(5)
    assert picks(5) != picks(6)


def test_an_unknown_agent_is_a_clear_error():
    with pytest.raises(AgentError, match="unknown agent 'genius'; agents: random, bot, llm"):
        make_agent("genius", get_game("delvewick"))


def test_a_game_without_a_bot_module_is_a_clear_error(monkeypatch):
    game = get_game("delvewick")
    monkeypatch.setattr(game, "bot", "playbench.bots.nothing_here")
    with pytest.raises(AgentError, match=r"has no bot yet: playbench\.bots\.nothing_here does not"):
        bot_factory(game)


def test_a_bot_module_without_make_bot_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(get_game("gem-swap"), "bot", "playbench.core.rng")
    with pytest.raises(AgentError, match=r"has no bot yet: playbench\.core\.rng has no make_bot"):
        BotAgent(get_game("gem-swap"))
    folder = tmp_path / "out"
    assert main(["run", "gem-swap", "--agent", "bot", "--out", str(folder)]) == 2
    assert "has no bot yet" in capsys.readouterr().err and not folder.exists()


def test_a_game_that_names_no_bot_is_a_clear_error(monkeypatch):
    game = get_game("chimestep")
    monkeypatch.setattr(game, "bot", None)
    with pytest.raises(AgentError, match="the game 'chimestep' names no bot"):
        bot_factory(game)


@pytest.mark.parametrize("slug", BOT_GAMES)
def test_bot_runs_end_to_end_and_verifies(slug, tmp_path, capsys):
    for name in ("a", "b"):
        args = ["run", slug, "--agent", "bot", "--seeds", "0-1", "--workers", "1"]
        assert main([*args, "--max-steps", "150", "--out", str(tmp_path / name)]) == 0
    first = (tmp_path / "a" / "runs.jsonl").read_text().splitlines()
    second = (tmp_path / "b" / "runs.jsonl").read_text().splitlines()
    strip = lambda line: {k: v for k, v in json.loads(line).items() if k != "seconds"}  # noqa: E731
    assert list(map(strip, first)) == list(map(strip, second))
    assert main(["verify", str(tmp_path / "a")]) == 0


@pytest.mark.parametrize("slug", BOT_GAMES)
def test_a_bot_plays_the_same_through_a_server(slug, tmp_path: Path):
    from tests.arena import arena

    with arena(tmp_path / "data") as url:
        far = play(EpisodeSpec(slug, "bot", server=url, max_steps=60), Task(2))
    near = play(EpisodeSpec(slug, "bot", max_steps=60), Task(2))
    assert far.record["fingerprint"] == near.record["fingerprint"]
    # a seat reply travels as its JSON text (the grammar's raw reply): compare what it did
    steps = lambda episode: [(l["reward"], l["score"]) for l in episode.replay[1:-1]]  # noqa: E731, E741
    assert steps(far) == steps(near) and far.replay[-1] == near.replay[-1]
