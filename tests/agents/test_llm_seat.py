"""The llm agent on Cogcrawl's own seat protocol: the game reads the raw reply, retries
once and plays the turn with its delver."""

from __future__ import annotations

import json

from playbench.core import get_game
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import MODEL, Reply, user_message
from tests.agents.test_llm import agent_for, counts

COGCRAWL = get_game("cogcrawl")


def test_a_seat_reply_goes_to_the_game_as_raw_text(chat):
    raw = json.dumps({"actions": [{"do": "search"}], "say": "looking", "notes": "DL1"})
    chat.add(Reply(raw, 300, 20))
    agent = agent_for(COGCRAWL, chat)
    table = LocalTable(Match.start(COGCRAWL, 7), 10_000)
    turn = agent.turn(table)
    (line,) = table.lines
    assert line["action"] == {"reply": raw}
    assert turn.note["say"] == "looking"
    observation = table.view()["observation"]
    assert observation["notes"] == "DL1" and observation["last_plan"]["executed"] == [
        {"do": "search"}
    ]
    assert counts(agent)["calls"] == 1 and counts(agent)["promptTokens"] == 300
    system = chat.requests[0]["messages"][0]["content"]
    assert '{"actions": [{"do": "move", "dir": "ne"}' in system
    assert "Your notes" not in user_message(chat.requests[0])


def test_two_unreadable_replies_let_the_delver_play_the_turn(chat):
    chat.add(Reply("Let me think.", 10, 1), Reply("```{}```", 11, 1))
    agent = agent_for(COGCRAWL, chat)
    table = LocalTable(Match.start(COGCRAWL, 7), 10_000)
    turn = agent.turn(table)
    # the first failure is counted by the game (a logged, refused action), the second
    # makes the game's delver play
    assert [line["action"] for line in table.lines] == [
        {"reply": "Let me think."},
        {"reply": "```{}```"},
    ]
    assert table.view()["observation"]["fallback"] is True
    assert turn.note["fallback"] is True and turn.note["retried"] is True
    assert counts(agent) == {
        "calls": 2,
        "promptTokens": 21,
        "completionTokens": 2,
        "parseFailures": 2,
        "retries": 1,
        "fallbacks": 1,
        "errors": 0,
    }
    assert "the turn is retried once" in chat.requests[1]["messages"][3]["content"]
    assert Match.replay(COGCRAWL, 7, None, table.match.log).fingerprint() == (
        table.match.fingerprint()
    )


def test_a_failed_parse_then_a_good_reply_is_one_retry(chat):
    good = json.dumps({"actions": [{"do": "wait"}]})
    chat.add(Reply("{oops", 1, 1), Reply(good, 1, 1))
    agent = agent_for(COGCRAWL, chat)
    table = LocalTable(Match.start(COGCRAWL, 7), 10_000)
    agent.turn(table)
    observation = table.view()["observation"]
    assert observation["fallback"] is False and observation["turn"] == 1
    stats = counts(agent)
    assert (stats["parseFailures"], stats["retries"], stats["fallbacks"]) == (1, 1, 0)
    assert MODEL in json.dumps(chat.requests[0])
