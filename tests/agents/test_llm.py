"""The llm agent against a real OpenAI-compatible server on 127.0.0.1, through the
official ``openai`` client: who played each turn, the counts of retries, repairs,
fallbacks, errors and tokens, exactly."""

from __future__ import annotations

import dataclasses
import json

import pytest

from playbench.agents import AgentError, LlmAgent, LlmSettings
from playbench.agents.llm import Budget, BudgetSpent, EndpointDown, SeatCounts, check_endpoint
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import MODEL, Reply, Status, legal_commands, user_message
from tests.agents.conftest import KEY


def reply(*commands, say="", notes="", tokens=(100, 10)):
    text = json.dumps({"commands": list(commands), "say": say, "notes": notes})
    return Reply(text, *tokens)


def agent_for(game, chat, **settings):
    settings.setdefault("timeout", 5.0)
    agent = LlmAgent(game, LlmSettings(model=MODEL, base_url=chat.base_url, **settings))
    agent.reset(7)
    return agent


def table_for(game):
    return LocalTable(Match.start(game, 7), 10_000)


#: the counts that are timings (a call's own seconds, its queueing), not events
TIMINGS = ("seconds", "queueSeconds")


def counts(agent):
    stats = agent.stats()
    for name in TIMINGS:
        del stats[name]
    return stats


def expect(**figures):
    """Every count of an episode: those given, zero elsewhere."""
    data = {name: 0 for name in SeatCounts.__dataclass_fields__ if name not in TIMINGS}
    data.update(figures)
    return data


def test_a_valid_reply_plays_its_commands_and_counts_the_call(tally, chat):
    chat.add(reply("step 2", "step 1", say="off we go", notes="n1", tokens=(120, 30)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert [result.ok for result in turn.results] == [True, True]
    assert table.match.state.pos == 3
    assert turn.note["say"] == "off we go" and turn.note["played"] == "model"
    assert "fallback" not in turn.note and "repaired" not in turn.note
    assert [call["outcome"] for call in turn.note["calls"]] == ["parsed"]
    assert counts(agent) == expect(
        turns=1, modelTurns=1, calls=1, promptTokens=120, completionTokens=30
    )
    (request,) = chat.requests
    assert request["model"] == MODEL and request["temperature"] == 0.0
    assert request["max_tokens"] == 512
    system = request["messages"][0]
    assert system["role"] == "system" and "Walk a token to the goal." in system["content"]
    assert (
        'Example reply:\n{"commands": ["step 2"], "notes": "what I plan next"}'
        in (system["content"])
    )
    prompt = user_message(request)
    assert "Turn 1. Score 0.\n@........\n" in prompt
    assert 'Legal moves now: ["step 1","step 2"]' in prompt
    assert chat.authorizations == [f"Bearer {KEY}"]


def test_json_schema_asks_for_the_legal_commands_as_an_enum(tally, chat):
    chat.add(reply("step 1"))
    agent_for(tally, chat).turn(table_for(tally))
    assert chat.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "seat_reply",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "commands": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["step 1", "step 2"]},
                        "minItems": 1,
                        "maxItems": 10,
                    },
                    "notes": {"type": "string"},
                },
                "required": ["commands", "notes"],
                "additionalProperties": False,
            },
        },
    }


@pytest.mark.parametrize(
    ("reply_format", "expected"), [("json_object", {"type": "json_object"}), ("text", None)]
)
def test_the_other_reply_formats(tally, chat, reply_format, expected):
    chat.add(reply("step 1"))
    agent_for(tally, chat, reply_format=reply_format).turn(table_for(tally))
    assert chat.requests[0].get("response_format") == expected


def test_notes_and_the_last_result_are_echoed_next_turn(tally, chat):
    chat.add(reply("step 1", "step 9", "step 1", notes="remember me"), reply("step 1"))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    agent.turn(table)
    prompt = user_message(chat.requests[1])
    assert 'Your notes: "remember me"' in prompt
    assert (
        '- turn 1: you played ["step 1","step 9"]: +6 [{"type":"moved","to":1}]; '
        "'step 9' refused: unknown command 'step 9': try 'step 1', 'step 2' or 'fumble'; "
        "dropped after the refusal: 'step 1'"
    ) in prompt
    assert table.match.state.pos == 2


