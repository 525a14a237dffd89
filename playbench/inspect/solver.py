"""The seat as an Inspect solver: a sample's episode played turn by turn through the seat
of ``playbench run --agent llm`` (:class:`playbench.agents.llm.Seat`: its prompts, reply
schema, repair, retry and fallback), each call made with Inspect's model API, so every
Inspect provider, limit, retry and concurrency setting applies.

The conversation (``state.messages``) is the transcript of the episode: each turn's
message (the board as the model saw it, its notes, what happened, the legal moves) and
each reply, and an info event per turn says what was played and by whom. Inspect's
``--message-limit`` and ``--token-limit`` count them; a limit, or a budget of the suite
(``maxTurns``, ``maxTokens``), ends the episode ``truncated`` and ``budget`` names it, as
in a run's records (``messageLimit``, ``tokenLimit``, ... for Inspect's limits); its
``maxSteps`` ends it ``truncated`` unnamed, as in a run. A call that fails after
Inspect's retries fails the sample (``inspect eval-retry`` plays it again), never handed
silently to the fallback.

The episode goes to the sample's store (:data:`~playbench.runner.inspect_log.STORE_KEY`)
as it is played, for the scorer and for ``playbench import``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from playbench.agents.base import AgentError
from playbench.agents.llm import Answer, Ask, Budget, BudgetSpent, Seat, SeatSettings, drive_async
from playbench.agents.llm.prompts import REPLY_FORMATS, SCHEMA_IN_JSON_OBJECT, SCHEMA_IN_JSON_SCHEMA
from playbench.agents.llm.settings import FALLBACKS, MAX_MEMORY, check_fallback
from playbench.agents.picture import check_vision
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.inspect.dataset import TaskArgumentError
from playbench.inspect.endpoint import request_config
from playbench.runner.episode import LocalTable
from playbench.runner.inspect_log import STORE_KEY, episode_replay
from playbench.runner.suite import HARNESS_FIELDS


def seat_settings(base: SeatSettings, harness: JSON) -> SeatSettings:
    """The task's seat settings with a suite game's harness settings applied (those the
    seat takes: ``maxTokens``, ``memory``, ``reflect``, ...)."""
    names = {field.name for field in dataclasses.fields(base)}
    found = {HARNESS_FIELDS[key]: value for key, value in harness.items() if key in HARNESS_FIELDS}
    return dataclasses.replace(base, **{key: value for key, value in found.items() if key in names})


def checked_settings(
    reply_format: str,
    fallback: str,
    memory: int,
    reflect: int,
    vision: bool,
    max_tokens: int | None = None,
    games: Sequence[Game] = (),
    schema_in: str = SCHEMA_IN_JSON_SCHEMA,
) -> SeatSettings:
    """The seat's settings from task arguments; :class:`TaskArgumentError` naming the
    argument a run cannot use (for any of ``games``: a ``wait`` fallback, a picture)."""
    if reply_format not in REPLY_FORMATS:
        raise TaskArgumentError(
            f"reply_format must be one of {', '.join(REPLY_FORMATS)}, got {reply_format!r}"
        )
    if fallback not in FALLBACKS:
        raise TaskArgumentError(f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
    if type(memory) is not int or not 0 <= memory <= MAX_MEMORY:
        raise TaskArgumentError(f"memory must be 0 to {MAX_MEMORY} turns, got {memory!r}")
    if type(reflect) is not int or reflect < 0:
        raise TaskArgumentError(f"reflect must be 0 (off) or more turns, got {reflect!r}")
    if max_tokens is not None and (type(max_tokens) is not int or max_tokens < 1):
        raise TaskArgumentError(f"max_tokens must be at least 1, got {max_tokens!r}")
    if schema_in not in (SCHEMA_IN_JSON_SCHEMA, SCHEMA_IN_JSON_OBJECT):
        raise TaskArgumentError(
            f"schema_in must be {SCHEMA_IN_JSON_SCHEMA} or {SCHEMA_IN_JSON_OBJECT}, "
            f"got {schema_in!r}"
        )
    settings = SeatSettings(
        reply_format=reply_format,
        schema_in=schema_in,
        fallback=fallback,
        memory=memory,
        reflect=reflect,
        vision=bool(vision),
        **({} if max_tokens is None else {"max_tokens": max_tokens}),
    )
    for game in games:
        try:
            check_fallback(settings, game.seat_guide())
            if settings.vision:
                check_vision(game, remote=False)
        except AgentError as error:
            raise TaskArgumentError(str(error).replace("--", "")) from None
    return settings


@solver
def seat(
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
    max_tokens: int | None = None,
    schema_in: str = SCHEMA_IN_JSON_SCHEMA,
) -> Solver:
    """Play the sample's episode through playbench's seat, the model called through
    Inspect (its ``--max-tokens`` unless ``max_tokens`` is given); ``schema_in``: where
    the requests carry the reply's schema (``json_object``: inside a ``json_object``
    format, for an endpoint that takes no other, as the start-up check finds)."""
    base = checked_settings(
        reply_format, fallback, memory, reflect, vision, max_tokens, schema_in=schema_in
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await play(state, base, max_tokens)
        return state

    return solve


async def play(state: TaskState, base: SeatSettings, max_tokens: int | None) -> None:
    """Play ``state``'s episode to its end, a budget or a limit."""
    meta = state.metadata
    game = get_game(meta["game"])
    model = get_model()
    if max_tokens is None and model.config.max_tokens is not None:
        # Inspect's --max-tokens: the limit a reply stopped by it is told
        base = dataclasses.replace(base, max_tokens=model.config.max_tokens)
    settings = seat_settings(base, meta.get("harness") or {})
    budget = Budget(max_turns=meta.get("maxTurns"), max_tokens=meta.get("maxTokens"))
    player = Seat(game, settings, budget=budget)
    player.reset(meta["seed"])
    match = Match.start(game, meta["seed"], meta["options"] or None)
    table = LocalTable(match, meta["maxSteps"])
    # a reply's token limit set here or by the suite's harness, else Inspect's own
    fixed = max_tokens is not None or "maxTokens" in (meta.get("harness") or {})
    config = GenerateConfig(max_tokens=settings.max_tokens) if fixed else GenerateConfig()
    episode = Episode(state, match, table, str(model))

    async def call(ask: Ask) -> Answer:
        return await ask_model(state, model, ask, config)

    try:
        while not table.over:
            before = len(table.lines)
            try:
                turn = await drive_async(player.turn(table), call)
            except BudgetSpent as spent:
                # what the unfinished turn played stays in the replay
                episode.budget = spent.budget
                episode.file(before, spent.turn.note)
                break
            episode.turn(before, turn.note, player)
    except LimitExceededError as limit:
        # Inspect's limit ends the episode as a budget would: named, its lines kept, the
        # turn it cut no turn
        player.abandon()
        episode.budget = f"{limit.type}Limit"
        raise
    finally:
        episode.close()
        episode.store(player.counts.as_json())


