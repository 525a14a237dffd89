"""What a language-model seat is asked: the system prompt (the game's play rules, the
reply's form and an example, once), each turn's message (the board, the notes, what
happened, the legal moves in the reply's exact form), the retry, the reflection and the
review, and the request's reply format.

Every game is asked the same way; what differs comes from the game's
:class:`~playbench.core.seat.SeatGuide`. With ``json_schema`` the reply's JSON Schema lists
the moves a plan may hold: the legal moves now, and every move of the game's grammar that
can be legal later in the turn (:meth:`~playbench.core.seat.SeatGuide.plan_moves`), so a
plan can hold a move that only its earlier moves make legal.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from playbench.agents.llm.reply import entry_kind
from playbench.core.game import JSON
from playbench.core.seat import MAX_MOVES, MAX_NOTES, SeatGuide

#: how the request asks for the reply: free text, any JSON object, or the reply's JSON
#: Schema with the turn's moves as an enum (OpenAI structured outputs; vLLM and
#: llama.cpp servers take the same field)
TEXT = "text"
JSON_OBJECT = "json_object"
JSON_SCHEMA = "json_schema"
REPLY_FORMATS = (TEXT, JSON_OBJECT, JSON_SCHEMA)
#: the name a ``json_schema`` reply format gives the reply's schema
REPLY_NAME = "seat_reply"
#: how much of one result's events a turn report repeats to the model
MAX_EVENT_CHARS = 200

#: where a ``json_schema`` format carries the schema: OpenAI's ``{"type": "json_schema",
#: "json_schema": {"name", "strict", "schema"}}`` (OpenAI, vLLM, llama.cpp's server), or
#: ``{"type": "json_object", "schema"}`` (llama-cpp-python's server)
SCHEMA_IN_JSON_SCHEMA = "json_schema"
SCHEMA_IN_JSON_OBJECT = "json_object"


class FormatSettings(Protocol):
    reply_format: str
    schema_in: str


def reply_schema(guide: SeatGuide, moves: list[Any], plan: list[Any] | None = None) -> JSON:
    """The reply's JSON Schema for a turn whose legal moves are ``moves`` and whose plan
    may hold ``plan`` too (:meth:`SeatGuide.plan_moves`).

    It keeps to OpenAI's strict subset, which vLLM and llama.cpp read too: every schema
    typed, every object closed with all its properties required, enums of plain values
    (an action object is one closed ``anyOf`` branch per move; a plan move whose value is
    a list takes any of its values), arrays bounded by ``minItems``/``maxItems`` and no
    string lengths (the notes are cut to their limit when read)."""
    offered = list(moves)
    for move in plan or ():
        if move not in offered:
            offered.append(move)
    return {
        "type": "object",
        "properties": {
            guide.reply_key: {
                "type": "array",
                "items": _move_schema(offered),
                "minItems": 1,
                "maxItems": MAX_MOVES,
            },
            "notes": {"type": "string"},
        },
        "required": [guide.reply_key, "notes"],
        "additionalProperties": False,
    }


def response_format(
    settings: FormatSettings, guide: SeatGuide, moves: list[Any], plan: list[Any] | None = None
) -> JSON | None:
    """The request's ``response_format`` for a turn (None: none): the reply's schema in
    the settings' form."""
    return named_schema(settings, REPLY_NAME, reply_schema(guide, moves, plan))


def _move_schema(moves: list[Any]) -> JSON:
    """One move: a text from the enum, or one of the action objects."""
    if not moves or not isinstance(moves[0], dict):
        return {"type": "string", "enum": moves}
    return {"anyOf": [_exact_object(move) for move in moves]}


def _exact_object(move: JSON) -> JSON:
    return {
        "type": "object",
        "properties": {key: _value_schema(value) for key, value in move.items()},
        "required": list(move),
        "additionalProperties": False,
    }


def _value_schema(value: Any) -> JSON:
    """A plain value, or any value of a list (a plan move's choices, e.g. seen x)."""
    if isinstance(value, list):
        return {"type": SCHEMA_TYPES[type(value[0])], "enum": value}
    return {"type": SCHEMA_TYPES[type(value)], "enum": [value]}


