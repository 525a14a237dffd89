"""The seat: one language model playing one game's episode, turn by turn, whatever
calls the model.

A turn is a chain of named steps: :meth:`Seat.prompt` (the system prompt and the turn's
message), :meth:`Seat.call` (one request: the budget checked, the answer counted),
:meth:`Seat.read` (the reply read, repaired and cut to the protocol's limit),
:meth:`Seat.play` (its moves on the table), :meth:`Seat.retry` (a reply that was not used
is sent back once with the reason) and :meth:`Seat.fall_back` (after a second failure,
the fallback plays the turn: ``bot``, ``random`` or ``wait``; a game whose seat rules name
their own, Cogcrawl's delver, keeps it). Every ``reflect`` turns :meth:`Seat.reflect` has
the model rewrite its notes.

The seat does no input or output itself: :meth:`Seat.turn` is a generator that yields an
:class:`Ask` for each call and is sent its :class:`Answer`, so the runner drives it with
the ``openai`` client (:func:`drive`) and the Inspect door with Inspect's model API
(:func:`drive_async`), with the same prompts, schema, repair and fallback.

Every turn's note records who played it (``played``: ``model`` or the fallback), the
replies read, each call's record, and the seat's memory after it (``memory``: its notes,
history and counts), so an episode resumed from its replay continues with what the model
had (:meth:`Seat.restore`).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Awaitable, Callable, Generator
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from playbench.agents.base import NEUTRAL_RATING, AgentError, ScriptedAgent, Table, Turn
from playbench.agents.bot import BotAgent
from playbench.agents.llm.prompts import (
    NOTES_SCHEMA,
    REPLY_NAME,
    REVIEW_PROMPT,
    REVIEW_SCHEMA,
    event_text,
    named_schema,
    reflect_prompt,
    reply_schema,
    retry_prompt,
    system_prompt,
    turn_prompt,
)
from playbench.agents.llm.reply import ReplyError, ReplyUnreadable, read_reply, reply_moves
from playbench.agents.llm.settings import BOT, WAIT, SeatSettings, check_fallback, fallback_of
from playbench.agents.random_agent import RandomAgent
from playbench.core.errors import CommandError
from playbench.core.game import JSON, Game
from playbench.core.match import StepResult
from playbench.core.seat import MAX_NOTES

#: who played a turn, as a turn's note says
MODEL = "model"
#: a call's outcome, as recorded
PARSED = "parsed"
REFUSED = "refused"
PARSE_FAILURE = "parse_failure"
TIMEOUT = "timeout"
ERROR = "error"
MAX_REVIEW = 2000
#: the most characters of a reply a turn's note keeps
MAX_KEPT_REPLY = 8192
#: the budgets a suite may set per episode, by their names in suites and records
MAX_TURNS = "maxTurns"
MAX_TOKENS = "maxTokens"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Ask:
    """One request to the model: the chat messages, the reply format in OpenAI's form
    (None: free text), the bare JSON Schema of the reply (None when there is none), and
    what it is for (``turn``, ``retry``, ``reflect``, ``review``)."""

    messages: list[JSON]
    response_format: JSON | None
    schema: JSON | None
    purpose: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What one call gave: the reply's text (None when the call failed, ``failure`` says
    why), its tokens, its latency (the request's own time, from when it was sent) and
    the time it waited before it could be sent (``queued``: for a slot among the calls
    allowed in flight at once), the transient retries it took, and whether the token
    limit stopped the reply (``cut``)."""

    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    queued: float = 0.0
    failure: str = ""
    timed_out: bool = False
    retried: int = 0
    cut: bool = False

    def record(self, outcome: str) -> JSON:
        data: JSON = {
            "outcome": outcome,
            "latency": round(self.latency, 4),
            **({"queue": round(self.queued, 4)} if round(self.queued, 4) else {}),
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
        }
        if self.retried:
            data["transientRetries"] = self.retried
        if self.cut:
            data["stopped"] = "length"
        if self.failure:
            data["error"] = self.failure
        return data


