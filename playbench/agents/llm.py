"""``llm``: a language model on any OpenAI-compatible endpoint, through the official
``openai`` client (chat completions), playing the seat protocol (:mod:`.seat`).

Each turn the model gets the system prompt (the game's play rules, the reply's form and
an example) and one message: the board, its notes, what happened and the legal moves in
the reply's exact form; with ``vision`` also the board's picture. Its reply is read with
repair and played. A reply that cannot be read or played is retried once with the
reason; after a second failure the fallback plays the turn (``bot``, ``random`` or
``wait``; a game whose seat rules name their own, Cogcrawl's delver, keeps it).

Transient failures (429, 5xx, timeouts, a dropped connection) are retried by the client
with bounded exponential backoff that honours ``Retry-After`` (``retries`` times), and
counted; a call that still fails is an error and the fallback plays the turn at once.

Every turn records who played it (``played``: ``model`` or the fallback) and whether
the reply was ``repaired`` or ``retried``; every call its latency, tokens and outcome.
They go into the replay, and the counts per episode into ``runs.jsonl``
(:meth:`LlmAgent.stats`). The API key is read from the environment when the client is
made and is never written anywhere.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import openai

from playbench.agents.base import NEUTRAL_RATING, Agent, AgentError, ScriptedAgent, Table, Turn
from playbench.agents.bot import BotAgent
from playbench.agents.random_agent import RandomAgent
from playbench.agents.seat import (
    JSON_OBJECT,
    JSON_SCHEMA,
    NOTES_SCHEMA,
    REPLY_FORMATS,
    REVIEW_PROMPT,
    REVIEW_SCHEMA,
    SCHEMA_IN_JSON_OBJECT,
    SCHEMA_IN_JSON_SCHEMA,
    TEXT,
    ReplyUnreadable,
    ReplyUnusable,
    event_text,
    named_schema,
    read_limit,
    read_reply,
    reflect_prompt,
    reply_moves,
    response_format,
    retry_prompt,
    system_prompt,
    turn_prompt,
)
from playbench.core.errors import CommandError
from playbench.core.game import JSON, Game
from playbench.core.match import StepResult
from playbench.core.seat import MAX_NOTES, SeatGuide

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_MAX_TOKENS = 1024
DEFAULT_TIMEOUT = 60.0
DEFAULT_TEMPERATURE = 0.0
#: transient failures retried per call, with the client's backoff (0.5 s doubling to
#: 8 s, or the server's Retry-After up to 2 minutes)
DEFAULT_RETRIES = 4
MAX_RETRIES = 10
#: what plays a turn the model failed twice
BOT = "bot"
RANDOM = "random"
WAIT = "wait"
FALLBACKS = (BOT, RANDOM, WAIT)
DEFAULT_FALLBACK = BOT
DEFAULT_REPLY_FORMAT = JSON_SCHEMA
#: the turns of history in the prompt by default: what the last turn did
DEFAULT_MEMORY = 1
MAX_MEMORY = 50
MAX_TEMPERATURE = 2.0
#: who played a turn, as a turn's note says
MODEL = "model"
#: a call's outcome, as recorded
PARSED = "parsed"
REFUSED = "refused"
PARSE_FAILURE = "parse_failure"
TIMEOUT = "timeout"
ERROR = "error"
MAX_REVIEW = 2000
#: what the start-up check asks (one token back)
PING = [{"role": "user", "content": "Reply with OK."}]


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """How to reach the model and the harness it plays in: picklable, holds the key's
    variable name, never the key."""

    model: str
    base_url: str | None = None
    api_key_env: str = DEFAULT_KEY_ENV
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    reply_format: str = DEFAULT_REPLY_FORMAT
    fallback: str = DEFAULT_FALLBACK
    memory: int = DEFAULT_MEMORY
    reflect: int = 0
    vision: bool = False
    #: where a ``json_schema`` reply format puts the schema (the start-up check finds
    #: the form the endpoint takes)
    schema_in: str = SCHEMA_IN_JSON_SCHEMA

    def check(self) -> None:
        """:class:`AgentError` in one line for a setting no run can use."""
        if not self.model.strip():
            raise AgentError("--model must name a model")
        if self.base_url is not None:
            parts = urlsplit(self.base_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise AgentError(
                    f"--base-url {self.base_url!r} is no http(s) URL: write it with its "
                    "scheme, e.g. http://127.0.0.1:8080/v1"
                )
        if self.max_tokens < 1:
            raise AgentError(f"--max-tokens must be at least 1, got {self.max_tokens}")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise AgentError(f"--timeout must be more than 0 seconds, got {self.timeout:g}")
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            raise AgentError(
                f"--temperature must be between 0 and {MAX_TEMPERATURE:g}, got {self.temperature:g}"
            )
        if not 0 <= self.retries <= MAX_RETRIES:
            raise AgentError(f"--retries must be 0 to {MAX_RETRIES}, got {self.retries}")
        if self.reply_format not in REPLY_FORMATS:
            raise AgentError(
                f"--reply-format must be one of {', '.join(REPLY_FORMATS)}, got "
                f"{self.reply_format!r}"
            )
        if self.fallback not in FALLBACKS:
            raise AgentError(
                f"--fallback must be one of {', '.join(FALLBACKS)}, got {self.fallback!r}"
            )
        if not 0 <= self.memory <= MAX_MEMORY:
            raise AgentError(f"--memory must be 0 to {MAX_MEMORY} turns, got {self.memory}")
        if self.reflect < 0:
            raise AgentError(f"--reflect must be 0 (off) or more turns, got {self.reflect}")

    def describe(self) -> JSON:
        """What a run records about the model (no key)."""
        return {
            "model": self.model,
            "baseUrl": self.base_url,
            "apiKeyEnv": self.api_key_env,
            "temperature": self.temperature,
            "maxTokens": self.max_tokens,
            "timeout": self.timeout,
            "retries": self.retries,
        }

    def harness(self, guide: SeatGuide) -> JSON:
        """The harness a result was played in, as ``run.json`` names it."""
        return {
            "replyFormat": self.reply_format,
            "schemaIn": self.schema_in,
            "fallback": fallback_of(self, guide),
            "memory": self.memory,
            "reflect": self.reflect,
            "vision": self.vision,
        }


def fallback_of(settings: LlmSettings, guide: SeatGuide) -> str:
    """What plays a failed turn: the game's own rule where it has one, else the run's."""
    return guide.own_fallback or settings.fallback


def check_fallback(settings: LlmSettings, guide: SeatGuide) -> None:
    if fallback_of(settings, guide) == WAIT and guide.wait_move is None:
        raise AgentError(
            f"{guide.game.name} has no move that waits: use --fallback {BOT} or {RANDOM}"
        )


class _Attempts:
    """Counts the HTTP requests the client makes, retries included."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, request: Any) -> None:
        self.count += 1