def test_memory_keeps_the_last_n_turns(tally, chat):
    chat.add(*[reply("step 1")] * 4)
    agent, table = agent_for(tally, chat, memory=2), table_for(tally)
    for _ in range(4):
        agent.turn(table)
    prompt = user_message(chat.requests[3])
    assert "- turn 1:" not in prompt
    assert "- turn 2: you played" in prompt and "- turn 3: you played" in prompt
    none = agent_for(tally, chat, memory=0)
    chat.add(reply("step 1"), reply("step 1"))
    table = table_for(tally)
    none.turn(table)
    none.turn(table)
    assert "What happened" not in user_message(chat.requests[5])


def test_reflect_rewrites_the_notes_every_k_turns(tally, chat):
    chat.add(
        reply("step 1", notes="first"),
        reply("step 1", notes="second"),
        Reply('{"notes": "rewritten"}', 5, 5),
        reply("step 1", tokens=(1, 1)),
    )
    agent, table = agent_for(tally, chat, reflect=2), table_for(tally)
    for _ in range(3):
        agent.turn(table)
    reflection = chat.requests[2]
    assert "Time to take stock." in user_message(reflection)
    assert "- turn 1: you played" in user_message(reflection)
    assert 'Your notes: "second"' in user_message(reflection)
    assert reflection["response_format"]["json_schema"]["name"] == "notes"
    assert 'Your notes: "rewritten"' in user_message(chat.requests[3])
    assert counts(agent)["reflections"] == 1 and counts(agent)["calls"] == 4


def test_a_retry_says_why_and_lists_the_legal_moves_again(tally, chat):
    chat.add(reply("step 3", tokens=(5, 1)), reply("step 2", tokens=(5, 1)))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    asked = chat.requests[1]["messages"]
    assert asked[2]["content"] == chat.requests[1]["messages"][2]["content"]
    lines = asked[3]["content"].splitlines()
    legal = legal_commands(chat.requests[0])
    assert lines[0].startswith("That reply was not used: the first move 'step 3' was refused")
    assert lines[1] == "Pick from these legal moves: " + json.dumps(legal, separators=(",", ":"))
    assert lines[2].startswith("This is your one retry for this turn")


def test_a_turn_the_budget_cuts_is_no_turn_and_its_call_is_kept(tally, chat):
    chat.add(reply("step 3", tokens=(5, 1)))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.seat.budget = Budget(max_turns=1)
    with pytest.raises(BudgetSpent) as cut:
        agent.turn(table)
    # the refused reply used the one call: the retry had none, and nobody played the turn
    assert counts(agent) == expect(
        calls=1, promptTokens=5, completionTokens=1, refused=1, retries=1
    )
    note = cut.value.turn.note
    assert note["budget"] == "maxTurns" and "played" not in note
    assert [call["outcome"] for call in note["calls"]] == ["refused"]
    assert len(chat.requests) == 1 and table.lines == []


def test_prose_is_retried_once_with_the_reason(tally, chat):
    chat.add(Reply("I will step twice.", 50, 5), reply("step 2", tokens=(60, 6)))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert table.match.state.pos == 2
    assert turn.note["retried"] is True and turn.note["replies"][0] == "I will step twice."
    assert turn.note["played"] == "model"
    assert counts(agent) == expect(
        turns=1,
        modelTurns=1,
        calls=2,
        promptTokens=110,
        completionTokens=11,
        parseFailures=1,
        retries=1,
    )
    retry = chat.requests[1]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "I will step twice."
    assert "the reply must begin with '{'" in retry[3]["content"]


