"""The seat turn: which reply is played, its queue run primitive by primitive, and what
the seat is told back.

A reply that does not parse is refused once with the retry counted; a second failure in
the same turn makes the delver (the seat protocol's scripted fallback) play the turn.
The queue stops early when a primitive fails, the cog is hit, a new monster comes into
view or the run ends.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from playbench.core import Outcome
from playbench.games.cogcrawl.actions import run_primitive
from playbench.games.cogcrawl.constants import MAX_MESSAGES
from playbench.games.cogcrawl.delver import delver_reply
from playbench.games.cogcrawl.protocol import (
    MACRO_PRIMITIVE_CAP,
    MAX_ACTIONS,
    QUEUE_CAP,
    ParseFailure,
    Plan,
    Primitive,
    plan_turn,
    read_reply,
)
from playbench.games.cogcrawl.sight import memory_rows, visible_monsters
from playbench.games.cogcrawl.state import PLAYING, CogState
from playbench.games.cogcrawl.turn import PrimitiveFailed, Turn
from playbench.games.cogcrawl.view import observe

FALLBACK_MESSAGE = "Your reply failed to parse twice; the delver played this turn."
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
WAIT = Primitive("wait")


@dataclass(frozen=True, slots=True)
class SeatReply:
    """The reply object a turn plays, and whether the delver wrote it."""

    body: dict[str, Any]
    fallback: bool = False


@dataclass(slots=True)
class QueueRun:
    """What running a turn's queue did: the primitives that ran, and why it stopped early."""

    executed: list[dict[str, str]]
    interrupted: str | None = None


def take_reply(state: CogState, action: object) -> SeatReply:
    """The reply to play this turn: the seat's, or the delver's after a second failure.

    Raises :class:`ParseFailure` for the turn's first reply that does not parse.
    """
    try:
        return SeatReply(read_reply(action))
    except ParseFailure:
        if not state.retry:
            raise
    return SeatReply(delver_reply(observe(state)), fallback=True)


def retry_turn(state: CogState, failure: ParseFailure) -> Outcome[CogState]:
    """The counted refusal of a turn's first reply that did not parse."""
    retried = state.copy()
    retried.retry = True
    return Outcome.counted_refusal(
        retried, f"{failure}; the turn is retried once, then the delver plays it"
    )


def open_turn(state: CogState, reply: SeatReply, plan: Plan) -> Turn:
    """The turn's scratch record on a copy of ``state``. The reply's ``say`` is for the
    spectators: it is the turn's first event, never shown to the seat."""
    turn = Turn(state.copy())
    if reply.fallback:
        turn.message(FALLBACK_MESSAGE)
    if plan.say:
        turn.event("say", text=clean_text(plan.say))
    return turn


def plan_queue(state: CogState, reply: SeatReply) -> Plan:
    """The validated queue of the reply, against the map as of the turn's start."""
    return plan_turn(
        reply.body,
        memory_rows(state.level),
        (state.x, state.y),
        {(m.x, m.y) for m in visible_monsters(state)},
        set(state.pack),
    )


def run_queue(turn: Turn, plan: Plan) -> QueueRun:
    """Run the queue (a wait when it is empty) until it ends or something stops it."""
    s = turn.s
    seen = {m.ident for m in visible_monsters(s)}
    start = s.dl
    ran = QueueRun(executed=[])
    for primitive in plan.primitives or [WAIT]:
        turn.hit = False
        try:
            run_primitive(turn, primitive)
        except PrimitiveFailed as failure:
            reason = str(failure)
            turn.message(f"{reason[0].upper()}{reason[1:]}.")
            ran.interrupted = f"{describe(primitive)} failed: {reason}"
            break
        ran.executed.append(primitive.to_json())
        if s.run != PLAYING:
            break
        if turn.hit:
            ran.interrupted = "the cog was hit"
            break
        newcomers = [m for m in visible_monsters(s) if s.dl != start or m.ident not in seen]
        if newcomers:
            ran.interrupted = f"a {newcomers[0].info.name} came into view"
            break
    return ran


def close_turn(before: CogState, turn: Turn, reply: SeatReply, plan: Plan, ran: QueueRun) -> None:
    """Write what the seat is told back (messages, ``last_plan``, notes) and keep the
    turn's ``say`` in the state for the spectators."""
    new = turn.s
    new.turn += 1
    new.messages = trim_messages(turn.log)
    new.last_plan = {
        "executed": ran.executed,
        "truncated": plan.truncated,
        "dropped": [
            {**entry, "do": clean_text(entry["do"])} if isinstance(entry["do"], str) else entry
            for entry in plan.dropped
        ],
        "over_cap": plan.over_cap,
        "unreachable": plan.unreachable,
        "interrupted": ran.interrupted,
    }
    # the notes are the seat's only memory: a turn the delver played keeps them as they were
    new.notes = before.notes if reply.fallback else clean_text(plan.notes)
    new.say = clean_text(plan.say)
    new.fallback = reply.fallback
    new.retry = False


def plan_notice(state: CogState, action: Any) -> str:
    """The seat's last turn, played from ``action``, in words where it did less than the
    reply asked: entries dropped, moves cut, travels with no path, a queue stopped early,
    or nothing run at all (the turn passed as a wait). Empty when the reply ran whole or
    the delver played."""
    if state.fallback:
        return ""
    plan = state.last_plan
    parts = [
        f"entry {entry['index']} ({entry['do']}) was dropped: {entry['reason']}"
        for entry in plan["dropped"]
    ]
    if plan["over_cap"]:
        parts.append(f"{plan['over_cap']} entries past the first {MAX_ACTIONS} were dropped unread")
    parts += [
        f"travel {entry['index']} to ({entry['x']}, {entry['y']}) found no path"
        for entry in plan["unreachable"]
    ]
    if plan["truncated"]:
        parts.append(
            f"{plan['truncated']} moves were cut (a travel keeps {MACRO_PRIMITIVE_CAP}, "
            f"a turn runs {QUEUE_CAP})"
        )
    if plan["interrupted"]:
        parts.append(f"the queue stopped early: {plan['interrupted']}")
    if plan["executed"] == [WAIT.to_json()] and not _asks_to_wait(action):
        parts.append("no action of the reply ran, so the turn passed as a wait")
    return "; ".join(parts)


def _asks_to_wait(action: Any) -> bool:
    """Whether a reply (parsed, or raw text) has a ``wait`` entry."""
    if isinstance(action, dict) and isinstance(action.get("reply"), str):
        try:
            action = json.loads(action["reply"])
        except ValueError:
            return False
    entries = action.get("actions") if isinstance(action, dict) else None
    if not isinstance(entries, list):
        return False
    return any(isinstance(entry, dict) and entry.get("do") == WAIT.verb for entry in entries)


def clean_text(text: str) -> str:
    """Text safe to store and hash: a lone surrogate (only JSON escapes can make one)
    becomes U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


def describe(primitive: Primitive) -> str:
    return " ".join(p for p in (primitive.verb, primitive.dir, primitive.item) if p)


def trim_messages(log: list[str]) -> list[str]:
    """At most MAX_MESSAGES lines; when more were made the first says how many were dropped."""
    if len(log) <= MAX_MESSAGES:
        return list(log)
    dropped = len(log) - (MAX_MESSAGES - 1)
    return [f"({dropped} older messages dropped)", *log[-(MAX_MESSAGES - 1) :]]
