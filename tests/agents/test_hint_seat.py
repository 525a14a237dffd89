"""Gem Swap's ``hint`` at the model's seat: never offered, and when a model plays it
anyway, the next board it reads holds the answer (not only the step's events)."""

from __future__ import annotations

import random

from playbench.core import get_game
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import legal_commands, user_message
from tests.agents.test_llm import agent_for, reply

GEM_SWAP = get_game("gem-swap")


def test_a_hint_played_at_the_seat_shows_its_answer_on_the_next_board(chat):
    seed = random.randrange(2**31)
    table = LocalTable(Match.start(GEM_SWAP, seed), 10_000)
    chat.add(reply("hint"))
    agent = agent_for(GEM_SWAP, chat)
    turn = agent.turn(table)
    (event,) = turn.results[0].events
    assert event["type"] == "hint" and table.match.score == -50, seed
    offered = legal_commands(chat.requests[0])
    assert "hint" not in offered and "moves" not in offered
    chat.add(reply(offered[0]))
    agent.turn(table)
    board = user_message(chat.requests[1])
    assert f"hint: {event['swap']} lines up {event['gems']} gems" in board, seed
    assert "hint:" not in table.view()["board"]