@pytest.mark.parametrize(
    "wrapped",
    [
        '```json\n{"commands": ["step 2"]}\n```',
        'Here is my move: {"commands": ["step 2"], "notes": "x"} Good luck!',
        '\ufeff```\n{"commands": ["step 2"]}\n```\n',
        '{ "commands": ["step 2"],"notes": "[1,2] }\nYour response:\n{"}',
        '{"commands": ["step 2"], "notes": "down the \\"stairs\\" at 20,5}\nYou are a',
    ],
)
def test_whitespace_fences_prose_and_raw_line_breaks_are_repaired(tally, chat, wrapped):
    chat.add(Reply(wrapped, 40, 4))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert table.match.state.pos == 2
    assert turn.note["repaired"] is True and turn.note["played"] == "model"
    assert counts(agent) == expect(
        turns=1, modelTurns=1, calls=1, promptTokens=40, completionTokens=4, repaired=1
    )


@pytest.mark.parametrize(
    "spaced", ['{"commands": ["step 2"]} ', ' \n{"commands": ["step 2"]}\r\n\t']
)
def test_json_whitespace_around_a_reply_is_no_repair(tally, chat, spaced):
    chat.add(Reply(spaced, 40, 4))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert table.match.state.pos == 2
    assert "repaired" not in turn.note and turn.note["played"] == "model"
    assert counts(agent) == expect(
        turns=1, modelTurns=1, calls=1, promptTokens=40, completionTokens=4, repaired=0
    )


def test_an_over_long_reply_is_read_whole_then_cut_to_4096_bytes_and_played(tally, chat):
    long = json.dumps({"commands": ["step 1"], "say": "x" * 5000, "notes": "keep"})
    assert len(long.encode()) > 4096
    chat.add(Reply(long, 10, 2000))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert turn.note["played"] == "model" and turn.note["cut"] is True
    assert len(turn.note["say"]) == 140
    assert counts(agent)["cut"] == 1 and counts(agent)["parseFailures"] == 0
    assert agent.seat.notes == "keep"
    assert table.match.state.pos == 1


def test_an_over_long_reply_that_does_not_read_names_its_length(tally, chat):
    broken = '{"commands": ["step 1"], "say": "' + "x" * 5000 + '" "oops"}'
    chat.add(Reply(broken, 10, 2000), reply("step 1", tokens=(10, 5)))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    retry = chat.requests[1]["messages"][3]["content"]
    assert f"(the reply is {len(broken)} bytes; at most 4096)" in retry
    assert "has no" not in retry
    assert counts(agent)["parseFailures"] == 1 and counts(agent)["completionTokens"] == 2005
    assert table.match.state.pos == 1


def test_a_refused_first_command_is_retried_then_the_bot_plays(tally, chat):
    chat.add(reply("step 3"), reply("leap"))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert [call["outcome"] for call in turn.note["calls"]] == ["refused", "refused"]
    assert "the first move 'step 3' was refused" in chat.requests[1]["messages"][3]["content"]
    assert turn.note["fallback"] is True and turn.note["played"] == "bot"
    assert table.match.state.pos == 1
    assert counts(agent) == expect(
        turns=1,
        calls=2,
        promptTokens=200,
        completionTokens=20,
        refused=2,
        retries=1,
        fallbacks=1,
    )
    chat.add(reply("step 1"))
    agent.turn(table)
    assert "the bot played 'step 1'" in user_message(chat.requests[2])


def test_a_reply_under_another_key_says_which_key_it_needs(tally, chat):
    chat.add(Reply('{"actions": ["step 1"]}', 1, 1), reply("step 2", tokens=(1, 1)))
    agent, table = agent_for(tally, chat), table_for(tally)
    agent.turn(table)
    assert (
        'the reply is not usable: the reply has no "commands" list (it has "actions"); '
        'write it like {"commands": ["step 2"], "notes": "what I plan next"}'
    ) in chat.requests[1]["messages"][3]["content"]
    assert table.match.state.pos == 2 and counts(agent)["parseFailures"] == 1