#: the JSON Schema type of a plain value in an action object
SCHEMA_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def named_schema(settings: FormatSettings, name: str, schema: JSON) -> JSON | None:
    """A reply format in the settings' form: none for text, any object for
    ``json_object``, else the schema where the endpoint takes it."""
    if settings.reply_format == TEXT:
        return None
    if settings.reply_format == JSON_OBJECT:
        return {"type": "json_object"}
    if settings.schema_in == SCHEMA_IN_JSON_OBJECT:
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


#: the reply of a reflection: the notes rewritten
NOTES_SCHEMA: JSON = {
    "type": "object",
    "properties": {"notes": {"type": "string"}},
    "required": ["notes"],
    "additionalProperties": False,
}
#: the reply of a review: a rating and a sentence or two
REVIEW_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "rating": {"type": "integer", "minimum": 1, "maximum": 10},
        "review": {"type": "string"},
    },
    "required": ["rating", "review"],
    "additionalProperties": False,
}


def system_prompt(guide: SeatGuide) -> str:
    """What the seat is told once: the play rules, the reply's form and an example."""
    key = guide.reply_key
    kind = "action objects" if entry_kind(guide) is dict else "commands"
    return (
        f"You are playing {guide.game.name}.\n{guide.rules()}\n\n"
        "Each turn you see the board, your notes, what happened and the legal moves. "
        "Reply with one JSON object and nothing else:\n"
        f'{{"{key}": [1 to {MAX_MOVES} {kind}, played in order], "notes": "<up to '
        f'{MAX_NOTES} characters, shown to you next turn>"}}\n'
        f"Copy moves exactly as the legal moves list writes them. The first refused one "
        f"stops the turn. Example reply:\n{json.dumps(guide.example())}"
    )


def turn_prompt(
    guide: SeatGuide, view: JSON, moves: list[Any], number: int, notes: str, history: list[str]
) -> str:
    """One turn's message: the board once, the notes, what happened, the legal moves."""
    parts = [f"Turn {number}. Score {view['score']}.", guide.board(view)]
    parts.append(f"Your notes: {json.dumps(notes)}")
    if history:
        parts.append("What happened:\n" + "\n".join(history))
    parts.append(f"Legal moves now: {json.dumps(moves, separators=(',', ':'))}")
    parts.append("Your reply (one JSON object):")
    return "\n".join(parts)


def retry_prompt(reason: str, stopped_at: int | None = None, moves: list[Any] | None = None) -> str:
    """The retry's message: why the reply was not used and the legal moves again, so a
    model at temperature 0 is not asked the same question twice (its reply is already in
    the conversation); ``stopped_at``: the token limit that stopped the reply."""
    limit = ""
    if stopped_at is not None:
        limit = (
            f" Your reply was stopped at the limit of {stopped_at} tokens: write a shorter "
            "one (fewer moves, shorter notes)."
        )
    parts = [f"That reply was not used: {reason}.{limit}"]
    if moves is not None:
        parts.append(f"Pick from these legal moves: {json.dumps(moves, separators=(',', ':'))}")
    parts.append(
        "This is your one retry for this turn: reply again with one JSON object and nothing else."
    )
    return "\n".join(parts)


def reflect_prompt(notes: str, history: list[str]) -> str:
    return (
        "Time to take stock. What happened in your last turns:\n"
        + "\n".join(history)
        + f"\nYour notes: {json.dumps(notes)}\nRewrite your notes for the rest of the "
        f"game: what you learnt and what you plan, at most {MAX_NOTES} characters. Reply "
        'with one JSON object and nothing else: {"notes": "<your notes>"}'
    )


REVIEW_PROMPT = (
    "The game is over (final score {score}). Rate the game from 1 to 10 and review it in "
    'a sentence or two. Reply with one JSON object and nothing else: {{"rating": <1-10>, '
    '"review": "<text>"}}'
)


def event_text(events: list[JSON]) -> str:
    """A turn report's view of a result's events: compact JSON, cut short."""
    text = json.dumps(events, separators=(",", ":"))
    return text if len(text) <= MAX_EVENT_CHARS else f"{text[:MAX_EVENT_CHARS]}…"