def make_client(settings: LlmSettings, attempts: _Attempts | None = None) -> openai.OpenAI:
    """The client for ``settings``; :class:`AgentError` when the key is not set. It
    retries transient failures ``settings.retries`` times; ``attempts`` counts requests."""
    key = os.environ.get(settings.api_key_env)
    if not key:
        raise AgentError(
            f"no API key: set {settings.api_key_env} "
            "(or name the variable that holds it with --api-key-env)"
        )
    hooks = {"request": [attempts]} if attempts is not None else {}
    return openai.OpenAI(
        api_key=key,
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=settings.retries,
        http_client=openai.DefaultHttpxClient(event_hooks=hooks),
    )


def check_endpoint(
    settings: LlmSettings, guide: SeatGuide | None = None, view: JSON | None = None
) -> LlmSettings:
    """Ask the model itself for one token, as the first turn of ``view`` would ask it
    (its reply format included): :class:`AgentError` in one line naming the fix when the
    key is missing or refused, the model unknown, the path wrong, the endpoint
    unreachable or still busy after the retries, or the reply format refused.

    With ``json_schema``, an endpoint that refuses OpenAI's form of the schema is asked
    once more with the schema inside a ``json_object`` format (llama-cpp-python's
    server, which refuses the other form with a 500 naming ``response_format``): the
    settings returned say which form it took."""
    settings.check()
    client = make_client(settings)
    try:
        try:
            _ping(client, settings, guide, view)
        except openai.APIStatusError as refused:
            if (
                settings.reply_format != JSON_SCHEMA
                or guide is None
                or not _format_refused(refused)
            ):
                raise
            other = dataclasses.replace(settings, schema_in=SCHEMA_IN_JSON_OBJECT)
            try:
                _ping(client, other, guide, view)
            except openai.APIStatusError as again:
                if not _format_refused(again):
                    raise
                raise refused from None
            return other
    except openai.OpenAIError as error:
        raise AgentError(_check_failure(client, settings, error)) from None
    finally:
        client.close()
    return settings