@pytest.mark.parametrize(("fallback", "position"), [("bot", 1), ("random", 2), ("wait", 0)])
def test_the_fallback_is_chosen(tally, chat, fallback, position, monkeypatch):
    monkeypatch.setattr(type(tally.seat_guide()), "wait_move", "fumble")
    chat.add(Reply("no", 1, 1), Reply("no", 1, 1))
    agent, table = agent_for(tally, chat, fallback=fallback), table_for(tally)
    turn = agent.turn(table)
    assert turn.note["played"] == fallback and table.match.state.pos == position
    assert len(table.lines) == 1


def test_a_wait_fallback_needs_a_game_that_waits(tally, chat):
    with pytest.raises(AgentError, match="Tally has no move that waits: use --fallback bot"):
        agent_for(tally, chat, fallback="wait")


def test_a_timeout_after_the_retries_stops_the_episode_and_is_no_turn(tally, chat):
    late = Reply(json.dumps({"commands": ["step 2"]}), 5, 5, delay=3.0)
    chat.add(late, late)
    agent, table = agent_for(tally, chat, timeout=0.3, retries=1), table_for(tally)
    with pytest.raises(EndpointDown, match=r"timed out after 0.3 s.*run again to resume"):
        agent.turn(table)
    # nothing played the turn, no call of the budget was spent, the outage is counted
    assert table.match.state.pos == 0 and table.lines == []
    assert counts(agent) == expect(errors=1, transientRetries=1)
    assert len(chat.requests) == 2


def test_a_429_waits_as_retry_after_says_and_the_model_plays(tally, chat):
    chat.add(Status(429, "slow down", headers=(("Retry-After", "1"),)), reply("step 2"))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    assert turn.note["played"] == "model" and table.match.state.pos == 2
    assert counts(agent) == expect(
        turns=1, modelTurns=1, calls=1, promptTokens=100, completionTokens=10, transientRetries=1
    )
    # the client waited at least the second the server asked for
    assert chat.arrivals[1] - chat.arrivals[0] >= 1.0


def test_a_5xx_that_persists_is_an_error_never_a_fallback_turn(tally, chat):
    chat.add(Status(500, "upstream exploded"), Status(503), reply("step 2", tokens=(7, 3)))
    agent, table = agent_for(tally, chat, retries=1), table_for(tally)
    agent.seat.budget = Budget(max_turns=1)
    with pytest.raises(EndpointDown, match="InternalServerError"):
        agent.turn(table)
    assert len(chat.requests) == 2 and table.match.state.pos == 0
    # the failed call spent none of the one call allowed: the model plays the turn
    turn = agent.turn(table)
    assert turn.note["played"] == "model" and table.match.state.pos == 2
    assert counts(agent) == expect(
        turns=1,
        modelTurns=1,
        calls=1,
        promptTokens=7,
        completionTokens=3,
        errors=1,
        transientRetries=1,
    )


def test_a_retry_that_errors_stops_the_turn_unplayed(tally, chat):
    chat.add(Reply("nope", 3, 1), Status(400, "bad request"))
    agent, table = agent_for(tally, chat), table_for(tally)
    with pytest.raises(EndpointDown, match="BadRequestError"):
        agent.turn(table)
    stats = counts(agent)
    assert (stats["turns"], stats["calls"], stats["retries"]) == (0, 1, 1)
    assert (stats["fallbacks"], stats["errors"], stats["parseFailures"]) == (0, 1, 1)
    assert table.lines == []


