"""The llm agent on Cogcrawl's own seat protocol: the game reads the reply, its legal
moves are action objects, and a turn the model fails twice is played by its delver."""

from __future__ import annotations

import json

from playbench.agents.bot import BotAgent
from playbench.core import get_game
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import Reply, legal_commands, user_message
from tests.agents.test_llm import agent_for, counts, expect

COGCRAWL = get_game("cogcrawl")


def table(seed=7, limit=10_000):
    return LocalTable(Match.start(COGCRAWL, seed), limit)


def test_a_seat_reply_goes_to_the_game_as_the_object_text(chat):
    raw = json.dumps({"actions": [{"do": "search"}], "say": "looking", "notes": "DL1"})
    chat.add(Reply(f"Sure!\n```json\n{raw}\n```", 300, 20))
    agent, here = agent_for(COGCRAWL, chat), table()
    turn = agent.turn(here)
    (line,) = here.lines
    assert line["action"] == {"reply": raw}
    assert turn.note["say"] == "looking" and turn.note["repaired"] is True
    observation = here.view()["observation"]
    assert observation["notes"] == "DL1"
    assert observation["last_plan"]["executed"] == [{"do": "search"}]
    assert counts(agent) == expect(
        turns=1, modelTurns=1, calls=1, promptTokens=300, completionTokens=20, repaired=1
    )
    system = chat.requests[0]["messages"][0]["content"]
    assert '{"actions": [{"do": "travel", "x": 20, "y": 5}, {"do": "down"}]' in system


def test_the_legal_moves_are_the_reply_s_action_objects_without_up_on_level_1(chat):
    chat.add(Reply('{"actions": [{"do": "wait"}]}', 1, 1))
    agent_for(COGCRAWL, chat).turn(table())
    moves = legal_commands(chat.requests[0])
    assert moves == [
        {"do": "move", "dir": "n"},
        {"do": "move", "dir": "s"},
        {"do": "move", "dir": "e"},
        {"do": "move", "dir": "w"},
        {"do": "move", "dir": "ne"},
        {"do": "move", "dir": "nw"},
        {"do": "move", "dir": "se"},
        {"do": "move", "dir": "sw"},
        {"do": "search"},
        {"do": "wait"},
        {"do": "eat", "item": "c"},
        {"do": "eat", "item": "d"},
    ]
    schema = chat.requests[0]["response_format"]["json_schema"]["schema"]["properties"]
    branches = schema["actions"]["items"]["anyOf"]
    offered = [{k: v["enum"] for k, v in b["properties"].items()} for b in branches]
    # the legal moves first, then every other action of the grammar a plan may hold
    assert offered[: len(moves)] == [{k: [v] for k, v in move.items()} for move in moves]
    rest = offered[len(moves) :]
    assert {"do": ["up"]} not in rest and {"do": ["down"]} in rest
    assert {"do": ["kick"], "dir": ["sw"]} in rest and {"do": ["wear"], "item": ["b"]} in rest
    (travel,) = [entry for entry in rest if entry["do"] == ["travel"]]
    assert travel["y"] == list(range(11, 17)) and 0 < len(travel["x"]) < 80
    prompt = user_message(chat.requests[0])
    assert "Map rows y=11 to y=16; x counts from 0 at the left edge:\n --------\n" in prompt


def test_text_actions_and_a_commands_list_are_retried_then_the_delver_plays(chat):
    chat.add(Reply('{"actions": ["move n"]}', 10, 1), Reply('{"commands": ["move n"]}', 11, 1))
    agent, here = agent_for(COGCRAWL, chat), table()
    delver = BotAgent(COGCRAWL)
    delver.reset(7)
    expected = delver.act(here.view())
    turn = agent.turn(here)
    retry = chat.requests[1]["messages"][3]["content"]
    assert 'each entry of "actions" must be an object, got "move n"' in retry
    assert [line["action"] for line in here.lines] == [expected]
    assert turn.note["played"] == "bot" and turn.note["fallback"] is True
    assert counts(agent) == expect(
        turns=1,
        calls=2,
        promptTokens=21,
        completionTokens=2,
        parseFailures=2,
        retries=1,
        fallbacks=1,
    )
    chat.add(Reply('{"actions": [{"do": "wait"}]}', 1, 1))
    agent.turn(here)
    assert 'not used (the reply is not usable: the reply has no "actions" list (it has ' in (
        user_message(chat.requests[2])
    )
    assert Match.replay(COGCRAWL, 7, None, here.match.log).fingerprint() == (
        here.match.fingerprint()
    )


def test_a_fallback_asked_for_is_the_delver_still(chat):
    chat.add(Reply("no", 1, 1), Reply("no", 1, 1))
    agent, here = agent_for(COGCRAWL, chat, fallback="random"), table()
    assert agent.turn(here).note["played"] == "bot"


def test_failed_replies_cost_no_step(chat):
    # every turn: one unreadable reply, then a good one; six game turns are six replies
    good = Reply('{"actions": [{"do": "search"}]}', 1, 1)
    chat.add(*[Reply("{oops", 1, 1), good] * 6)
    agent, here = agent_for(COGCRAWL, chat), table(limit=6)
    while not here.over:
        agent.turn(here)
    assert len(here.lines) == 6 and here.view()["observation"]["turn"] == 6
    stats = counts(agent)
    assert (stats["modelTurns"], stats["parseFailures"], stats["fallbacks"]) == (6, 6, 0)
