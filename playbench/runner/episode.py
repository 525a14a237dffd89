"""One episode: an agent plays one seed to the end, in-process or on a server.

In-process, the episode is a loop over a :class:`Match` (:class:`LocalTable`): each agent
turn plays on it, and every action that moves the match on becomes a replay line. On a
server, the agent plays a session (:class:`~playbench.agents.remote.RemoteTable`); once
the game is finished and the server has revealed the seed, the commands sent are played
again through a local :class:`Match`, which must agree with every result the server gave
and with its log and fingerprint, and that local match writes the replay.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from playbench.agents import Agent, AgentError, LlmSettings, make_agent
from playbench.agents.llm import Budget, BudgetSpent
from playbench.agents.remote import (
    DEFAULT_HTTP_TIMEOUT,
    PLAYER_KEY_ENV,
    RemoteTable,
    ServerError,
    Session,
)
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.match import Match, StepResult
from playbench.core.registry import get_game
from playbench.runner.journal import Journal, unrecorded
from playbench.runner.ledger import LEDGER
from playbench.runner.outcome import outcome_of
from playbench.runner.replay import header, replay_name

DEFAULT_MAX_STEPS = 100_000
REPLAYS = "replays"
#: the suffix of an unfinished episode's replay, written turn by turn
JOURNAL = ".partial"


@dataclass(frozen=True, slots=True)
class EpisodeSpec:
    """What every episode of a run shares; picklable, so workers and Ray tasks get it."""

    game: str
    agent: str
    llm: LlmSettings | None = None
    options: JSON | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    server: str | None = None
    player: str | None = None
    #: the environment variable that holds the player's key (the key itself is never
    #: written: each worker reads it)
    player_key_env: str = PLAYER_KEY_ENV
    #: a model's budget per episode: calls (``maxTurns``) and tokens (``maxTokens``)
    max_turns: int | None = None
    max_tokens: int | None = None
    #: calls in flight at once in the process that plays the episodes
    concurrency: int | None = None

    @property
    def model(self) -> str | None:
        return self.llm.model if self.llm is not None else None

    @property
    def budget(self) -> JSON:
        """The budgets a run records (only those set)."""
        named = {"maxTurns": self.max_turns, "maxTokens": self.max_tokens}
        return {key: value for key, value in named.items() if value is not None}

    def make_agent(self) -> Agent:
        budget = Budget(self.max_turns, self.max_tokens)
        return make_agent(self.agent, get_game(self.game), self.llm, budget, self.concurrency)


@dataclass(frozen=True, slots=True)
class Task:
    """One episode to play: a seed, or (ranked) the index of a server-drawn one, with the
    episode's own options where it has them (a suite's ``optionsBySeed``) and the file
    its replay is written to turn by turn (``journal``: an unfinished episode there is
    continued from its last recorded turn)."""

    seed: int | None
    index: int = 0
    options: JSON | None = None
    journal: str | None = None

    def options_of(self, spec: EpisodeSpec) -> JSON | None:
        return self.options if self.options is not None else spec.options

    @property
    def agent_seed(self) -> int:
        """The agent's seed: the game's, or for a ranked game (its seed hidden) the index."""
        return self.seed if self.seed is not None else self.index


@dataclass(slots=True)
class Episode:
    """A finished episode: its ``runs.jsonl`` record and its replay's lines."""

    record: JSON
    replay: list[JSON]


@dataclass(frozen=True, slots=True)
class Failure:
    """An episode that could not be played or finished (a server that went away, an
    endpoint that stopped answering, a stop asked for): not written as finished; an
    in-process episode's journal keeps its turns for a resume."""

    task: Task
    message: str
    game: str = ""
    #: the run asked it to stop (its journal keeps its turns)
    stopped: bool = False


class Stopped(PlaybenchError):
    """The run asked its episodes to stop (Ctrl-C, ``--max-cost``)."""


class LocalTable:
    """A :class:`Match` as an agent's table, writing a replay line per action that moved
    it on and stopping once ``limit`` game turns are played: accepted actions, so that a
    refusal the rules count (a Cogcrawl reply that did not parse) costs no turn."""

    __slots__ = ("limit", "lines", "match", "turns")

    def __init__(self, match: Match, limit: int) -> None:
        self.match = match
        self.limit = limit
        self.lines: list[JSON] = []
        self.turns = 0

    @property
    def over(self) -> bool:
        return self.match.over or self.turns >= self.limit

    def view(self) -> JSON:
        return self.match.view()

    def play(self, action: Any) -> StepResult:
        result = self.match.play(action)
        if result.advanced:
            self._line(action, result)
        return result

    def commands(self, texts: list[str]) -> list[StepResult]:
        results = []
        for text in texts:
            if self.over:
                break
            result = self.command(text)
            results.append(result)
            if not result.ok:
                break
        return results

    def command(self, text: str) -> StepResult:
        """Apply one command, even past the end (where the game refuses it)."""
        result = self.match.command(text)
        if result.advanced:
            self._line(result.action, result)
        return result

    def _line(self, action: Any, result: StepResult) -> None:
        if result.ok:
            self.turns += 1
        lines = self.lines
        lines.append(
            {
                "step": len(lines) + 1,
                "action": action,
                "reward": result.reward,
                "score": self.match.score,
            }
        )