def test_over_cap_and_non_string_commands_are_dropped_and_reported(tally, chat):
    chat.add(Reply(json.dumps({"commands": ["step 1", 7, *["step 1"] * 10]}), 1, 1))
    chat.add(reply("step 1"))
    agent, table = agent_for(tally, chat), table_for(tally)
    turn = agent.turn(table)
    # ten entries are read: one is no text, so nine steps are tried; the goal (8) ends it
    assert len(turn.results) == 8 and table.match.over
    assert user_message(chat.requests[0]) != ""
    assert agent.seat.history[-1].endswith(
        "dropped after the game ended: 'step 1'; entry 1 dropped: not a text; "
        "2 move(s) past the cap of 10 dropped unread"
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
    assert chat.pings[0]["max_tokens"] == 1 and chat.pings[0]["model"] == MODEL


def test_an_unreachable_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings = LlmSettings(model=MODEL, base_url="http://127.0.0.1:9/v1", timeout=2, retries=0)
    with pytest.raises(AgentError, match=r"cannot reach the endpoint http://127.0.0.1:9/v1"):
        check_endpoint(settings)


def test_a_model_the_endpoint_does_not_list_is_refused_before_any_call(chat):
    with pytest.raises(AgentError) as caught:
        check_endpoint(LlmSettings(model="gpt-4o-mini", base_url=chat.base_url))
    assert str(caught.value) == (
        f"the endpoint {chat.base_url} does not serve the model 'gpt-4o-mini': it serves "
        f"{MODEL} (pass one with --model)"
    )
    assert chat.pings == [] and chat.requests == []


def test_an_unknown_model_names_the_fix(chat):
    chat.ping = Status(
        404,
        "The model `nope` does not exist",
        error_code="model_not_found",
        error_type="invalid_request_error",
    )
    chat.models = []
    with pytest.raises(AgentError) as caught:
        check_endpoint(LlmSettings(model="nope", base_url=chat.base_url))
    assert str(caught.value) == (
        f"the endpoint {chat.base_url} has no model 'nope' (404 model_not_found): pass "
        "--model with one it serves"
    )


def test_a_base_url_without_v1_names_the_fix(chat):
    base = chat.base_url.removesuffix("/v1")
    with pytest.raises(AgentError) as caught:
        check_endpoint(LlmSettings(model=MODEL, base_url=base))
    assert str(caught.value) == (
        f"the endpoint answered 404 for {base}/chat/completions: check --base-url "
        "(OpenAI-compatible servers answer under /v1, e.g. http://127.0.0.1:8080/v1)"
    )


def test_a_busy_endpoint_is_waited_for(chat):
    busy = iter([Status(503, "loading", headers=(("Retry-After", "1"),))] * 2)
    chat.ping = lambda body: next(busy, Reply("OK", 1, 1))
    check_endpoint(LlmSettings(model=MODEL, base_url=chat.base_url, retries=2))
    assert len(chat.pings) == 3


def test_an_endpoint_busy_through_the_retries_says_so(chat):
    chat.ping = Status(429, "busy", headers=(("Retry-After", "1"),))
    with pytest.raises(AgentError, match=r"stayed busy \(429\) through 1 retries"):
        check_endpoint(LlmSettings(model=MODEL, base_url=chat.base_url, retries=1))
    assert len(chat.pings) == 2


def test_a_refused_key_names_the_variable(chat):
    chat.ping = Status(401, "bad key", error_type="invalid_request_error")
    with pytest.raises(AgentError, match=r"refused the API key \(401\): set OPENAI_API_KEY"):
        check_endpoint(LlmSettings(model=MODEL, base_url=chat.base_url))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "localhost:8080/v1"}, "--base-url 'localhost:8080/v1' is no http(s) URL"),
        ({"max_tokens": -5}, "--max-tokens must be at least 1, got -5"),
        ({"timeout": 0}, "--timeout must be more than 0 seconds, got 0"),
        ({"temperature": -1}, "--temperature must be between 0 and 2, got -1"),
        ({"retries": 11}, "--retries must be 0 to 10, got 11"),
        ({"reply_format": "yaml"}, "--reply-format must be one of text, json_object, json_schema"),
        ({"fallback": "human"}, "--fallback must be one of bot, random, wait, got 'human'"),
        ({"memory": -1}, "--memory must be 0 to 50 turns, got -1"),
        ({"reflect": -2}, "--reflect must be 0 (off) or more turns, got -2"),
    ],
)
def test_bad_settings_are_refused_before_any_call(chat, settings, message):
    with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_endpoint(LlmSettings(model=MODEL, **settings))
    assert chat.pings == []


