"""``llm``: a language model on any OpenAI-compatible endpoint, through the official
``openai`` client (chat completions), playing the seat protocol (:mod:`.seat`).

Each turn the model gets the system prompt (the game's spec and the reply format) and
one message with the view, what its last reply did and its notes. A reply that does
not parse, or whose first command is refused, is retried once with the reason; after a
second failure the game's bot plays the turn (Cogcrawl reads, retries and falls back
by its own rules; this agent sends it the raw text). A call that times out or fails
counts as an error and the bot plays the turn at once: an episode never dies of a call.

Every call is recorded (latency, prompt and completion tokens, outcome) in the turn's
note, which the runner writes into the replay, and summed per episode
(:meth:`LlmAgent.stats`). The API key is read from the environment when the client is
made and is never written anywhere.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass

import httpx
import openai

from playbench.agents.base import NEUTRAL_RATING, Agent, AgentError, Table, Turn
from playbench.agents.bot import BotAgent
from playbench.agents.seat import (
    SEAT_REPLY_GAMES,
    ParseFailure,
    event_text,
    read_commands_reply,
    read_limit,
    retry_prompt,
    say_of,
    system_prompt,
    turn_prompt,
)
from playbench.core.game import JSON, Game
from playbench.core.match import StepResult
from playbench.games.cogcrawl.protocol import RAW_KEY, parse_raw

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_MAX_TOKENS = 1024
DEFAULT_TIMEOUT = 60.0
DEFAULT_TEMPERATURE = 0.0
#: a call's outcome, as recorded
PARSED = "parsed"
REFUSED = "refused"
PARSE_FAILURE = "parse_failure"
TIMEOUT = "timeout"
ERROR = "error"
REVIEW_PROMPT = (
    "The game is over (final score {score}). Rate the game from 1 to 10 and review it in "
    'a sentence or two. Reply with one JSON object and nothing else: {{"rating": <1-10>, '
    '"review": "<text>"}}'
)
MAX_REVIEW = 2000
#: the reason of a seat attempt after which the game itself played the turn
GAME_FELL_BACK = "the game's bot played the turn"


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """How to reach the model: picklable, holds the key's variable name, never the key."""

    model: str
    base_url: str | None = None
    api_key_env: str = DEFAULT_KEY_ENV
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = DEFAULT_TIMEOUT

    def describe(self) -> JSON:
        """What a run records about the model (no key)."""
        return {
            "model": self.model,
            "baseUrl": self.base_url,
            "apiKeyEnv": self.api_key_env,
            "temperature": self.temperature,
            "maxTokens": self.max_tokens,
            "timeout": self.timeout,
        }


def make_client(settings: LlmSettings) -> openai.OpenAI:
    """The client for ``settings``; :class:`AgentError` when the key is not set. The
    client never retries on its own, so every call is counted here."""
    key = os.environ.get(settings.api_key_env)
    if not key:
        raise AgentError(
            f"no API key: set {settings.api_key_env} "
            "(or name the variable that holds it with --api-key-env)"
        )
    return openai.OpenAI(
        api_key=key, base_url=settings.base_url, timeout=settings.timeout, max_retries=0
    )


def check_endpoint(settings: LlmSettings) -> None:
    """Ask the endpoint for its models once: :class:`AgentError` in one line when the key
    is missing, the endpoint cannot be reached or it refuses the key."""
    client = make_client(settings)
    try:
        client.models.list()
    except openai.AuthenticationError:
        raise AgentError(f"the endpoint {client.base_url} refused the API key (401)") from None
    except openai.APIConnectionError as error:
        raise AgentError(f"cannot reach the endpoint {client.base_url}: {error}") from None
    except openai.APIStatusError:
        # it answered: an endpoint without a model list is still an endpoint
        return
    finally:
        client.close()


