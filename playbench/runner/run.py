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
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from playbench import __version__
from playbench.agents import AGENTS, AgentError
from playbench.agents.bot import bot_factory
from playbench.agents.llm import DEFAULT_CONCURRENCY, check_endpoint, check_fallback
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
    check_ray_address,
    ray_module,
    run_inline,
    run_processes,
    run_ray,
    run_threads,
)
from playbench.runner.episode import JOURNAL, Episode, EpisodeSpec, Failure, Task
from playbench.runner.ledger import LEDGER, Spend
from playbench.runner.replay import replay_name
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
    #: options per seed laid over the spec's (a suite's ``optionsBySeed``)
    options_by_seed: dict[int, JSON] = field(default_factory=dict)


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

    @property
    def waits_on_network(self) -> bool:
        """Whether the agent's turns wait on the network (a model, a server's sessions):
        such episodes run many at once in threads, not one per CPU."""
        spec = self.request.spec
        return spec.agent == "llm" or spec.server is not None

    @property
    def concurrency(self) -> int:
        """Episodes in flight at once: one for ranked games (a player has one open ranked
        game of a game at a time on the server; a new one closes the last)."""
        if self.request.ranked is not None:
            return 1
        return self.request.spec.concurrency or DEFAULT_CONCURRENCY


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
    if spec.concurrency is not None and spec.concurrency < 1:
        raise RunError(f"--concurrency must be at least 1, got {spec.concurrency}")
    for flag, value in (
        ("--max-turns", spec.max_turns),
        ("--max-tokens-per-episode", spec.max_tokens),
    ):
        if value is not None and value < 1:
            raise RunError(f"{flag} must be at least 1, got {value}")
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
        if request.ray_address is not None:
            check_ray_address(request.ray_address)
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
    if spec.budget:
        config["budget"] = spec.budget
    if request.options_by_seed:
        config["optionsBySeed"] = {str(seed): o for seed, o in request.options_by_seed.items()}
    done = folder.check(config)
    if request.ranked is not None:
        tasks = [Task(None, index) for index in range(len(done), request.ranked)]
    else:
        finished = {record["seed"] for record in done}
        tasks = [_task(request, folder, seed) for seed in request.seeds if seed not in finished]
    return Plan(request, folder, config, done, tasks)


def _task(request: RunRequest, folder: RunDir, seed: int) -> Task:
    """The episode of ``seed``: its options, and its journal where a model plays it
    in-process (its turns cost calls; a scripted agent's episode is played again at no
    cost, and is spared a sync per step)."""
    spec = request.spec
    options = None
    if seed in request.options_by_seed:
        options = {**(spec.options or {}), **request.options_by_seed[seed]}
    journal = None
    if spec.server is None and spec.agent == "llm":
        journal = str(folder.replays.absolute() / (replay_name(spec.game, seed) + JOURNAL))
    return Task(seed, options=options, journal=journal)


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
    #: the run stopped because ``--max-cost`` was reached
    stopped_at_cost: bool = False


def work_results(plans: list[Plan]) -> Iterator[Result]:
    """The results of every episode left in ``plans``, all on one backend at once."""
    work = [(plan.request.spec, task) for plan in plans for task in plan.tasks]
    first = plans[0]
    request = first.request
    if request.backend == RAY:
        return run_ray(work, max(plan.workers for plan in plans), request.ray_address)
    if any(plan.waits_on_network for plan in plans):
        return run_threads(work, max(plan.concurrency for plan in plans))
    workers = min(request.workers or os.cpu_count() or 1, len(work))
    if workers <= 1:
        return run_inline(work)
    return run_processes(work, workers)


@dataclass(frozen=True, slots=True)
class Prices:
    """Dollars per million tokens in and out (``--price-in``, ``--price-out``), and the
    spend that stops a run (``--max-cost``)."""

    price_in: float | None = None
    price_out: float | None = None
    max_cost: float | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.price_in is None and self.price_out is None:
            return None
        return (
            prompt_tokens * (self.price_in or 0.0) + completion_tokens * (self.price_out or 0.0)
        ) / 1e6


class Tally:
    """What the result has spent, per game: what its folders held when this start began
    plus what the ledger counted since."""

    def __init__(self, plans: list[Plan]) -> None:
        self.held = {plan.request.spec.game: plan.folder.spent() for plan in plans}
        self.start = {game: LEDGER.reading(game) for game in self.held}

    def game(self, game: str) -> Spend:
        return self.held[game] + (LEDGER.reading(game) - self.start[game])

    def total(self) -> Spend:
        return sum((self.game(game) for game in self.held), Spend())