def test_a_server_that_answers_only_from_the_enum_plays_every_turn(tally, chat):
    def from_the_enum(body):
        schema = body["response_format"]["json_schema"]["schema"]
        enum = schema["properties"]["commands"]["items"]["enum"]
        assert enum == legal_commands(body)
        return Reply(json.dumps({"commands": enum[-1:], "notes": ""}), 1, 1)

    chat.add(*[from_the_enum] * 8)
    agent, table = agent_for(tally, chat), table_for(tally)
    while not table.over:
        agent.turn(table)
    assert counts(agent)["modelTurns"] == counts(agent)["turns"] == 4
    assert counts(agent)["parseFailures"] == 0


def test_vision_sends_the_board_s_picture_as_a_decodable_png(chat):
    import base64
    import io

    from PIL import Image

    from playbench.core import get_game
    from playbench.core.learning import learning_of
    from playbench.gym.pictures import Painter

    game = get_game("delvewick")
    chat.add(reply("wait"))
    agent, table = agent_for(game, chat, vision=True), table_for(game)
    expected = Painter(game, learning_of(game), None).frame(table.match.state)
    agent.turn(table)
    content = chat.requests[0]["messages"][1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]
    assert content[0]["text"].startswith("Turn 1. Score 0.")
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    data = base64.b64decode(url.removeprefix("data:image/png;base64,"))
    with Image.open(io.BytesIO(data)) as picture:
        assert picture.format == "PNG" and picture.mode == "RGB"
        assert picture.size == (expected.shape[1], expected.shape[0])
        assert picture.tobytes() == expected.tobytes()


def test_vision_is_refused_where_there_is_no_state_to_draw(tally):
    from playbench.agents.picture import check_vision
    from playbench.core import get_game

    with pytest.raises(AgentError, match="only an in-process game has"):
        check_vision(get_game("gem-swap"), remote=True)
    with pytest.raises(AgentError, match="Tally has no picture"):
        check_vision(tally, remote=False)


#: how llama-cpp-python's server 0.3 refuses OpenAI's form: its validation error as a 500
LLAMA_CPP_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (422, "response_format.type: input should be 'text' or 'json_object'"),
        (500, LLAMA_CPP_REFUSAL),
    ],
)
def test_a_server_taking_the_schema_inside_json_object_is_found_and_used(
    tally, chat, status, message
):
    """llama-cpp-python's server: ``{"type": "json_object", "schema": ...}`` only."""

    def llama_cpp_python(body):
        fmt = body.get("response_format") or {}
        if fmt.get("type") != "json_object" or "schema" not in fmt:
            return Status(status, message)
        enum = fmt["schema"]["properties"]["commands"]["items"]["enum"]
        return Reply(json.dumps({"commands": enum[:1], "notes": ""}), 1, 1)

    chat.ping = llama_cpp_python
    settings = LlmSettings(model=MODEL, base_url=chat.base_url)
    settings = dataclasses.replace(settings, retries=0)
    found = check_endpoint(settings, tally.seat_guide(), Match.start(tally, 7).view())
    assert found.schema_in == "json_object" and len(chat.pings) == 2
    assert found.harness(tally.seat_guide())["schemaIn"] == "json_object"
    chat.add(llama_cpp_python)
    agent = LlmAgent(tally, found)
    agent.reset(7)
    table = table_for(tally)
    assert agent.turn(table).note["played"] == "model" and table.match.state.pos == 1


def test_a_server_refusing_every_schema_form_names_the_fix(tally, chat):
    chat.ping = Status(400, "response_format is not supported")
    settings = LlmSettings(model=MODEL, base_url=chat.base_url)
    with pytest.raises(AgentError) as caught:
        check_endpoint(settings, tally.seat_guide(), Match.start(tally, 7).view())
    assert str(caught.value) == (
        f"the endpoint {chat.base_url} refused the request (400: response_format is not "
        "supported); if it cannot take --reply-format json_schema, use json_object"
    )
