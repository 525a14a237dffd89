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
from typing import Any

import httpx

from playbench.agents import Agent, AgentError, LlmSettings, make_agent
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
from playbench.runner.outcome import outcome_of
from playbench.runner.replay import header, replay_name

DEFAULT_MAX_STEPS = 100_000
REPLAYS = "replays"


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

    @property
    def model(self) -> str | None:
        return self.llm.model if self.llm is not None else None

    def make_agent(self) -> Agent:
        return make_agent(self.agent, get_game(self.game), self.llm)


@dataclass(frozen=True, slots=True)
class Task:
    """One episode to play: a seed, or (ranked) the index of a server-drawn one."""

    seed: int | None
    index: int = 0

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
    """An episode that could not be played (a server that went away): not written."""

    task: Task
    message: str


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


def play_local(spec: EpisodeSpec, task: Task, agent: Agent) -> Episode:
    game = agent.game
    started = time.perf_counter()
    match = Match.start(game, task.agent_seed, spec.options)
    table = LocalTable(match, spec.max_steps)
    agent.reset(task.agent_seed)
    pending: list[JSON] = []
    turns = 0
    while not table.over and turns < spec.max_steps:
        before = len(table.lines)
        turn = agent.turn(table)
        turns += 1
        if turn.note:
            pending.append(turn.note)
        if pending and len(table.lines) > before:
            _attach(table.lines, before, pending)
            pending = []
    return _episode(spec, match, table.lines, agent, time.perf_counter() - started)


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
    spec: EpisodeSpec, match: Match, lines: list[JSON], agent: Agent, seconds: float
) -> Episode:
    game = match.game
    seed = match.seed
    assert seed is not None
    outcome = outcome_of(game, match.state, match.over)
    fingerprint = match.fingerprint()
    progress = game.progress(match.state)
    record: JSON = {
        "game": game.slug,
        "seed": seed,
        "options": spec.options or {},
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
    return Episode(
        record, [header(game.slug, seed, spec.options, spec.agent, spec.model), *lines, end]
    )


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


def play(spec: EpisodeSpec, task: Task) -> Episode | Failure:
    """Play one episode in this process (a worker, a Ray task or the runner itself).

    A failure of the server or the endpoint that the agent could not play through is
    returned, not raised, so one bad episode leaves the others running.
    """
    agent = _agent_for(spec)
    try:
        if spec.server is not None:
            return play_remote(spec, task, agent)
        return play_local(spec, task, agent)
    except (ServerError, AgentError) as error:
        return Failure(task, str(error))
    except PlaybenchError as error:
        return Failure(task, f"{type(error).__name__}: {error}")


def release_agents() -> None:
    """Close and forget the agents this process kept."""
    for _spec, agent in _KEPT:
        agent.close()
    _KEPT.clear()