class SpendColumn(ProgressColumn):
    """A line's turns, calls, tokens and spend so far (its game's, or the result's),
    read from the ledger at each refresh, so they move with every call."""

    def __init__(self, prices: Prices, tally: Tally) -> None:
        super().__init__()
        self.prices = prices
        self.tally = tally

    def render(self, task: Any) -> Text:
        game = task.fields.get("game")
        spend = self.tally.game(game) if game else self.tally.total()
        shown = f"{spend.turns:,} turns, {spend.calls:,} calls, {spend.tokens:,} tokens"
        cost = self.prices.cost(spend.prompt_tokens, spend.completion_tokens)
        if cost is not None:
            shown += f", ${cost:,.2f}"
        return Text(shown)


def execute(plan: Plan, console: Console | None = None, prices: Prices | None = None) -> RunReport:
    """Play every episode left, writing each as it ends; Ctrl-C stops the run with every
    finished episode written. The summary covers every episode in the folder."""
    return execute_all([plan], console, prices)[0]


def execute_all(
    plans: list[Plan], console: Console | None = None, prices: Prices | None = None
) -> list[RunReport]:
    """Play every episode left in ``plans`` at once (every game of a bench), writing
    each into its run's folder as it ends. Ctrl-C, or ``--max-cost`` reached, stops the
    run: every finished episode is written and every episode in flight keeps its
    journal, to be resumed by running again into the same folders."""
    console = console or Console(stderr=True)
    prices = prices or Prices()
    by_game = {plan.request.spec.game: plan for plan in plans}
    reports = {game: RunReport(summary={}) for game in by_game}
    records = {game: list(plan.done) for game, plan in by_game.items()}
    for plan in plans:
        plan.folder.open(plan.config)
    # the spend so far is the result's: what its folders already hold counts too, so
    # --max-cost caps the result however many times the run is started
    tally = Tally(plans)
    LEDGER.over = lambda: _over_budget(prices, tally)
    labels = ", ".join(f"{plan.request.spec.game}" for plan in plans)
    agent = plans[0].request.spec.agent
    columns: list[ProgressColumn] = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    llm = any(plan.request.spec.agent == "llm" for plan in plans)
    if llm:
        columns.append(SpendColumn(prices, tally))
    columns.append(TextColumn("{task.fields[last]}"))
    with Progress(*columns, console=console, disable=not console.is_terminal) as progress:
        total = sum(len(plan.tasks) for plan in plans)
        bar = progress.add_task(f"{labels} {agent}", total=total, last="")
        lines = {}
        if llm and len(plans) > 1:
            # a line per game, its turns and calls moving as they happen
            for game, plan in by_game.items():
                lines[game] = progress.add_task(
                    f"  {game}", total=len(plan.tasks), last="", game=game
                )
        # a result whose spend already reached --max-cost asks for nothing more
        stopped = bool(total) and _over_budget(prices, tally)
        results = work_results(plans) if total and not stopped else iter(())
        try:
            for result in results:
                if isinstance(result, Episode):
                    game = result.record["game"]
                    by_game[game].folder.write(result)
                    records[game].append(result.record)
                    reports[game].written += 1
                    last = f"{game} seed {result.record['seed']}: {result.record['score']}"
                else:
                    reports[result.game or plans[0].request.spec.game].failures.append(result)
                    last = f"failed: {result.message}"
                progress.update(bar, advance=1, last=last)
                game = result.record["game"] if isinstance(result, Episode) else result.game
                if game in lines:
                    progress.update(lines[game], advance=1)
                if _over_budget(prices, tally):
                    LEDGER.stop.set()
                    stopped = True
                    break
        except KeyboardInterrupt:
            for report in reports.values():
                report.interrupted = True
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
            LEDGER.over = None
    cut = [f for report in reports.values() for f in report.failures if f.stopped]
    stopped = stopped or (bool(cut) and _over_budget(prices, tally))
    for game, plan in by_game.items():
        report = reports[game]
        report.stopped_at_cost = stopped
        report.summary = summarize(records[game])
        if plan.config.get("harness") and report.summary["episodes"]:
            report.summary["harness"] = plan.config["harness"]
        if records[game]:
            plan.folder.write_summary(report.summary)
    return [reports[plan.request.spec.game] for plan in plans]


def _over_budget(prices: Prices, tally: Tally) -> bool:
    """Whether ``--max-cost`` is reached (by the result: what its folders held before
    this run included): then every episode is asked to stop."""
    if prices.max_cost is None:
        return False
    spend = tally.total()
    cost = prices.cost(spend.prompt_tokens, spend.completion_tokens)
    return cost is not None and cost >= prices.max_cost


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
