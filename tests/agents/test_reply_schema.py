"""The reply's reading and its ``json_schema`` format: the schema keeps to OpenAI's strict
subset for every game and admits exactly the turn's legal moves; repairs are counted."""

from __future__ import annotations

from types import SimpleNamespace

import jsonschema
import pytest

from playbench.agents.bot import BotAgent
from playbench.agents.llm.prompts import NOTES_SCHEMA, REVIEW_SCHEMA, response_format
from playbench.agents.llm.reply import ReplyUnusable, read_reply, reply_moves
from playbench.core import all_games, get_game
from playbench.core.match import Match
from playbench.core.seat import ReplyUnreadable

SETTINGS = SimpleNamespace(reply_format="json_schema", schema_in="json_schema")
#: what OpenAI's strict mode reads, by the schema's type (its "Supported schemas" list)
ALLOWED = {
    "object": {"type", "properties", "required", "additionalProperties"},
    "array": {"type", "items", "minItems", "maxItems"},
    "string": {"type", "enum", "pattern", "format"},
    "integer": {"type", "enum", "minimum", "maximum", "multipleOf"},
    "number": {"type", "enum", "minimum", "maximum", "multipleOf"},
    "boolean": {"type", "enum"},
}


def strict_problems(schema, where="$"):
    """Why OpenAI's strict mode would refuse this schema (empty: it takes it)."""
    if set(schema) == {"anyOf"}:
        return [
            p
            for i, branch in enumerate(schema["anyOf"])
            for p in strict_problems(branch, f"{where}.anyOf[{i}]")
        ]
    kind = schema.get("type")
    if kind not in ALLOWED:
        return [f"{where}: no plain type ({kind!r})"]
    problems = [
        f"{where}: {key} is not in the strict subset" for key in set(schema) - ALLOWED[kind]
    ]
    for value in schema.get("enum", []):
        if isinstance(value, (dict, list)):
            problems.append(f"{where}: enum value {value!r} is not a plain value")
    if kind == "object":
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if sorted(schema.get("required", [])) != sorted(schema["properties"]):
            problems.append(f"{where}: not every property is required")
        for name, sub in schema["properties"].items():
            problems += strict_problems(sub, f"{where}.{name}")
    if kind == "array":
        problems += strict_problems(schema["items"], f"{where}[]")
    return problems


def test_the_checker_finds_what_strict_mode_refuses():
    loose = {
        "type": "object",
        "properties": {"a": {"type": "string", "maxLength": 3}, "b": {"enum": [{"x": 1}]}},
        "required": ["a"],
    }
    assert strict_problems(loose) == [
        "$: additionalProperties is not false",
        "$: not every property is required",
        "$.a: maxLength is not in the strict subset",
        "$.b: no plain type (None)",
    ]


@pytest.mark.parametrize("schema", [NOTES_SCHEMA, REVIEW_SCHEMA], ids=["notes", "review"])
def test_the_reflection_and_review_schemas_are_strict(schema):
    assert strict_problems(schema) == []


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.slug)
def test_every_turn_s_schema_is_strict_and_admits_exactly_the_legal_moves(game):
    guide = game.seat_guide()
    match, bot = Match.start(game, 11), BotAgent(game)
    bot.reset(11)
    for _ in range(25):
        if match.over:
            break
        view = match.view()
        moves = guide.moves(view)
        schema = response_format(SETTINGS, guide, moves)["json_schema"]["schema"]
        assert strict_problems(schema) == []
        key = guide.reply_key
        for move in moves:
            jsonschema.validate({key: [move], "notes": ""}, schema)
        stranger = {"do": "fly"} if isinstance(moves[0], dict) else "fly away"
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({key: [stranger], "notes": ""}, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({key: [], "notes": ""}, schema)
        match.play(bot.act(view))


def test_a_line_break_inside_notes_is_escaped_and_the_notes_kept():
    reading = read_reply('{ "commands": ["start"],"notes": "[1,2] }\nYour response:\n{"}')
    assert reading.repaired is True
    assert reading.reply == {"commands": ["start"], "notes": "[1,2] }\nYour response:\n{"}


@pytest.mark.parametrize(
    ("cut", "reply"),
    [
        (
            '{"actions": [{"do": "search"}], "notes": "stairs at 2',
            {"actions": [{"do": "search"}], "notes": "stairs at 2"},
        ),
        (
            '{"actions": [{"do": "search"}], "notes": "a \\',
            {"actions": [{"do": "search"}], "notes": "a "},
        ),
        (
            '{"actions": [{"do": "search"}, {"do": "wait"',
            {"actions": [{"do": "search"}, {"do": "wait"}]},
        ),
        ('{"notes": "[{", "actions": ["x"', {"notes": "[{", "actions": ["x"]}),
        (
            '{ "actions":[{"do":"search"}] ,"notes":"at 20,5}\nYou will die if you do not',
            {"actions": [{"do": "search"}], "notes": "at 20,5}\nYou will die if you do not"},
        ),
    ],
)
def test_a_reply_the_token_limit_cut_off_is_closed(cut, reply):
    reading = read_reply(cut)
    assert reading.repaired is True and reading.reply == reply


@pytest.mark.parametrize(
    "broken", ['{"actions": [{"do": "search"}], "notes":', '{"actions": [{"do"']
)
def test_a_cut_that_leaves_a_key_without_its_value_still_fails(broken):
    guide = get_game("cogcrawl").seat_guide()
    with pytest.raises((ReplyUnreadable, ReplyUnusable)):
        reply_moves(read_reply(broken).reply, guide)
