"""How a model's reply is read: one JSON object, the move list (``commands``, text of the
game's grammar, or ``actions``, objects, for a game that reads its replies itself), ``say``
for the spectators and ``notes``, its memory; at most 4096 bytes.

The whole reply is read first, and the protocol's byte limit is applied to what it says,
not to its text: a reply past 4096 bytes that reads is *cut* (its ``say`` and ``notes``
trimmed until the object fits, its moves kept) and named so; one that does not read is
unreadable whatever its length. JSON's own whitespace around the object is no repair (the
reply is valid JSON as sent). Reading repairs what harnesses of record repair, and says
so (``repaired``): other whitespace around the object (a byte-order mark), a code fence
around it, one JSON object
inside prose (the first that decodes), raw control characters (a line break) inside its
strings, and a reply the token limit stopped (its open string, arrays and objects
closed). Choices where the protocol is silent:

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
from typing import Any

from playbench.core.game import JSON
from playbench.core.seat import (
    MAX_MOVES,
    MAX_NOTES,
    MAX_REPLY_BYTES,
    MAX_SAY,
    ReplyError,
    ReplyUnreadable,
    SeatGuide,
    read_object,
)

#: the whitespace JSON allows around a value (RFC 8259): no repair to take away
JSON_WHITESPACE = " \t\n\r"
#: the most characters of a reply that are looked at (a reply is bounded by the
#: request's token limit; this only keeps a runaway endpoint from costing memory)
MAX_READ_CHARS = 1 << 20
FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)

__all__ = ["ReplyError", "ReplyUnreadable", "ReplyUnusable"]


class ReplyUnusable(ReplyError):
    """A reply that reads but cannot be played (no move list, a first move of the wrong
    form); the message says why and how to write it."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A reply read: its object, the object's text as the game is handed it (at most
    4096 bytes), whether it was repaired to find it and whether it was cut to fit."""

    reply: JSON
    text: str
    repaired: bool
    cut: bool = False


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


def byte_length(text: str) -> int:
    return len(text.encode("utf-8", errors="replace"))


def read_reply(raw: str) -> Reading:
    """Read a reply as one JSON object, repairing what harnesses of record repair, then
    fit it to 4096 bytes; :class:`ReplyUnreadable` with the strict reading's reason
    (and the reply's length, when it is past the limit) when nothing helps."""
    text = raw[:MAX_READ_CHARS]
    try:
        core = text.strip(JSON_WHITESPACE)
        return _fitted(read_object(core), core, repaired=False)
    except ReplyUnreadable as failure:
        strict = failure
    for candidate in _repairs(text):
        try:
            return _fitted(read_object(candidate), candidate, repaired=True)
        except ReplyUnreadable:
            continue
    size = byte_length(raw)
    if size > MAX_REPLY_BYTES:
        raise ReplyUnreadable(f"{strict} (the reply is {size} bytes; at most {MAX_REPLY_BYTES})")
    raise strict


def _fitted(reply: JSON, text: str, repaired: bool) -> Reading:
    """The reading of ``reply``; past 4096 bytes, the object cut to fit: ``say``, then
    ``notes`` trimmed, then keys other than the moves dropped, then the last moves."""
    if byte_length(text) <= MAX_REPLY_BYTES:
        return Reading(reply, text, repaired)
    cut = dict(reply)
    for key in ("say", "notes"):
        if isinstance(cut.get(key), str):
            cut[key] = _trimmed(cut, key)
            if _size(cut) <= MAX_REPLY_BYTES:
                return Reading(cut, _compact(cut), repaired, cut=True)
    kept = {key: value for key, value in cut.items() if isinstance(value, list)}
    kept.update({key: cut[key] for key in ("say", "notes") if key in cut})
    lists = [key for key, value in kept.items() if isinstance(value, list)]
    while _size(kept) > MAX_REPLY_BYTES and lists:
        longest = max(lists, key=lambda key: _size(kept[key]))
        kept[longest] = kept[longest][:-1]
        if not kept[longest]:
            lists.remove(longest)
    return Reading(kept, _compact(kept), repaired, cut=True)


def _trimmed(reply: JSON, key: str) -> str:
    """``reply[key]`` cut to what lets the object fit (empty when nothing does)."""
    value: str = reply[key]
    low, high = 0, len(value)
    while low < high:
        middle = (low + high + 1) // 2
        if _size({**reply, key: value[:middle]}) <= MAX_REPLY_BYTES:
            low = middle
        else:
            high = middle - 1
    return value[:low]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _size(value: Any) -> int:
    return byte_length(_compact(value))


def _repairs(text: str) -> list[str]:
    """What a reply may hold inside: the text without surrounding whitespace, a code
    fence's content, an object with what it left open closed, the first JSON object that
    decodes inside prose, each followed by itself with its strings' raw control
    characters escaped."""
    stripped = text.strip().lstrip("\ufeff").strip()
    found = [stripped]
    fence = FENCE.search(stripped)
    if fence is not None:
        found.append(fence.group(1).strip())
    if stripped.startswith("{"):
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
    """The object with raw control characters (a line break) inside its strings escaped,
    as JSON wants them; None when that is not what keeps it from reading."""
    try:
        value = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None
    return _compact(value) if isinstance(value, dict) else None


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
    kind = entry_kind(guide)
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


def entry_kind(guide: SeatGuide) -> type:
    """The form of a move: that of the example's (text, or an object)."""
    first = guide.example()[guide.reply_key][0]
    return dict if isinstance(first, dict) else str


def _kind_words(kind: type) -> str:
    return "an object" if kind is dict else "a text"


def _cut(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""