def _ping(
    client: openai.OpenAI, settings: LlmSettings, guide: SeatGuide | None, view: JSON | None
) -> None:
    fmt = None
    if guide is not None and view is not None:
        fmt = response_format(settings, guide, guide.moves(view))
    extra = {"response_format": fmt} if fmt is not None else {}
    client.chat.completions.create(
        model=settings.model,
        messages=PING,  # type: ignore[arg-type]
        max_tokens=1,
        temperature=settings.temperature,
        **extra,
    )


def _format_refused(error: openai.APIStatusError) -> bool:
    """Whether the endpoint refused the request's form: a 400 or 422, or a server error
    that names ``response_format`` (llama-cpp-python's server answers its validation
    errors with 500)."""
    if isinstance(error, openai.BadRequestError | openai.UnprocessableEntityError):
        return True
    return error.status_code >= 500 and "response_format" in _message(error)


def _check_failure(client: openai.OpenAI, settings: LlmSettings, error: Exception) -> str:
    """The one line that says what the start-up check met, and the fix."""
    where = str(client.base_url).rstrip("/")
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return (
            f"the endpoint {where} refused the API key ({error.status_code}): set "
            f"{settings.api_key_env} to a key it takes (or name another with --api-key-env)"
        )
    if isinstance(error, openai.NotFoundError):
        return _not_found(client, settings, error)
    if isinstance(error, openai.APITimeoutError):
        return (
            f"the endpoint {where} did not answer within {settings.timeout:g} s, "
            f"{settings.retries} retries included: raise --timeout or check the server"
        )
    if isinstance(error, openai.APIConnectionError):
        return f"cannot reach the endpoint {where}: {_one_line(error)}"
    if isinstance(error, openai.APIStatusError) and _format_refused(error):
        fix = ""
        if settings.reply_format != TEXT:
            fix = (
                f"; if it cannot take --reply-format {settings.reply_format}, use "
                f"{JSON_OBJECT if settings.reply_format == JSON_SCHEMA else TEXT}"
            )
        said = f"{error.status_code}: {_message(error)}"
        return f"the endpoint {where} refused the request ({said}){fix}"
    if isinstance(error, openai.RateLimitError | openai.InternalServerError):
        return (
            f"the endpoint {where} stayed busy ({error.status_code}) through "
            f"{settings.retries} retries: try again later or raise --retries"
        )
    if isinstance(error, openai.APIStatusError):
        return f"the endpoint {where} answered {error.status_code}: {_message(error)}"
    return f"the endpoint {where} failed: {_one_line(error)}"


def _not_found(client: openai.OpenAI, settings: LlmSettings, error: openai.NotFoundError) -> str:
    where = str(client.base_url).rstrip("/")
    if error.code == "model_not_found" or "model" in _message(error).lower():
        try:
            served = [model.id for model in client.models.list()][:5]
        except openai.OpenAIError:
            served = []
        known = f" (it serves {', '.join(served)})" if served else ""
        return (
            f"the endpoint {where} has no model {settings.model!r} (404 model_not_found): "
            f"pass --model with one it serves{known}"
        )
    return (
        f"the endpoint answered 404 for {where}/chat/completions: check --base-url "
        "(OpenAI-compatible servers answer under /v1, e.g. http://127.0.0.1:8080/v1)"
    )


@dataclass(slots=True)
class LlmCounts:
    """One episode's turns and calls, as ``runs.jsonl`` reports them."""

    #: agent turns, and those the model's own reply played
    turns: int = 0
    modelTurns: int = 0
    calls: int = 0
    promptTokens: int = 0
    completionTokens: int = 0
    #: replies that did not read, or read but had no moves to play
    parseFailures: int = 0
    #: replies read only after repair (whitespace, a fence, prose around the object)
    repaired: int = 0
    #: replies whose first move the game refused
    refused: int = 0
    retries: int = 0
    fallbacks: int = 0
    #: calls that failed after the client's retries
    errors: int = 0
    #: HTTP retries of transient failures (429, 5xx, timeouts)
    transientRetries: int = 0
    reflections: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Call:
    """One chat completion: the reply text (None when the call failed) and its record."""

    text: str | None
    latency: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failure: str = ""
    timed_out: bool = False
    retried: int = 0

    def record(self, outcome: str) -> JSON:
        data: JSON = {
            "outcome": outcome,
            "latency": round(self.latency, 4),
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
        }
        if self.retried:
            data["transientRetries"] = self.retried
        if self.failure:
            data["error"] = self.failure
        return data