@dataclass(slots=True)
class LlmCounts:
    """One episode's calls, as ``runs.jsonl`` reports them."""

    calls: int = 0
    promptTokens: int = 0
    completionTokens: int = 0
    parseFailures: int = 0
    retries: int = 0
    fallbacks: int = 0
    errors: int = 0
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

    def record(self, outcome: str) -> JSON:
        data: JSON = {
            "outcome": outcome,
            "latency": round(self.latency, 4),
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
        }
        if self.failure:
            data["error"] = self.failure
        return data


class LlmAgent(Agent):
    """A model on an OpenAI-compatible endpoint, with the game's bot as its fallback."""

    name = "llm"

    def __init__(self, game: Game, settings: LlmSettings) -> None:
        super().__init__(game)
        self.settings = settings
        self.seed = 0
        #: the game's bot for this episode, made at the episode's first fallback
        self.bot: BotAgent | None = None
        self.seat_reply = game.slug in SEAT_REPLY_GAMES
        self.system = system_prompt(game)
        self.client = make_client(settings)
        self.counts = LlmCounts()
        self.notes = ""
        self.report = ""

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.bot = None
        self.counts = LlmCounts()
        self.notes = ""
        self.report = ""

    def stats(self) -> JSON:
        data = asdict(self.counts)
        data["seconds"] = round(data["seconds"], 4)
        return data

    def close(self) -> None:
        self.client.close()

    # -- one turn ---------------------------------------------------------------------
    def turn(self, table: Table) -> Turn:
        view = table.view()
        notes = None if self.seat_reply else self.notes
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": turn_prompt(view, self.report, notes)},
        ]
        note: JSON = {"replies": [], "calls": []}
        results: list[StepResult] = []
        for attempt in range(2):
            call = self._call(messages)
            if call.text is None:
                note["calls"].append(call.record(TIMEOUT if call.timed_out else ERROR))
                self.counts.errors += 1
                reason = f"the call failed ({call.failure})"
                break
            note["replies"].append(read_limit(call.text))
            if self.seat_reply:
                reason = self._seat_attempt(table, call, attempt, note, results)
            else:
                reason = self._commands_attempt(table, call, note, results)
            if reason is None:
                return Turn(results, note)
            if reason is GAME_FELL_BACK:
                # the game read two failures and played the turn with its own bot
                self.counts.fallbacks += 1
                note["fallback"] = True
                return Turn(results, note)
            if attempt == 0:
                self.counts.retries += 1
                note["retried"] = True
                messages.append({"role": "assistant", "content": call.text})
                messages.append({"role": "user", "content": retry_prompt(reason)})
        return self._fall_back(table, reason, note, results)

    def _seat_attempt(
        self, table: Table, call: Call, attempt: int, note: JSON, results: list[StepResult]
    ) -> str | None:
        """Send the raw reply to the game; the reason it was not read, or None."""
        # the game reads the first 4096 bytes: only those are sent
        result = table.play({RAW_KEY: read_limit(call.text or "")})
        results.append(result)
        if result.ok and attempt == 1 and table.view()["observation"].get("fallback"):
            self.counts.parseFailures += 1
            note["calls"].append(call.record(PARSE_FAILURE))
            return GAME_FELL_BACK
        if result.ok:
            note["calls"].append(call.record(PARSED))
            note["say"] = say_of(call.text)
            return None
        self.counts.parseFailures += 1
        note["calls"].append(call.record(PARSE_FAILURE))
        return result.reason

    def _commands_attempt(
        self, table: Table, call: Call, note: JSON, results: list[StepResult]
    ) -> str | None:
        """Read the reply and play its commands; the reason it was not used, or None."""
        try:
            reply = read_commands_reply(call.text or "")
        except ParseFailure as failure:
            self.counts.parseFailures += 1
            note["calls"].append(call.record(PARSE_FAILURE))
            return f"the reply does not parse: {failure}"
        if not reply.commands:
            note["calls"].append(call.record(REFUSED))
            return "the reply has no commands"
        tried = table.commands(reply.commands)
        results.extend(tried)
        first = tried[0]
        if not first.ok:
            note["calls"].append(call.record(REFUSED))
            return f"the first command {reply.commands[0]!r} was refused: {first.reason}"
        note["calls"].append(call.record(PARSED))
        note["say"] = reply.say
        self.notes = reply.notes
        self.report = _report(reply.commands, tried, reply.dropped, reply.over_cap)
        return None

    def _fall_back(self, table: Table, reason: str, note: JSON, results: list[StepResult]) -> Turn:
        """The game's bot plays the turn; the model is told so next turn."""
        self.counts.fallbacks += 1
        note["fallback"] = True
        if self.bot is None:
            self.bot = BotAgent(self.game)
            self.bot.reset(self.seed)
        action = self.bot.act(table.view())
        result = table.play(action)
        results.append(result)
        if not self.seat_reply:
            played = self.game.command_text(action) if result.ok else repr(action)
            self.report = f"not used ({reason}); the bot played {played!r} instead."
        return Turn(results, note)

    # -- the endpoint -------------------------------------------------------------------
    def _call(self, messages: list[JSON]) -> Call:
        self.counts.calls += 1
        start = time.perf_counter()
        try:
            response = self.client.chat.completions.create(
                model=self.settings.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens,
            )
        except openai.APITimeoutError:
            return self._failed(start, f"timed out after {self.settings.timeout:g} s", True)
        except (openai.OpenAIError, httpx.HTTPError) as error:
            return self._failed(start, _one_line(error), False)
        latency = time.perf_counter() - start
        self.counts.seconds += latency
        usage = response.usage
        prompt = usage.prompt_tokens if usage is not None else 0
        completion = usage.completion_tokens if usage is not None else 0
        self.counts.promptTokens += prompt
        self.counts.completionTokens += completion
        choices = response.choices or []
        text = choices[0].message.content if choices else None
        return Call(
            text=text or "",
            latency=latency,
            prompt_tokens=prompt,
            completion_tokens=completion,
        )

    def _failed(self, start: float, failure: str, timed_out: bool) -> Call:
        latency = time.perf_counter() - start
        self.counts.seconds += latency
        return Call(text=None, latency=latency, failure=failure, timed_out=timed_out)

    def review(self, view: JSON) -> tuple[int, str]:
        """Ask the model to rate the game it just played; the neutral rating when its
        answer is no such object."""
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": REVIEW_PROMPT.format(score=view["score"])},
        ]
        call = self._call(messages)
        if call.text is None:
            self.counts.errors += 1
            return NEUTRAL_RATING, ""
        try:
            reply = parse_raw(call.text)
        except ParseFailure:
            self.counts.parseFailures += 1
            return NEUTRAL_RATING, ""
        rating, review = reply.get("rating"), reply.get("review")
        if type(rating) is not int or not 1 <= rating <= 10:
            rating = NEUTRAL_RATING
        return rating, review[:MAX_REVIEW] if isinstance(review, str) else ""


def _report(
    commands: list[str], tried: list[StepResult], dropped: list[JSON], over_cap: int
) -> str:
    """What a reply's commands did, for the model's next turn."""
    parts = []
    for command, result in zip(commands, tried, strict=False):
        if result.ok:
            parts.append(f"{command!r} applied (+{result.reward}) {event_text(result.events)}")
        else:
            parts.append(f"{command!r} refused: {result.reason}")
    left = commands[len(tried) :]
    if left:
        stop = "the game ended" if tried[-1].ok else "the refusal"
        parts.append(f"dropped after {stop}: {', '.join(repr(c) for c in left)}")
    for entry in dropped:
        parts.append(f"entry {entry['index']} dropped: {entry['reason']}")
    if over_cap:
        parts.append(f"{over_cap} command(s) past the cap of 10 dropped unread")
    return "; ".join(parts)


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300]