class Episode:
    """The episode as it is played: its replay lines and turn notes, kept in the store."""

    def __init__(self, state: TaskState, match: Match, table: LocalTable, model: str) -> None:
        self.state = state
        self.match = match
        self.table = table
        self.model = model
        self.pending: list[JSON] = []
        #: the budget or Inspect limit that ended the episode, else None
        self.budget: str | None = None
        self.turns = 0

    def file(self, before: int, note: JSON | None) -> None:
        """File a turn's note on the first line it applied (or the next turn's)."""
        lines = self.table.lines
        if note:
            self.pending.append(note)
        if self.pending and len(lines) > before:
            lines[before].setdefault("turns", []).extend(self.pending)
            self.pending = []

    def close(self) -> None:
        """At the episode's end, the notes of turns that applied nothing (a turn the
        budget cut after its call) go on the last line, as a run keeps them."""
        lines = self.table.lines
        if self.pending and lines:
            lines[-1].setdefault("turns", []).extend(self.pending)
            self.pending = []

    def turn(self, before: int, note: JSON | None, player: Seat) -> None:
        """One turn played: its note filed, what it did said, the store brought up to it."""
        self.turns += 1
        self.file(before, note)
        lines = self.table.lines
        played = [line["action"] for line in lines[before:]]
        who = (note or {}).get("played", "?")
        transcript().info(
            f"**Turn {self.turns}** · played by {who} · score {self.match.score}\n\n"
            f"moves: `{_moves_text(self.match, played)}`",
            source="playbench",
        )
        self.store(player.counts.as_json())

    def store(self, counts: JSON) -> None:
        self.state.store.set(
            STORE_KEY,
            {
                "replay": episode_replay(self.match, self.table.lines, self.model, self.budget),
                "llm": counts,
                "budget": self.budget,
            },
        )


def _moves_text(match: Match, actions: list[Any]) -> str:
    if not actions:
        return "(none applied)"
    game = match.game
    texts = []
    for action in actions:
        try:
            texts.append(game.command_text(action))
        except PlaybenchError:
            texts.append(str(action))
    return ", ".join(texts)


async def ask_model(state: TaskState, model: Any, ask: Ask, config: GenerateConfig) -> Answer:
    """One of the seat's calls through Inspect's model; the conversation gets what was
    asked that it does not hold yet and the reply."""
    messages = [_message(message) for message in ask.messages]
    _log_asked(state, messages)
    config = config.merge(request_config(ask))
    started = time.perf_counter()
    output: ModelOutput = await model.generate(messages, config=config)
    waited = time.perf_counter() - started
    # the request's own time as Inspect measures it (the request that answered); the
    # rest of the call is its queueing: Inspect's wait for a connection slot, its retries
    # and its own handling of the call
    latency = output.time if output.time is not None else waited
    text = output.completion
    state.messages.append(ChatMessageAssistant(content=text, model=model.name))
    usage = output.usage
    return Answer(
        text=text,
        prompt_tokens=usage.input_tokens if usage is not None else 0,
        completion_tokens=usage.output_tokens if usage is not None else 0,
        latency=latency,
        queued=max(0.0, waited - latency),
        cut=output.stop_reason == "max_tokens",
    )


def _log_asked(state: TaskState, messages: list[ChatMessage]) -> None:
    """Append to the conversation the messages of a call after its last reply (the
    turn's message, a retry's): the system prompt only once."""
    fresh: list[ChatMessage] = []
    for message in reversed(messages):
        if isinstance(message, ChatMessageAssistant):
            break
        fresh.append(message)
    fresh.reverse()
    held_system = any(isinstance(message, ChatMessageSystem) for message in state.messages)
    for message in fresh:
        if isinstance(message, ChatMessageSystem):
            if held_system:
                continue
            state.messages.insert(0, message)
            held_system = True
        else:
            state.messages.append(message)


def _message(message: JSON) -> ChatMessage:
    """An OpenAI chat message as Inspect's."""
    role, content = message["role"], message["content"]
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=_content(content))


def _content(content: str | list[JSON]) -> str | list[Content]:
    if isinstance(content, str):
        return content
    parts: list[Content] = []
    for part in content:
        if part["type"] == "image_url":
            parts.append(ContentImage(image=part["image_url"]["url"]))
        else:
            parts.append(ContentText(text=part["text"]))
    return parts