@dataclass(frozen=True, slots=True)
class Budget:
    """What one episode may spend: model calls (``maxTurns``) and prompt plus completion
    tokens (``maxTokens``); None is no bound. A call is made only while both are left, so
    an episode makes at most ``max_turns`` calls and spends at most ``max_tokens`` plus
    one call's tokens."""

    max_turns: int | None = None
    max_tokens: int | None = None

    def spent(self, counts: SeatCounts) -> str | None:
        """The name of the budget ``counts`` has used up, or None."""
        if self.max_turns is not None and counts.calls >= self.max_turns:
            return MAX_TURNS
        if self.max_tokens is not None and counts.tokens >= self.max_tokens:
            return MAX_TOKENS
        return None


class BudgetSpent(AgentError):
    """The episode's budget allows no further call: the episode ends ``truncated``.
    ``budget`` names it; ``turn`` is what the unfinished turn played and said."""

    def __init__(self, budget: str, turn: Turn) -> None:
        super().__init__(f"the episode's {budget} budget is spent")
        self.budget = budget
        self.turn = turn


class EndpointDown(AgentError):
    """A call failed after the client's retries (no server, or none that answered): the
    episode stops here, its recorded turns kept for a resume. An outage is never the
    model's: the turn it cut is not a turn, spends no budget and no fallback plays it."""


@dataclass(slots=True)
class SeatCounts:
    """One episode's turns and calls, as ``runs.jsonl`` reports them."""

    #: agent turns, and those the model's own reply played
    turns: int = 0
    modelTurns: int = 0
    #: calls the endpoint answered (a failed call is an error, not a call)
    calls: int = 0
    promptTokens: int = 0
    completionTokens: int = 0
    #: replies that did not read, or read but had no moves to play
    parseFailures: int = 0
    #: replies read only after they were changed (a fence, prose around the object)
    repaired: int = 0
    #: replies past the protocol's 4096 bytes, cut to fit
    cut: int = 0
    #: replies whose first move the game refused
    refused: int = 0
    retries: int = 0
    fallbacks: int = 0
    #: calls that failed after the client's retries (outages: not the model's failures)
    errors: int = 0
    #: calls asked but not recorded when a run was killed (counted from the journal's
    #: asks on resume: spent, their tokens unknown)
    unrecordedCalls: int = 0
    #: HTTP retries of transient failures (429, 5xx, timeouts)
    transientRetries: int = 0
    reflections: int = 0
    #: the answered calls' own time, and the time they waited for a slot before it
    seconds: float = 0.0
    queueSeconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.promptTokens + self.completionTokens

    def as_json(self) -> JSON:
        data = asdict(self)
        data["seconds"] = round(data["seconds"], 4)
        data["queueSeconds"] = round(data["queueSeconds"], 4)
        return data

    @classmethod
    def from_json(cls, data: JSON) -> SeatCounts:
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


@dataclass(slots=True)
class Attempt:
    """What one reply did on the table: None as ``reason`` when it was played."""

    reason: str | None
    outcome: str
    played: list[Any] = field(default_factory=list)
    #: what of a played reply did not happen (refused or dropped moves)
    problems: str = ""


#: a turn's steps: yields each call's ask, is sent its answer, returns what it made
Steps = Generator[Ask, Answer, T]


