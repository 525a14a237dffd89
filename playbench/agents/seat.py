"""The seat protocol for a language model: what it is told, and how its reply is read.

Every game is played the same way; what differs comes from the game's
:class:`~playbench.core.seat.SeatGuide` (its play rules, an example reply, its board and
its legal moves in the reply's exact form). The reply is one JSON object: the move list
(``commands``, text of the game's grammar, or ``actions``, objects, for a game that
reads its replies itself), ``say`` for the spectators and ``notes``, at most 4096 bytes.

Reading repairs what harnesses of record repair, and says so (``repaired``): whitespace
around the object, a code fence around it, one JSON object inside prose (the first
that decodes), raw control characters (a line break) inside its strings, and a reply
the token limit cut off (its open string, arrays and objects closed). Choices where the
protocol is silent:

- A reply without its move list, with an empty one, or with something other than an
  array there is not usable: it is retried like a reply that does not parse, with the
  reason and the game's example (a list under another key, such as ``commands`` in a
  Cogcrawl reply, is named in the reason).
- A first move of the wrong form (``"move n"`` where an action object is asked for)
  makes the reply unusable; later entries of the wrong form are dropped and reported.
- Entries past 10 are dropped unread and counted.
- A non-string ``say`` or ``notes`` counts as absent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from playbench.core.game import JSON
from playbench.core.seat import (
    MAX_MOVES,
    MAX_NOTES,
    MAX_REPLY_BYTES,
    MAX_SAY,
    ReplyUnreadable,
    SeatGuide,
    read_object,
)

#: how the request asks for the reply: free text, any JSON object, or the reply's JSON
#: Schema with the turn's legal moves as an enum (OpenAI structured outputs; vLLM and
#: llama.cpp servers take the same field)
TEXT = "text"
JSON_OBJECT = "json_object"
JSON_SCHEMA = "json_schema"
REPLY_FORMATS = (TEXT, JSON_OBJECT, JSON_SCHEMA)
#: how much of one result's events a turn report repeats to the model
MAX_EVENT_CHARS = 200
FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)


class ReplyUnusable(ValueError):
    """A reply that reads but cannot be played (no move list, a first move of the wrong
    form); the message says why and how to write it."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A reply read: its object, the object's text as the model wrote it (or with its
    line breaks escaped), and whether it was repaired to find it."""

    reply: JSON
    text: str
    repaired: bool


@dataclass(slots=True)
class Moves:
    """The moves of a usable reply, with what was dropped from it."""

    moves: list[Any]
    say: str = ""
    notes: str = ""
    #: ``{"index", "reason"}`` per entry of the wrong form
    dropped: list[JSON] = field(default_factory=list)
    #: entries past :data:`MAX_MOVES`, dropped unread
    over_cap: int = 0


def read_limit(raw: str) -> str:
    """What is read of a reply: its first 4096 bytes (a character cut in two is left out)."""
    data = raw.encode("utf-8", errors="replace")
    if len(data) <= MAX_REPLY_BYTES:
        return raw
    return data[:MAX_REPLY_BYTES].decode("utf-8", errors="ignore")


def read_reply(raw: str) -> Reading:
    """Read a reply as one JSON object, repairing what harnesses of record repair;
    :class:`ReplyUnreadable` with the strict reading's reason when nothing helps."""
    text = read_limit(raw)
    try:
        return Reading(read_object(text, cut=text != raw), text, repaired=False)
    except ReplyUnreadable as failure:
        strict = failure
    for candidate in _repairs(text, cut=text != raw):
        try:
            return Reading(read_object(candidate), candidate, repaired=True)
        except ReplyUnreadable:
            continue
    raise strict


def _repairs(text: str, cut: bool) -> list[str]:
    """What a reply may hold inside: the text without surrounding whitespace, a code
    fence's content, an object with what it left open closed (not when the 4096-byte
    limit cut it: that stays unreadable), the first JSON object that decodes inside
    prose, each followed by itself with its strings' raw control characters escaped."""
    stripped = text.strip().lstrip("\ufeff").strip()
    found = [stripped]
    fence = FENCE.search(stripped)
    if fence is not None:
        found.append(fence.group(1).strip())
    if not cut and stripped.startswith("{"):
        found.append(_closed(stripped))
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    while start >= 0:
        try:
            value, end = decoder.raw_decode(stripped, start)
        except (ValueError, RecursionError):
            start = stripped.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(stripped[start:end])
            break
        start = stripped.find("{", end)
    escaped = [_control_escaped(text) for text in found]
    return [text for pair in zip(found, escaped, strict=True) for text in pair if text is not None]


