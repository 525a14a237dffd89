"""The seat protocol of Cogcrawl, generalised to every game: what a language model is
told and how its reply is read.

Cogcrawl's seat replies ``{"actions": [...], "say", "notes"}`` and the game reads it
itself (retrying once, then playing the turn with its delver). Every other game is
played with text commands: the reply is ``{"commands": [up to 10 command texts], "say",
"notes"}``, one JSON object and nothing else, at most 4096 bytes, read by the same rules
as Cogcrawl's (:func:`playbench.games.cogcrawl.protocol.parse_raw`). ``say`` is cut at
140 runes, ``notes`` at 400; the notes are echoed back next turn, the seat's only memory.

Choices where the seat protocol is silent:

- ``commands`` absent, null or empty leaves nothing to play: the reply is refused like a
  first command refused ("the reply has no commands"), and retried.
- ``commands`` that is not an array makes the reply unreadable (a parse failure).
- An entry that is not a string is dropped and reported next turn; entries past 10 are
  dropped unread and counted.
- A non-string ``say`` or ``notes`` counts as absent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from playbench.core.game import JSON, Game
from playbench.games.cogcrawl.protocol import (
    MAX_ACTIONS,
    MAX_NOTES,
    MAX_REPLY_BYTES,
    MAX_SAY,
    ParseFailure,
    parse_raw,
)

#: the most commands one reply may carry (the seat's action cap)
MAX_COMMANDS = MAX_ACTIONS
#: games whose action is itself a seat reply: the raw text goes to the game, which reads
#: it, retries once and falls back to its own bot by its rules
SEAT_REPLY_GAMES = frozenset({"cogcrawl"})
#: how much of one result's events a turn report repeats to the model
MAX_EVENT_CHARS = 300


@dataclass(slots=True)
class CommandsReply:
    """A read reply of a commands game."""

    commands: list[str]
    say: str = ""
    notes: str = ""
    #: ``{"index", "reason"}`` per entry that was not a command text
    dropped: list[JSON] = field(default_factory=list)
    #: entries past :data:`MAX_COMMANDS`, dropped unread
    over_cap: int = 0


def read_limit(raw: str) -> str:
    """What is read of a reply: its first 4096 bytes (a character cut in two is left out)."""
    data = raw.encode("utf-8", errors="replace")
    if len(data) <= MAX_REPLY_BYTES:
        return raw
    return data[:MAX_REPLY_BYTES].decode("utf-8", errors="ignore")


def read_commands_reply(raw: str) -> CommandsReply:
    """Read a commands game's reply; :class:`ParseFailure` says why it cannot be read."""
    reply = parse_raw(raw)
    commands = reply.get("commands")
    if commands is None:
        commands = []
    if not isinstance(commands, list):
        raise ParseFailure(
            f'"commands" must be an array of command texts, got {type(commands).__name__}'
        )
    read = CommandsReply(
        commands=[],
        say=_cut(reply.get("say"), MAX_SAY),
        notes=_cut(reply.get("notes"), MAX_NOTES),
        over_cap=max(0, len(commands) - MAX_COMMANDS),
    )
    for index, entry in enumerate(commands[:MAX_COMMANDS]):
        if isinstance(entry, str):
            read.commands.append(entry)
        else:
            read.dropped.append({"index": index, "reason": "a command must be a string"})
    return read


def say_of(raw: str) -> str:
    """The ``say`` of a raw reply, cut to 140 runes; empty when it does not parse."""
    try:
        return _cut(parse_raw(raw).get("say"), MAX_SAY)
    except ParseFailure:
        return ""


def _cut(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


# -- prompts ----------------------------------------------------------------------------

COMMANDS_FORMAT = f"""\
Reply with exactly one JSON object and nothing else: no prose, no markdown, no code \
fences; it must begin with {{ and end with }}, and at most {MAX_REPLY_BYTES} bytes are read:
{{"commands": ["<command>", ...], "say": "<thinking out loud>", "notes": "<memory>"}}
- commands: up to {MAX_COMMANDS} command texts of the grammar above, played in order. \
The first refused command stops the turn; the commands after it are dropped and \
reported to you next turn.
- say: at most {MAX_SAY} characters, shown to spectators, never fed back to you.
- notes: at most {MAX_NOTES} characters, echoed back to you next turn. It is the only \
memory you have.
A reply that does not parse, or whose first command is refused, is retried once with \
the reason; after a second failure a scripted bot plays the turn."""

SEAT_FORMAT = f"""\
Reply with exactly one JSON object and nothing else: no prose, no markdown, no code \
fences; it must begin with {{ and end with }}, and at most {MAX_REPLY_BYTES} bytes are read:
{{"actions": [{{"do": "move", "dir": "ne"}}, {{"do": "travel", "x": 5, "y": 6}}], \
"say": "<thinking out loud>", "notes": "<memory>"}}
- actions: up to {MAX_ACTIONS} entries, each a verb of the rules above with its fields \
(dir, x and y, item). An entry that does not validate is dropped and reported in last_plan.
- say: at most {MAX_SAY} characters, shown to spectators, never fed back to you.
- notes: at most {MAX_NOTES} characters, echoed back to you in the next observation. It \
is the only memory you have.
A reply that does not parse is retried once with the reason; after a second failure the \
game's scripted player (the delver) plays the turn."""


def system_prompt(game: Game) -> str:
    """What the seat is told once: the game's spec and the reply format."""
    spec = game.spec()
    commands = "\n".join(
        f"- {command.syntax}: {command.description} (e.g. {command.example})"
        for command in spec.commands
    )
    rules = "\n".join(f"- {rule}" for rule in spec.rules)
    reply_format = SEAT_FORMAT if game.slug in SEAT_REPLY_GAMES else COMMANDS_FORMAT
    return (
        f"You are playing {game.name}, a game of the playbench arena. {spec.description}\n\n"
        f"Goal: {spec.goal}\n\nScoring: {spec.scoring}\n\nRules:\n{rules}\n\n"
        f"Commands (the text grammar):\n{commands}\n\n"
        "Each turn you are shown the board, the observation as JSON, the legal commands, "
        "what your last reply did and your notes.\n\n"
        f"{reply_format}"
    )


def turn_prompt(view: JSON, report: str, notes: str | None) -> str:
    """One turn's message: the view, the last reply's report and the echoed notes
    (``notes`` is None where the game echoes them in its observation)."""
    parts = [
        f"Score {view['score']}. Board:\n{view['board']}",
        f"Observation: {json.dumps(view['observation'], separators=(',', ':'))}",
        f"Legal commands now: {json.dumps(view['commands'])}",
    ]
    if report:
        parts.append(f"Your last reply: {report}")
    if notes is not None:
        parts.append(f"Your notes: {json.dumps(notes)}")
    parts.append("Your reply (one JSON object):")
    return "\n\n".join(parts)


def retry_prompt(reason: str) -> str:
    return (
        f"That reply was not used: {reason}. This is your one retry for this turn: reply "
        "again with one JSON object and nothing else."
    )


def event_text(events: list[JSON]) -> str:
    """A turn report's view of a result's events: compact JSON, cut short."""
    text = json.dumps(events, separators=(",", ":"))
    return text if len(text) <= MAX_EVENT_CHARS else f"{text[:MAX_EVENT_CHARS]}…"