class Seat:
    """A model's seat at one game; :meth:`reset` per episode, then :meth:`turn`."""

    def __init__(self, game: Game, settings: SeatSettings, budget: Budget | None = None) -> None:
        self.game = game
        self.settings = settings
        self.budget = budget or Budget()
        self.guide = game.seat_guide()
        check_fallback(settings, self.guide)
        self.fallback = fallback_of(settings, self.guide)
        self.system = system_prompt(self.guide)
        self.seed = 0
        self.stand_in: ScriptedAgent | None = None
        #: the renderer of ``vision``, made at the first picture
        self.pictures: Any = None
        self.counts = SeatCounts()
        #: a turn is under way (its call asked, not yet answered)
        self.turn_open = False
        self.notes = ""
        self.history: deque[str] = deque(maxlen=max(settings.memory, settings.reflect, 1))

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.stand_in = None
        self.counts = SeatCounts()
        self.notes = ""
        self.history.clear()

    # -- the memory a replay keeps ------------------------------------------------------
    def memory(self) -> JSON:
        """What the seat carries from turn to turn, as a turn's note keeps it."""
        return {"notes": self.notes, "history": list(self.history), "counts": self.counts.as_json()}

    def restore(self, memory: JSON) -> None:
        """Continue from a turn's ``memory`` (an episode resumed from its replay)."""
        self.notes = str(memory.get("notes", ""))
        self.history.clear()
        self.history.extend(str(line) for line in memory.get("history", []))
        self.counts = SeatCounts.from_json(memory.get("counts", {}))

    # -- one turn -----------------------------------------------------------------------
    def turn(self, table: Table) -> Steps[Turn]:
        """Play one turn on ``table``; :class:`BudgetSpent` when no call is left (a turn
        the budget cut is not counted: nobody played it), :class:`EndpointDown` when a
        call failed (the turn is not counted either, and nothing plays it)."""
        counts = self.counts
        spent = self.budget.spent(counts)
        if spent is not None:
            raise BudgetSpent(spent, Turn([], None))
        counts.turns += 1
        self.turn_open = True
        try:
            view = table.view()
            moves = self.guide.moves(view)
            ask = self.prompt(table, view, moves)
            note: JSON = {"replies": [], "calls": []}
            results: list[StepResult] = []
            reason = ""
            for attempt in range(2):
                try:
                    answer = yield from self.call(ask, Turn(results, note))
                except BudgetSpent as spent:
                    counts.turns -= 1
                    note["budget"] = spent.budget
                    raise
                if answer.text is None:
                    counts.turns -= 1
                    raise EndpointDown(
                        f"a call failed after the client's retries ({answer.failure}); the "
                        "episode stopped with its turns kept (run again to resume it)"
                    )
                tried = self.play(table, answer, note, results)
                note["calls"].append(answer.record(tried.outcome))
                if tried.reason is None:
                    counts.modelTurns += 1
                    note["played"] = MODEL
                    done = f"you played {_short(tried.played)}: {_effects(results)}"
                    self._remember(f"{done}; {tried.problems}" if tried.problems else done)
                    self.turn_open = False
                    yield from self.reflect()
                    return self._noted(Turn(results, note))
                reason = tried.reason
                if attempt == 0:
                    counts.retries += 1
                    note["retried"] = True
                    ask = self.retry(ask, answer, reason, moves)
            turn = self.fall_back(table, view, reason, note, results)
            self.turn_open = False
            yield from self.reflect()
            return self._noted(turn)
        finally:
            self.turn_open = False

    def abandon(self) -> None:
        """The turn under way was cut from outside the seat (an Inspect limit stopped its
        call): like a turn a budget cut, it is no turn."""
        if self.turn_open:
            self.counts.turns -= 1
            self.turn_open = False

    def _noted(self, turn: Turn) -> Turn:
        assert turn.note is not None
        turn.note["memory"] = self.memory()
        return turn

    def prompt(self, table: Table, view: JSON, moves: list[Any]) -> Ask:
        """The turn's request: the system prompt and the board, notes, history and moves."""
        settings = self.settings
        recent = list(self.history)[-settings.memory :] if settings.memory else []
        text = turn_prompt(self.guide, view, moves, self.counts.turns, self.notes, recent)
        schema = reply_schema(self.guide, moves, self.guide.plan_moves(view))
        return Ask(
            messages=[
                {"role": "system", "content": self.system},
                {"role": "user", "content": self._content(text, table)},
            ],
            response_format=named_schema(settings, REPLY_NAME, schema),
            schema=schema,
            purpose="turn",
        )

    def _content(self, text: str, table: Table) -> str | list[JSON]:
        if not self.settings.vision:
            return text
        from playbench.agents.picture import Pictures

        match = table.match
        if match is None:
            raise AgentError("--vision draws the game's state, which only an in-process game has")
        if self.pictures is None:
            self.pictures = Pictures(self.game, match.options)
        url = self.pictures.data_url(match.state)
        return [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": url}}]

    def call(self, ask: Ask, unfinished: Turn | None = None) -> Steps[Answer]:
        """One call: refused with :class:`BudgetSpent` when the budget is spent, else
        asked of whoever drives the seat and counted."""
        spent = self.budget.spent(self.counts)
        if spent is not None:
            raise BudgetSpent(spent, unfinished or Turn([], None))
        counts = self.counts
        answer = yield ask
        counts.transientRetries += answer.retried
        if answer.text is None:
            counts.errors += 1
            return answer
        counts.calls += 1
        counts.seconds += answer.latency
        counts.queueSeconds += answer.queued
        counts.promptTokens += answer.prompt_tokens
        counts.completionTokens += answer.completion_tokens
        return answer

    def read(self, answer: Answer, note: JSON) -> Any:
        """The reply's reading and moves; :class:`ReplyError` when it has none to play."""
        assert answer.text is not None
        note["replies"].append(answer.text[:MAX_KEPT_REPLY])
        reading = read_reply(answer.text)
        read = reply_moves(reading.reply, self.guide)
        if reading.repaired:
            self.counts.repaired += 1
            note["repaired"] = True
        if reading.cut:
            self.counts.cut += 1
            note["cut"] = True
        if read.say:
            note["say"] = read.say
        return reading, read

    def play(self, table: Table, answer: Answer, note: JSON, results: list[StepResult]) -> Attempt:
        """Read one reply and play it; the reason it was not used, or None."""
        counts = self.counts
        try:
            reading, read = self.read(answer, note)
        except ReplyError as failure:
            counts.parseFailures += 1
            what = "does not parse" if isinstance(failure, ReplyUnreadable) else "is not usable"
            return Attempt(f"the reply {what}: {failure}", PARSE_FAILURE)
        raw_key = self.guide.raw_key
        if raw_key is not None:
            # the game reads the reply itself: the object's text, at most 4096 bytes
            result = table.play({raw_key: reading.text})
            results.append(result)
            if not result.ok:
                counts.refused += 1
                return Attempt(f"the game refused the reply: {result.reason}", REFUSED)
            if self.guide.fell_back(table.view()):
                return Attempt("the game's own fallback played the reply's turn", REFUSED)
            self.notes = read.notes
            return Attempt(None, PARSED, read.moves)
        tried = table.commands(read.moves)
        results.extend(tried)
        if not tried or not tried[0].ok:
            counts.refused += 1
            why = tried[0].reason if tried else "the game is over"
            return Attempt(f"the first move {read.moves[0]!r} was refused: {why}", REFUSED)
        if not any(result.advanced for result in tried):
            counts.refused += 1
            return Attempt("the reply made no move of the game", REFUSED)
        self.notes = read.notes
        problems = _problems(read.moves, tried, read.dropped, read.over_cap)
        return Attempt(None, PARSED, read.moves[: len(tried)], problems)

    def retry(self, ask: Ask, answer: Answer, reason: str, moves: list[Any]) -> Ask:
        """The request again, with the reply, why it was not used and the legal moves."""
        stopped = self.settings.max_tokens if answer.cut else None
        messages = [
            *ask.messages,
            {"role": "assistant", "content": answer.text or ""},
            {"role": "user", "content": retry_prompt(reason, stopped, moves)},
        ]
        return Ask(messages, ask.response_format, ask.schema, "retry")

    def fall_back(
        self, table: Table, view: JSON, reason: str, note: JSON, results: list[StepResult]
    ) -> Turn:
        """The fallback plays the turn; the model is told so next turn. A turn the game's
        own fallback already played (its reply refused twice) is that fallback's."""
        self.counts.fallbacks += 1
        note["played"] = self.fallback
        note["fallback"] = True
        if results and self.guide.fell_back(table.view()):
            self._remember(f"your reply was not used ({reason}); the {self.fallback} played")
            return Turn(results, note)
        if self.fallback == WAIT and self.guide.wait_move is not None:
            move = self.guide.wait_move
            results.extend(table.commands([move]))
        else:
            if self.stand_in is None:
                maker = BotAgent if self.fallback == BOT else RandomAgent
                self.stand_in = maker(self.game)
                self.stand_in.reset(self.seed)
            action = self.stand_in.act(view)
            result = table.play(action)
            results.append(result)
            move = _action_text(self.game, action) if result.ok else repr(action)
        self._remember(f"your reply was not used ({reason}); the {self.fallback} played {move}")
        return Turn(results, note)

    def _remember(self, line: str) -> None:
        self.history.append(f"- turn {self.counts.turns}: {line}")

    def reflect(self) -> Steps[None]:
        """Every ``reflect`` turns, the model rewrites its notes from what happened (not
        when the budget has no call left)."""
        every = self.settings.reflect
        if not every or self.counts.turns % every or self.budget.spent(self.counts):
            return
        history = list(self.history)[-every:]
        schema = NOTES_SCHEMA
        ask = Ask(
            [
                {"role": "system", "content": self.system},
                {"role": "user", "content": reflect_prompt(self.notes, history)},
            ],
            named_schema(self.settings, "notes", schema),
            schema,
            "reflect",
        )
        answer = yield from self.call(ask)
        if answer.text is None:
            return
        self.counts.reflections += 1
        try:
            notes = read_reply(answer.text).reply.get("notes")
        except ReplyError:
            self.counts.parseFailures += 1
            return
        if isinstance(notes, str):
            self.notes = notes[:MAX_NOTES]

    def review(self, view: JSON) -> Steps[tuple[int, str]]:
        """The model rates the game it just played; the neutral rating when its answer is
        no such object."""
        schema = REVIEW_SCHEMA
        ask = Ask(
            [
                {"role": "system", "content": self.system},
                {"role": "user", "content": REVIEW_PROMPT.format(score=view["score"])},
            ],
            named_schema(self.settings, "review", schema),
            schema,
            "review",
        )
        try:
            answer = yield from self.call(ask)
        except BudgetSpent:
            return NEUTRAL_RATING, ""
        if answer.text is None:
            return NEUTRAL_RATING, ""
        try:
            reply = read_reply(answer.text).reply
        except ReplyError:
            self.counts.parseFailures += 1
            return NEUTRAL_RATING, ""
        rating, review = reply.get("rating"), reply.get("review")
        if type(rating) is not int or not 1 <= rating <= 10:
            rating = NEUTRAL_RATING
        return rating, review[:MAX_REVIEW] if isinstance(review, str) else ""


def drive(steps: Steps[T], call: Callable[[Ask], Answer]) -> T:
    """Run a seat's steps, answering each ask with ``call``."""
    try:
        ask = next(steps)
        while True:
            ask = steps.send(call(ask))
    except StopIteration as done:
        return done.value


async def drive_async(steps: Steps[T], call: Callable[[Ask], Awaitable[Answer]]) -> T:
    """Run a seat's steps, awaiting ``call`` for each ask (Inspect's model API)."""
    try:
        ask = next(steps)
        while True:
            ask = steps.send(await call(ask))
    except StopIteration as done:
        return done.value


def _short(moves: list[Any]) -> str:
    return json.dumps(moves, separators=(",", ":"))


def _effects(results: list[StepResult]) -> str:
    """What the played moves did: the score gained and the events, cut short."""
    gained = sum(result.reward for result in results if result.ok)
    events = [event for result in results for event in result.events]
    return f"+{gained} {event_text(events)}"


def _action_text(game: Game, action: Any) -> str:
    try:
        return repr(game.command_text(action))
    except CommandError:
        return _short([action])


def _problems(moves: list[Any], tried: list[StepResult], dropped: list[JSON], over_cap: int) -> str:
    """What of a played reply did not happen, for the model's next turn."""
    parts = []
    for move, result in zip(moves, tried, strict=False):
        if not result.ok:
            parts.append(f"{move!r} refused: {result.reason}")
    left = moves[len(tried) :]
    if left:
        stop = "the game ended" if tried[-1].ok else "the refusal"
        parts.append(f"dropped after {stop}: {', '.join(repr(m) for m in left)}")
    for entry in dropped:
        parts.append(f"entry {entry['index']} dropped: {entry['reason']}")
    if over_cap:
        parts.append(f"{over_cap} move(s) past the cap of 10 dropped unread")
    return "; ".join(parts)