def _closed(text: str) -> str:
    """The text with what a cut-off reply left open closed: its string, then its arrays
    and objects, innermost first (a reply the token limit stopped inside its notes)."""
    open_brackets: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            open_brackets.append("]" if char == "[" else "}")
        elif char in "]}" and open_brackets:
            open_brackets.pop()
    if escaped:
        text = text[:-1]
    return text + ('"' if in_string else "") + "".join(reversed(open_brackets))


def _control_escaped(text: str) -> str | None:
    """The object with raw control characters (a newline) inside its strings escaped, as
    JSON wants them; None when that is not what keeps it from reading."""
    try:
        value = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else None


def reply_moves(reply: JSON, guide: SeatGuide) -> Moves:
    """The moves of a read reply; :class:`ReplyUnusable` when it has none to play."""
    key = guide.reply_key
    entries = reply.get(key)
    example = json.dumps(guide.example())
    if entries is None:
        others = [k for k, v in reply.items() if isinstance(v, list)]
        named = f' (it has "{others[0]}")' if others else ""
        raise ReplyUnusable(f'the reply has no "{key}" list{named}; write it like {example}')
    if not isinstance(entries, list) or not entries:
        raise ReplyUnusable(f'"{key}" must be a non-empty array; write it like {example}')
    kind = _entry_kind(guide)
    if not isinstance(entries[0], kind):
        raise ReplyUnusable(
            f'each entry of "{key}" must be {_kind_words(kind)}, got {json.dumps(entries[0])}; '
            f"write it like {example}"
        )
    read = Moves(
        moves=[],
        say=_cut(reply.get("say"), MAX_SAY),
        notes=_cut(reply.get("notes"), MAX_NOTES),
        over_cap=max(0, len(entries) - MAX_MOVES),
    )
    for index, entry in enumerate(entries[:MAX_MOVES]):
        if isinstance(entry, kind):
            read.moves.append(entry)
        else:
            read.dropped.append({"index": index, "reason": f"not {_kind_words(kind)}"})
    return read


def _entry_kind(guide: SeatGuide) -> type:
    """The form of a move: that of the example's (text, or an object)."""
    first = guide.example()[guide.reply_key][0]
    return dict if isinstance(first, dict) else str


def _kind_words(kind: type) -> str:
    return "an object" if kind is dict else "a text"


def _cut(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


# -- what is asked ----------------------------------------------------------------------


#: where a ``json_schema`` format carries the schema: OpenAI's ``{"type": "json_schema",
#: "json_schema": {"name", "strict", "schema"}}`` (OpenAI, vLLM, llama.cpp's server), or
#: ``{"type": "json_object", "schema"}`` (llama-cpp-python's server)
SCHEMA_IN_JSON_SCHEMA = "json_schema"
SCHEMA_IN_JSON_OBJECT = "json_object"


class FormatSettings(Protocol):
    reply_format: str
    schema_in: str


def response_format(settings: FormatSettings, guide: SeatGuide, moves: list[Any]) -> JSON | None:
    """The request's ``response_format`` for a turn with these legal moves (None: none).

    The schema keeps to OpenAI's strict subset, which vLLM and llama.cpp read too: every
    schema typed, every object closed with all its properties required, enums of plain
    values (an action object is one closed ``anyOf`` branch per legal move), arrays
    bounded by ``minItems``/``maxItems`` and no string lengths (the notes are cut to
    their limit when read)."""
    schema = {
        "type": "object",
        "properties": {
            guide.reply_key: {
                "type": "array",
                "items": _move_schema(moves),
                "minItems": 1,
                "maxItems": MAX_MOVES,
            },
            "notes": {"type": "string"},
        },
        "required": [guide.reply_key, "notes"],
        "additionalProperties": False,
    }
    return named_schema(settings, "seat_reply", schema)


def _move_schema(moves: list[Any]) -> JSON:
    """One legal move: a text from the enum, or one of the legal action objects."""
    if not moves or not isinstance(moves[0], dict):
        return {"type": "string", "enum": moves}
    return {"anyOf": [_exact_object(move) for move in moves]}


def _exact_object(move: JSON) -> JSON:
    return {
        "type": "object",
        "properties": {
            key: {"type": SCHEMA_TYPES[type(value)], "enum": [value]} for key, value in move.items()
        },
        "required": list(move),
        "additionalProperties": False,
    }


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
    kind = "action objects" if _entry_kind(guide) is dict else "commands"
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


def retry_prompt(reason: str) -> str:
    return (
        f"That reply was not used: {reason}. This is your one retry for this turn: reply "
        "again with one JSON object and nothing else."
    )


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