def _attach(lines: list[JSON], start: int, notes: list[JSON]) -> None:
    """Put the turn notes on the first line applied from ``start``."""
    lines[start].setdefault("turns", []).extend(notes)


def _resume(
    journal: Journal, head: JSON, table: LocalTable, agent: Agent
) -> tuple[list[int], list[JSON]]:
    """Continue from ``journal`` when it holds this episode: its actions replayed on the
    table (each must give the recorded score), the agent given its memory after the last
    recorded turn. The steps resumed at, and the lines to write again."""
    held = [entry for entry in journal.read() if isinstance(entry, dict)]
    if not held or {k: v for k, v in held[0].items() if k != "resumedAt"} != head:
        return [], [head]
    lines = [line for line in held[1:] if "action" in line]
    trailing, lost = unrecorded(held)
    memory = None
    for line in lines:
        result = table.play(line["action"])
        if not result.advanced or table.match.score != line["score"]:
            # a journal that does not replay is no base to go on from: start again
            table.match = Match.start(table.match.game, table.match.seed, table.match.options)
            table.lines, table.turns = [], 0
            return [], [head]
        table.lines[-1] = line
        for note in line.get("turns", ()):
            memory = note.get("memory", memory)
    if memory is not None or lost:
        memory = memory or {}
        counts = dict(memory.get("counts", {}))
        for name, value in lost.items():
            counts[name] = counts.get(name, 0) + value
        agent.restore({**memory, "counts": counts})
    resumed = [*held[0].get("resumedAt", []), len(lines)]
    return resumed, [{**head, "resumedAt": resumed}, *lines, *trailing]


def play_local(spec: EpisodeSpec, task: Task, agent: Agent) -> Episode:
    game = agent.game
    started = time.perf_counter()
    options = task.options_of(spec)
    table = LocalTable(Match.start(game, task.agent_seed, options), spec.max_steps)
    agent.reset(task.agent_seed)
    head = header(game.slug, task.agent_seed, options, spec.agent, spec.model)
    journal = Journal(Path(task.journal)) if task.journal else None
    resumed: list[int] = []
    if journal is not None:
        resumed, again = _resume(journal, head, table, agent)
        journal.start(again)
        agent.journal_calls(lambda entry: journal.append([entry]))
    pending: list[JSON] = []
    budget = None
    turns = 0
    try:
        while not table.over and turns < spec.max_steps:
            turns += 1
            if LEDGER.stop.is_set():
                raise Stopped("stopped before the episode ended; its turns are kept")
            before = len(table.lines)
            spent_before = agent.stats()
            try:
                turn = agent.turn(table)
            except BudgetSpent as spent:
                turn, budget = spent.turn, spent.budget
            LEDGER.add(game.slug, spent_before, agent.stats())
            if turn.note:
                pending.append(turn.note)
            if pending and len(table.lines) > before:
                _attach(table.lines, before, pending)
                pending = []
            if journal is not None:
                journal.append(table.lines[before:])
            if budget is not None:
                break
    finally:
        agent.journal_calls(None)
        if journal is not None:
            journal.close()
    if pending and table.lines:
        # a turn the budget cut applied nothing: its calls are kept on the last line
        _attach(table.lines, len(table.lines) - 1, pending)
    seconds = time.perf_counter() - started
    episode = _episode(spec, table.match, table.lines, agent, seconds, options)
    if budget is not None:
        episode.record["budget"] = budget
        episode.replay[-1]["end"]["budget"] = budget
    if resumed:
        episode.record["resumedAt"] = resumed
        episode.replay[0]["resumedAt"] = resumed
        episode.replay[-1]["end"]["resumedAt"] = resumed
    return episode


def play_remote(spec: EpisodeSpec, task: Task, agent: Agent) -> Episode:
    game = agent.game
    server = spec.server or ""
    started = time.perf_counter()
    with httpx.Client(base_url=server, timeout=DEFAULT_HTTP_TIMEOUT) as http:
        try:
            key = os.environ.get(spec.player_key_env) if spec.player is not None else None
            session = Session.new(http, game.slug, task.seed, spec.options, spec.player, key)
            table = RemoteTable(session, game)
            agent.reset(task.agent_seed)
            marks: list[tuple[int, JSON]] = []
            turns = 0
            while not table.over and table.turns < spec.max_steps and turns < spec.max_steps:
                before = len(table.sent)
                turn = agent.turn(table)
                turns += 1
                if turn.note:
                    marks.append((before, turn.note))
            remote: JSON = {
                "server": spec.server,
                "player": spec.player,
                "sessionId": session.answer["sessionId"],
                "ranked": session.answer["ranked"],
            }
            seed, options, log, fingerprint = task.seed, spec.options, None, None
            if table.over:
                rating, review = agent.review(table.view())
                done = session.finish(rating, review)
                seed, options = done["seed"], done["options"]
                log, fingerprint = done["log"], done["fingerprint"]
                remote.update(rating=rating, rank=done["rank"])
        except httpx.HTTPError as error:
            raise ServerError(f"the server {spec.server} failed: {error}") from None
    if seed is None:
        raise ServerError(
            "a ranked game cut by --max-steps cannot be finished, so its seed stays hidden"
        )
    match, lines = _rebuild(game, seed, options, table.sent, marks)
    if log is not None and (match.log != log or match.fingerprint() != fingerprint):
        raise ServerError(
            f"the server's game (seed {seed}) differs from its local replay: "
            f"fingerprint {fingerprint} on the server, {match.fingerprint()} here"
        )
    episode = _episode(spec, match, lines, agent, time.perf_counter() - started)
    episode.record["remote"] = remote
    if task.seed is None:
        episode.record["agentSeed"] = task.agent_seed
    return episode