@dataclass(slots=True)
class Attempt:
    """What one reply did on the table: None as ``reason`` when it was played."""

    reason: str | None
    outcome: str
    played: list[Any] = field(default_factory=list)
    #: what of a played reply did not happen (refused or dropped moves)
    problems: str = ""


class LlmAgent(Agent):
    """A model on an OpenAI-compatible endpoint, with a fallback for failed turns."""

    name = "llm"

    def __init__(self, game: Game, settings: LlmSettings) -> None:
        super().__init__(game)
        settings.check()
        self.settings = settings
        self.guide = game.seat_guide()
        check_fallback(settings, self.guide)
        self.fallback = fallback_of(settings, self.guide)
        self.system = system_prompt(self.guide)
        self.attempts = _Attempts()
        self.client = make_client(settings, self.attempts)
        self.seed = 0
        self.stand_in: ScriptedAgent | None = None
        #: the renderer of ``vision``, made at the first picture
        self.pictures: Any = None
        self.counts = LlmCounts()
        self.notes = ""
        self.history: deque[str] = deque(maxlen=max(settings.memory, settings.reflect, 1))

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.stand_in = None
        self.counts = LlmCounts()
        self.notes = ""
        self.history.clear()

    def stats(self) -> JSON:
        data = asdict(self.counts)
        data["seconds"] = round(data["seconds"], 4)
        return data

    def close(self) -> None:
        self.client.close()

    # -- one turn ---------------------------------------------------------------------
    def turn(self, table: Table) -> Turn:
        settings, counts = self.settings, self.counts
        counts.turns += 1
        view = table.view()
        moves = self.guide.moves(view)
        recent = list(self.history)[-settings.memory :] if settings.memory else []
        prompt = turn_prompt(self.guide, view, moves, counts.turns, self.notes, recent)
        messages: list[JSON] = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self._content(prompt, table)},
        ]
        fmt = response_format(settings, self.guide, moves)
        note: JSON = {"replies": [], "calls": []}
        results: list[StepResult] = []
        reason = ""
        for attempt in range(2):
            call = self._call(messages, fmt)
            if call.text is None:
                note["calls"].append(call.record(TIMEOUT if call.timed_out else ERROR))
                counts.errors += 1
                reason = f"the call failed ({call.failure})"
                break
            note["replies"].append(read_limit(call.text))
            tried = self._attempt(table, call.text, note, results)
            note["calls"].append(call.record(tried.outcome))
            if tried.reason is None:
                counts.modelTurns += 1
                note["played"] = MODEL
                done = f"you played {_short(tried.played)}: {_effects(results)}"
                self._remember(f"{done}; {tried.problems}" if tried.problems else done)
                self._reflect()
                return Turn(results, note)
            reason = tried.reason
            if attempt == 0:
                counts.retries += 1
                note["retried"] = True
                messages.append({"role": "assistant", "content": call.text})
                messages.append({"role": "user", "content": retry_prompt(reason)})
        turn = self._fall_back(table, view, reason, note, results)
        self._reflect()
        return turn

    def _content(self, prompt: str, table: Table) -> str | list[JSON]:
        if not self.settings.vision:
            return prompt
        from playbench.agents.picture import Pictures

        match = getattr(table, "match", None)
        if match is None:
            raise AgentError("--vision draws the game's state, which only an in-process game has")
        if self.pictures is None:
            self.pictures = Pictures(self.game, match.options)
        url = self.pictures.data_url(match.state)
        return [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": url}}]

    def _attempt(self, table: Table, text: str, note: JSON, results: list[StepResult]) -> Attempt:
        """Read one reply and play it; the reason it was not used, or None."""
        counts = self.counts
        try:
            reading = read_reply(text)
            read = reply_moves(reading.reply, self.guide)
        except (ReplyUnreadable, ReplyUnusable) as failure:
            counts.parseFailures += 1
            what = "does not parse" if isinstance(failure, ReplyUnreadable) else "is not usable"
            return Attempt(f"the reply {what}: {failure}", PARSE_FAILURE)
        if reading.repaired:
            counts.repaired += 1
            note["repaired"] = True
        if read.say:
            note["say"] = read.say
        raw_key = self.guide.raw_key
        if raw_key is not None:
            # the game reads the reply itself: the object's text, as the model wrote it
            result = table.play({raw_key: reading.text})
            results.append(result)
            if not result.ok:
                counts.refused += 1
                return Attempt(f"the game refused the reply: {result.reason}", REFUSED)
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

    def _fall_back(
        self, table: Table, view: JSON, reason: str, note: JSON, results: list[StepResult]
    ) -> Turn:
        """The fallback plays the turn; the model is told so next turn."""
        self.counts.fallbacks += 1
        note["played"] = self.fallback
        note["fallback"] = True
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

    # -- reflection ---------------------------------------------------------------------
    def _reflect(self) -> None:
        """Every ``reflect`` turns, the model rewrites its notes from what happened."""
        every = self.settings.reflect
        if not every or self.counts.turns % every:
            return
        history = list(self.history)[-every:]
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": reflect_prompt(self.notes, history)},
        ]
        fmt = named_schema(self.settings, "notes", NOTES_SCHEMA)
        call = self._call(messages, fmt)
        self.counts.reflections += 1
        if call.text is None:
            self.counts.errors += 1
            return
        try:
            notes = read_reply(call.text).reply.get("notes")
        except ReplyUnreadable:
            self.counts.parseFailures += 1
            return
        if isinstance(notes, str):
            self.notes = notes[:MAX_NOTES]

    # -- the endpoint -------------------------------------------------------------------
    def _call(self, messages: list[JSON], fmt: JSON | None) -> Call:
        counts = self.counts
        counts.calls += 1
        before = self.attempts.count
        start = time.perf_counter()
        extra = {"response_format": fmt} if fmt is not None else {}
        try:
            response = self.client.chat.completions.create(
                model=self.settings.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens,
                **extra,
            )
        except openai.APITimeoutError:
            failure = f"timed out after {self.settings.timeout:g} s"
            return self._failed(start, before, failure, timed_out=True)
        except (openai.OpenAIError, httpx.HTTPError) as error:
            return self._failed(start, before, _one_line(error), timed_out=False)
        latency = time.perf_counter() - start
        retried = self._retried(before)
        counts.seconds += latency
        usage = response.usage
        prompt = usage.prompt_tokens if usage is not None else 0
        completion = usage.completion_tokens if usage is not None else 0
        counts.promptTokens += prompt
        counts.completionTokens += completion
        choices = response.choices or []
        text = choices[0].message.content if choices else None
        return Call(
            text=text or "",
            latency=latency,
            prompt_tokens=prompt,
            completion_tokens=completion,
            retried=retried,
        )

    def _retried(self, before: int) -> int:
        retried = max(0, self.attempts.count - before - 1)
        self.counts.transientRetries += retried
        return retried

    def _failed(self, start: float, before: int, failure: str, timed_out: bool) -> Call:
        latency = time.perf_counter() - start
        self.counts.seconds += latency
        return Call(
            text=None,
            latency=latency,
            failure=failure,
            timed_out=timed_out,
            retried=self._retried(before),
        )

    def review(self, view: JSON) -> tuple[int, str]:
        """Ask the model to rate the game it just played; the neutral rating when its
        answer is no such object."""
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": REVIEW_PROMPT.format(score=view["score"])},
        ]
        fmt = named_schema(self.settings, "review", REVIEW_SCHEMA)
        call = self._call(messages, fmt)
        if call.text is None:
            self.counts.errors += 1
            return NEUTRAL_RATING, ""
        try:
            reply = read_reply(call.text).reply
        except ReplyUnreadable:
            self.counts.parseFailures += 1
            return NEUTRAL_RATING, ""
        rating, review = reply.get("rating"), reply.get("review")
        if type(rating) is not int or not 1 <= rating <= 10:
            rating = NEUTRAL_RATING
        return rating, review[:MAX_REVIEW] if isinstance(review, str) else ""


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


def _message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error", {}).get("message")
        if isinstance(message, str):
            return " ".join(message.split())[:200]
    return " ".join(str(error).split())[:200]


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300]
