"""``playbench run``: an agent over many seeds, with a progress bar, a table of results
and a folder of records and replays.

:func:`prepare` checks everything a run needs before anything is written (the game, the
agent and its bot, the seeds, the options, the model's key and endpoint, the server,
Ray, the folder); :func:`execute` plays the episodes left and writes each as it ends.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from playbench import __version__
from playbench.agents import AGENTS, AgentError
from playbench.agents.bot import bot_factory
from playbench.agents.llm import check_endpoint, check_fallback
from playbench.agents.picture import check_vision
from playbench.agents.remote import check_server
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.runner.backends import (
    BACKENDS,
    RAY,
    Result,
    ray_module,
    run_inline,
    run_processes,
    run_ray,
)
from playbench.runner.episode import Episode, EpisodeSpec, Failure, Task
from playbench.runner.store import RunDir
from playbench.runner.summary import summarize

RUNS_ROOT = "runs"
DEFAULT_SEEDS = "0-9"


class RunError(PlaybenchError):
    """A run that cannot start as asked."""


@dataclass(frozen=True, slots=True)
class RunRequest:
    """A run as ``playbench run`` asks for it."""

    spec: EpisodeSpec
    seeds: list[int] = field(default_factory=list)
    ranked: int | None = None
    out: Path | None = None
    workers: int | None = None
    backend: str = "local"
    ray_address: str | None = None
    #: the suite this run belongs to (``playbench bench``), recorded in ``run.json``
    suite: JSON | None = None


@dataclass(slots=True)
class Plan:
    """A checked run: its folder, what it already holds and what is left to play."""

    request: RunRequest
    folder: RunDir
    config: dict
    done: list[dict]
    tasks: list[Task]

    @property
    def workers(self) -> int:
        asked = self.request.workers or os.cpu_count() or 1
        return max(1, min(asked, len(self.tasks)))


def default_out(game: str, agent: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path(RUNS_ROOT) / f"{game}-{agent}-{stamp}"


def prepare(request: RunRequest) -> Plan:
    """Check the run; :class:`PlaybenchError` in one line for anything wrong. Writes
    nothing."""
    spec = request.spec
    game = get_game(spec.game)
    if spec.agent not in AGENTS:
        raise AgentError(f"unknown agent {spec.agent!r}; agents: {', '.join(AGENTS)}")
    if request.backend not in BACKENDS:
        raise RunError(f"unknown backend {request.backend!r}; backends: {', '.join(BACKENDS)}")
    if request.ray_address is not None and request.backend != RAY:
        raise RunError(f"--ray-address needs --backend {RAY} (the backend is {request.backend})")
    if request.workers is not None and request.workers < 1:
        raise RunError(f"--workers must be at least 1, got {request.workers}")
    if spec.max_steps < 1:
        raise RunError(f"--max-steps must be at least 1, got {spec.max_steps}")
    _check_remote(request)
    llm = spec.llm if spec.agent == "llm" else None
    if spec.agent == "llm":
        if llm is None:
            raise AgentError("the llm agent needs a model: pass --model")
        llm.check()
        check_fallback(llm, game.seat_guide())
        if llm.vision:
            check_vision(game, remote=spec.server is not None)
    if spec.agent in ("bot", "llm"):
        bot_factory(game)
    if request.ranked is None:
        if not request.seeds:
            raise RunError("no seeds to play: give --seeds (e.g. 0-49 or 1,5,9)")
        # the game refuses bad options for any seed: one try checks them
        game.new(request.seeds[0], spec.options)
    if llm is not None:
        # the model itself, asked as the first turn asks it (its reply format included)
        seed = request.seeds[0] if request.seeds else 0
        view = Match.start(game, seed, spec.options).view()
        found = check_endpoint(llm, game.seat_guide(), view)
        if found != llm:
            llm = found
            spec = dataclasses.replace(spec, llm=found)
            request = dataclasses.replace(request, spec=spec)
    if request.backend == RAY:
        ray_module()
    if spec.server is not None:
        check_server(spec.server, game.slug)
    folder = RunDir(request.out or default_out(game.slug, spec.agent))
    config = {
        "game": game.slug,
        "agent": spec.agent,
        "model": spec.model,
        "llm": spec.llm.describe() if spec.llm is not None else None,
        "harness": llm.harness(game.seat_guide()) if llm is not None else None,
        "options": spec.options or {},
        "maxSteps": spec.max_steps,
        "server": spec.server,
        "player": spec.player,
        "ranked": request.ranked is not None,
        "version": __version__,
    }
    if request.suite is not None:
        config["suite"] = request.suite
    done = folder.check(config)
    if request.ranked is not None:
        tasks = [Task(None, index) for index in range(len(done), request.ranked)]
    else:
        finished = {record["seed"] for record in done}
        tasks = [Task(seed) for seed in request.seeds if seed not in finished]
    return Plan(request, folder, config, done, tasks)


def _check_remote(request: RunRequest) -> None:
    spec = request.spec
    if spec.server is None:
        if spec.player is not None or request.ranked is not None:
            raise RunError("--player and --ranked need --server URL")
        return
    if spec.player is None:
        raise RunError("--server needs --player NAME (the name the server shows)")
    if not 1 <= len(spec.player) <= 40 or not spec.player.isprintable():
        raise RunError(f"--player must be 1-40 printable characters, got {spec.player!r}")
    if not os.environ.get(spec.player_key_env):
        raise RunError(
            f"--player {spec.player} needs its player key in ${spec.player_key_env} "
            f"(register the name with POST {spec.server.rstrip('/')}/api/players, which "
            "answers the key; --player-key-env names another variable)"
        )
    if request.ranked is not None:
        if request.ranked < 1:
            raise RunError(f"--ranked must be at least 1, got {request.ranked}")
        if spec.options:
            raise RunError("--ranked games are played without options; drop --options")


@dataclass(slots=True)
class RunReport:
    """What :func:`execute` did."""

    summary: dict
    written: int = 0
    failures: list[Failure] = field(default_factory=list)
    interrupted: bool = False


def _results(plan: Plan) -> Iterator[Result]:
    request, spec = plan.request, plan.request.spec
    if request.backend == RAY:
        return run_ray(spec, plan.tasks, plan.workers, request.ray_address)
    if plan.workers == 1:
        return run_inline(spec, plan.tasks)
    return run_processes(spec, plan.tasks, plan.workers)


def execute(plan: Plan, console: Console | None = None) -> RunReport:
    """Play every episode left, writing each as it ends; Ctrl-C stops the run with every
    finished episode written. The summary covers every episode in the folder."""
    console = console or Console(stderr=True)
    plan.folder.open(plan.config)
    records = list(plan.done)
    report = RunReport(summary={})
    spec = plan.request.spec
    label = f"{spec.game} {spec.agent}"
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
        disable=not console.is_terminal,
    ) as progress:
        bar = progress.add_task(label, total=len(plan.tasks), last="")
        results = _results(plan)
        try:
            for result in results:
                if isinstance(result, Episode):
                    plan.folder.write(result)
                    records.append(result.record)
                    report.written += 1
                    last = f"seed {result.record['seed']}: {result.record['score']}"
                else:
                    report.failures.append(result)
                    last = f"failed: {result.message}"
                progress.update(bar, advance=1, last=last)
        except KeyboardInterrupt:
            report.interrupted = True
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    report.summary = summarize(records)
    if plan.config.get("harness") and report.summary["episodes"]:
        report.summary["harness"] = plan.config["harness"]
    if records:
        plan.folder.write_summary(report.summary)
    return report


def results_table(summary: dict) -> Table:
    """The Rich table of a run's figures; for a model, the share of turns it played and
    its errors, and a caption whenever a fallback played some of the turns scored."""
    table = Table(title=f"{summary.get('game', '')} · {summary.get('agent', '')}")
    low, high = summary["ci95"]
    columns = [
        ("episodes", str(summary["episodes"])),
        ("mean score", f"{summary['meanScore']:.1f}"),
        ("median", f"{summary['medianScore']:g}"),
        ("95% CI of mean", f"{low:.1f} – {high:.1f}"),
        ("progress", f"{summary['meanProgress']:.3f}"),
        ("wins", str(summary["wins"])),
        ("steps (mean)", f"{summary['meanSteps']:.1f}"),
    ]
    llm = summary.get("llm")
    if llm is not None:
        columns += [
            ("model turns", f"{llm['modelTurns']}/{llm['turns']} ({llm['modelShare']:.0%})"),
            ("errors", str(llm["errors"])),
            ("parse failures", str(llm["parseFailures"])),
            ("calls", str(llm["calls"])),
            ("tokens in/out", f"{llm['promptTokens']}/{llm['completionTokens']}"),
            ("fallbacks", str(llm["fallbacks"])),
        ]
        fallen = llm["turns"] - llm["modelTurns"]
        if fallen:
            fallback = summary.get("harness", {}).get("fallback", "fallback")
            table.caption = (
                f"the {fallback} fallback played {fallen} of {llm['turns']} turns: "
                "these scores are not the model's alone"
            )
    for name, _value in columns:
        table.add_column(name, justify="right")
    table.add_row(*(value for _name, value in columns))
    return table


def no_model_turn(summary: dict) -> str | None:
    """The reason a model run measured nothing (no reply of the model was played), or
    None when it played at least one turn or is no model run."""
    llm = summary.get("llm")
    if llm is None or llm["modelTurns"] or not llm["turns"]:
        return None
    return (
        f"the model played none of the {llm['turns']} turns ({llm['errors']} failed calls, "
        f"{llm['parseFailures']} unreadable replies, {llm['refused']} refused): every "
        "score is the fallback's"
    )