def _rebuild(
    game: Game,
    seed: int,
    options: JSON | None,
    sent: list[tuple[str, JSON]],
    marks: list[tuple[int, JSON]],
) -> tuple[Match, list[JSON]]:
    """Play the commands sent to the server again here; every result must agree. The
    turn notes go on the first line each turn applied, as in-process."""
    match = Match.start(game, seed, options or None)
    table = LocalTable(match, len(sent))
    #: how many lines were applied before each command (and after the last)
    lines_before: list[int] = []
    for index, (text, answer) in enumerate(sent):
        lines_before.append(len(table.lines))
        result = table.command(text)
        if result.ok != answer["ok"] or result.reward != answer["reward"]:
            raise ServerError(
                f"command {index + 1} ({text!r}) gave ok={answer['ok']} reward="
                f"{answer['reward']} on the server, ok={result.ok} reward={result.reward} here"
            )
    lines_before.append(len(table.lines))
    pending: list[JSON] = []
    for position, (start, note) in enumerate(marks):
        end = marks[position + 1][0] if position + 1 < len(marks) else len(sent)
        pending.append(note)
        if lines_before[start] < lines_before[end]:
            _attach(table.lines, lines_before[start], pending)
            pending = []
    return match, table.lines


def _episode(
    spec: EpisodeSpec,
    match: Match,
    lines: list[JSON],
    agent: Agent,
    seconds: float,
    options: JSON | None = None,
) -> Episode:
    game = match.game
    seed = match.seed
    assert seed is not None
    outcome = outcome_of(game, match.state, match.over)
    fingerprint = match.fingerprint()
    progress = game.progress(match.state)
    if options is None:
        options = spec.options
    record: JSON = {
        "game": game.slug,
        "seed": seed,
        "options": options or {},
        "agent": spec.agent,
    }
    if spec.model is not None:
        record["model"] = spec.model
    record.update(
        score=match.score,
        progress=progress,
        steps=len(lines),
        outcome=outcome,
        seconds=round(seconds, 4),
        fingerprint=fingerprint,
        replay=f"{REPLAYS}/{replay_name(game.slug, seed)}",
    )
    stats = agent.stats()
    if stats is not None:
        record["llm"] = stats
    end = {
        "end": {
            "score": match.score,
            "fingerprint": fingerprint,
            "steps": len(lines),
            "outcome": outcome,
            "progress": progress,
        }
    }
    return Episode(record, [header(game.slug, seed, options, spec.agent, spec.model), *lines, end])


# -- in a worker ---------------------------------------------------------------------------

#: the agent this process keeps for its spec (one model client, one bot import)
_KEPT: list[tuple[EpisodeSpec, Agent]] = []


def _agent_for(spec: EpisodeSpec) -> Agent:
    if _KEPT and _KEPT[0][0] == spec:
        return _KEPT[0][1]
    release_agents()
    agent = spec.make_agent()
    _KEPT.append((spec, agent))
    return agent


def play(spec: EpisodeSpec, task: Task, agent: Agent | None = None) -> Episode | Failure:
    """Play one episode in this process (a worker, a Ray task, a thread or the runner
    itself), with ``agent`` or the one this process keeps for ``spec``.

    A failure of the server or the endpoint that the agent could not play through is
    returned, not raised, so one bad episode leaves the others running.
    """
    agent = agent or _agent_for(spec)
    try:
        if spec.server is not None:
            return play_remote(spec, task, agent)
        return play_local(spec, task, agent)
    except Stopped as error:
        return Failure(task, str(error), spec.game, stopped=True)
    except (ServerError, AgentError) as error:
        return Failure(task, str(error), spec.game)
    except PlaybenchError as error:
        return Failure(task, f"{type(error).__name__}: {error}", spec.game)


def play_alone(spec: EpisodeSpec, task: Task) -> Episode | Failure:
    """Play one episode with an agent of its own (episodes in threads share nothing but
    the model's endpoint), closed after."""
    try:
        agent = spec.make_agent()
    except AgentError as error:
        return Failure(task, str(error), spec.game)
    try:
        return play(spec, task, agent)
    finally:
        agent.close()


def release_agents() -> None:
    """Close and forget the agents this process kept."""
    for _spec, agent in _KEPT:
        agent.close()
    _KEPT.clear()
