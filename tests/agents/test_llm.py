"""The llm agent against a real OpenAI-compatible server on 127.0.0.1, through the
official ``openai`` client: the counts of retries, fallbacks and tokens, exactly."""

from __future__ import annotations

import json

import pytest

from playbench.agents import AgentError, LlmAgent, LlmSettings
from playbench.agents.llm import check_endpoint
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import MODEL, Reply, Status, user_message
from tests.agents.conftest import KEY


def reply(*commands, say="", notes="", tokens=(100, 10)):
    text = json.dumps({"commands": list(commands), "say": say, "notes": notes})
    return Reply(text, *tokens)


def agent_for(game, chat, timeout=5.0):
    agent = LlmAgent(game, LlmSettings(model=MODEL, base_url=chat.base_url, timeout=timeout))
    agent.reset(7)
    return agent


def table_for(game):
    return LocalTable(Match.start(game, 7), 10_000)


def counts(agent):
    stats = agent.stats()
    del stats["seconds"]
    return stats


def test_a_valid_reply_plays_its_commands_and_counts_the_call(tally, chat):
    chat.add(reply("step 2", "step 1", say="off we go", notes="n1", tokens=(120, 30)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert [result.ok for result in turn.results] == [True, True]
    assert table.match.state.pos == 3
    assert turn.note["say"] == "off we go" and "fallback" not in turn.note
    assert [call["outcome"] for call in turn.note["calls"]] == ["parsed"]
    assert counts(agent) == {
        "calls": 1,
        "promptTokens": 120,
        "completionTokens": 30,
        "parseFailures": 0,
        "retries": 0,
        "fallbacks": 0,
        "errors": 0,
    }
    (request,) = chat.requests
    assert request["model"] == MODEL and request["temperature"] == 0.0
    assert request["max_tokens"] == 1024
    assert request["messages"][0]["role"] == "system"
    assert "Walk a token to the goal." in request["messages"][0]["content"]
    prompt = user_message(request)
    assert "Board:\n@........" in prompt and 'Legal commands now: ["step 1", "step 2"]' in prompt
    assert chat.authorizations == [f"Bearer {KEY}"]


def test_notes_and_the_last_result_are_echoed_next_turn(tally, chat):
    chat.add(reply("step 1", "step 9", "step 1", notes="remember me"), reply("step 1"))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    agent.turn(table)
    prompt = user_message(chat.requests[1])
    assert 'Your notes: "remember me"' in prompt
    assert "'step 1' applied (+" in prompt
    assert "'step 9' refused: unknown command 'step 9'" in prompt
    assert "dropped after the refusal: 'step 1'" in prompt
    assert table.match.state.pos == 2


def test_prose_is_retried_once_with_the_reason(tally, chat):
    chat.add(Reply("I will step twice.", 50, 5), reply("step 2", tokens=(60, 6)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert table.match.state.pos == 2
    assert turn.note["retried"] is True and turn.note["replies"][0] == "I will step twice."
    assert counts(agent) == {
        "calls": 2,
        "promptTokens": 110,
        "completionTokens": 11,
        "parseFailures": 1,
        "retries": 1,
        "fallbacks": 0,
        "errors": 0,
    }
    retry = chat.requests[1]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "I will step twice."
    assert "the reply must begin with '{'" in retry[3]["content"]


def test_fenced_json_twice_falls_back_to_the_bot(tally, chat):
    fenced = '```json\n{"commands": ["step 2"]}\n```'
    chat.add(Reply(fenced, 40, 4), Reply(fenced, 41, 4))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert turn.note["fallback"] is True and turn.note["retried"] is True
    assert table.match.state.pos == 1  # the bot's first legal step
    assert counts(agent) == {
        "calls": 2,
        "promptTokens": 81,
        "completionTokens": 8,
        "parseFailures": 2,
        "retries": 1,
        "fallbacks": 1,
        "errors": 0,
    }
    chat.add(reply("step 1"))
    agent.turn(table)
    assert "not used (the reply does not parse" in user_message(chat.requests[2])
    assert "the bot played 'step 1' instead" in user_message(chat.requests[2])


def test_an_over_long_reply_is_cut_at_4096_bytes_and_fails_to_parse(tally, chat):
    long = json.dumps({"commands": ["step 1"], "say": "x" * 5000})
    chat.add(Reply(long, 10, 2000), reply("step 1", tokens=(10, 5)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert len(turn.note["replies"][0].encode()) == 4096
    assert "must end with '}'" in chat.requests[1]["messages"][3]["content"]
    assert counts(agent)["parseFailures"] == 1 and counts(agent)["completionTokens"] == 2005
    assert table.match.state.pos == 1


def test_a_refused_first_command_is_retried_then_falls_back(tally, chat):
    chat.add(reply("step 3"), reply("leap"))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert [call["outcome"] for call in turn.note["calls"]] == ["refused", "refused"]
    assert "the first command 'step 3' was refused" in chat.requests[1]["messages"][3]["content"]
    assert turn.note["fallback"] is True and table.match.state.pos == 1
    assert counts(agent) == {
        "calls": 2,
        "promptTokens": 200,
        "completionTokens": 20,
        "parseFailures": 0,
        "retries": 1,
        "fallbacks": 1,
        "errors": 0,
    }


def test_a_reply_without_commands_is_refused(tally, chat):
    chat.add(Reply('{"say": "thinking"}', 1, 1), reply("step 2", tokens=(1, 1)))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    assert "the reply has no commands" in chat.requests[1]["messages"][3]["content"]
    assert table.match.state.pos == 2 and counts(agent)["retries"] == 1


def test_a_timeout_falls_back_at_once_without_a_retry(tally, chat):
    chat.add(Reply(json.dumps({"commands": ["step 2"]}), 5, 5, delay=3.0))
    agent, table = agent_for(tally, chat, timeout=0.3), table_for(tally)
    turn = agent.turn(table)
    assert [call["outcome"] for call in turn.note["calls"]] == ["timeout"]
    assert turn.note["fallback"] is True and table.match.state.pos == 1
    assert counts(agent) == {
        "calls": 1,
        "promptTokens": 0,
        "completionTokens": 0,
        "parseFailures": 0,
        "retries": 0,
        "fallbacks": 1,
        "errors": 1,
    }
    assert len(chat.requests) == 1


def test_an_http_500_falls_back_and_is_not_retried_by_the_client(tally, chat):
    chat.add(Status(500, "upstream exploded"), reply("step 2", tokens=(7, 3)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert turn.note["calls"][0]["outcome"] == "error"
    assert "upstream exploded" in turn.note["calls"][0]["error"]
    assert len(chat.requests) == 1 and table.match.state.pos == 1
    agent.turn(table)
    assert table.match.state.pos == 3
    assert counts(agent) == {
        "calls": 2,
        "promptTokens": 7,
        "completionTokens": 3,
        "parseFailures": 0,
        "retries": 0,
        "fallbacks": 1,
        "errors": 1,
    }


def test_a_retry_that_errors_falls_back(tally, chat):
    chat.add(Reply("nope", 3, 1), Status(503))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert [call["outcome"] for call in turn.note["calls"]] == ["parse_failure", "error"]
    stats = counts(agent)
    assert (stats["retries"], stats["fallbacks"], stats["errors"]) == (1, 1, 1)


def test_over_cap_and_non_string_commands_are_dropped_and_reported(tally, chat):
    chat.add(Reply(json.dumps({"commands": ["step 1", 7, *["step 1"] * 10]}), 1, 1))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    # ten entries are read: one is no text, so nine steps are tried; the goal (8) ends it
    assert len(turn.results) == 8 and table.match.over
    assert agent.report.endswith(
        "dropped after the game ended: 'step 1'; entry 1 dropped: a command must be a "
        "string; 2 command(s) past the cap of 10 dropped unread"
    )


def test_the_review_asks_the_model(tally, chat):
    chat.add(Reply('{"rating": 8, "review": "tidy"}', 9, 9), Reply("meh", 1, 1))
    agent = agent_for(tally, chat)
    assert agent.review({"score": 4}) == (8, "tidy")
    assert agent.review({"score": 4}) == (5, "")
    assert "final score 4" in user_message(chat.requests[0])


def test_a_missing_key_is_a_clear_error(tally, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AgentError, match="no API key: set OPENAI_API_KEY"):
        LlmAgent(tally, LlmSettings(model=MODEL))


def test_the_key_variable_can_be_named(tally, chat, monkeypatch):
    monkeypatch.setenv("MY_KEY", "other")
    settings = LlmSettings(model=MODEL, base_url=chat.base_url, api_key_env="MY_KEY")
    check_endpoint(settings)


def test_an_unreachable_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings = LlmSettings(model=MODEL, base_url="http://127.0.0.1:9/v1", timeout=2)
    with pytest.raises(AgentError, match=r"cannot reach the endpoint http://127.0.0.1:9/v1"):
        check_endpoint(settings)
