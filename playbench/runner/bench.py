"""``playbench bench``: one agent over a whole suite, one headline figure with its interval.

A bench folder holds one run folder per game of the suite (``<folder>/<slug>/``, exactly
as ``playbench run`` writes it, so resume, replays and verify work as for any run) and
``bench.json``: the suite (its name, hash and games), the agent, and the figures, per game
the mean score and the mean progress with 95% intervals (and for a language model the
share of turns it played itself, its tokens per turn, seconds per call and fallback
share), and the headline.

Where the suite ships baselines (:mod:`playbench.runner.suite`), every episode's score is
also normalised on its game's scale (the random agent's mean 0, the reference's 1): per
game ``normalisedScore`` (the mean over its slots) with its 95% interval, the scale
(``scale``: the random and reference means and the reference agent) and
``normalisedBySeed``; the headline's ``normalisedScore`` is the mean over games of those
means, with an interval from resampling every game's slots on their own
(:func:`~playbench.runner.stats.stratified_interval`). The headline's ``meanProgress``
(with ``ci95``) is the same mean taken over the games' progress. The scale is taken from
the shipped suite of the same hash (or from the suite the bench was started with), never
from a result's own files; a suite without baselines gives ``normalisedScore`` null.

``bench.json`` holds no clock times, so the same suite and agent give the same file, on
every backend and however often the bench was resumed; :func:`check_bench` re-simulates
every replay of a folder and recomputes its figures, for the arena to trust a result.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from playbench import __version__
from playbench.agents import LlmSettings
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, WON
from playbench.runner.backends import RAY, ray_cluster
from playbench.runner.episode import EpisodeSpec, Failure
from playbench.runner.outcome import OUTCOMES
from playbench.runner.replay import ReplayError, Verdict, read_replay, verify_path, write_atomic
from playbench.runner.run import RUNS_ROOT, Plan, Prices, RunRequest, execute_all, prepare
from playbench.runner.stats import mean_interval, stratified_interval
from playbench.runner.store import RunDir
from playbench.runner.suite import Baseline, Suite, read_suite, shipped_baselines, suite_hash

BENCH = "bench.json"
FORMAT = 1
LLM_COUNTS = (
    "calls",
    "promptTokens",
    "completionTokens",
    "parseFailures",
    "repaired",
    "cut",
    "retries",
    "fallbacks",
    "errors",
)
#: past this share of a game's turns played by the fallback, a model's result is
#: flagged (and it is no result of the model's at all when the model played none)
FALLBACK_WARNING = 0.05


class BenchError(PlaybenchError):
    """A bench that cannot start as asked, or a folder that holds no sound bench."""


@dataclass(frozen=True, slots=True)
class BenchRequest:
    """A bench as ``playbench bench`` asks for it."""

    suite: Suite
    agent: str
    llm: LlmSettings | None = None
    out: Path | None = None
    workers: int | None = None
    backend: str = "local"
    ray_address: str | None = None
    #: calls in flight at once for a model (``--concurrency``)
    concurrency: int | None = None


@dataclass(slots=True)
class BenchPlan:
    """A checked bench: its folder and one checked run per game."""

    request: BenchRequest
    folder: Path
    runs: list[Plan]


@dataclass(slots=True)
class BenchReport:
    """What :func:`execute_bench` did: the figures (none while a game is unfinished)."""

    bench: JSON | None = None
    written: int = 0
    failures: list[Failure] = field(default_factory=list)
    interrupted: bool = False
    stopped_at_cost: bool = False


def default_out(suite: str, agent: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path(RUNS_ROOT) / f"bench-{suite}-{agent}-{stamp}"


def prepare_bench(request: BenchRequest) -> BenchPlan:
    """Check every game's run before anything is written; :class:`PlaybenchError` in one
    line for anything wrong."""
    suite = request.suite
    folder = request.out or default_out(suite.name, request.agent)
    if folder.exists() and not folder.is_dir():
        raise BenchError(f"--out {folder} is a file, not a folder")
    before = folder / BENCH
    if before.exists():
        held = _read_json(before)
        if held.get("suite", {}).get("hash") != suite.hash or held.get("agent") != request.agent:
            raise BenchError(
                f"{folder} holds another bench (suite {held.get('suite', {}).get('name')!r}, "
                f"agent {held.get('agent')!r}); choose another --out"
            )
    runs = []
    for entry in suite.games:
        spec = EpisodeSpec(
            game=entry.game,
            agent=request.agent,
            llm=entry.llm_settings(request.llm),
            options=entry.options or None,
            max_steps=entry.max_steps,
            max_turns=entry.max_turns,
            max_tokens=entry.max_tokens,
            concurrency=request.concurrency,
        )
        runs.append(
            prepare(
                RunRequest(
                    spec=spec,
                    seeds=entry.seeds,
                    out=folder / entry.game,
                    suite=suite.describe(),
                    workers=request.workers,
                    backend=request.backend,
                    ray_address=request.ray_address,
                    options_by_seed=entry.options_by_seed,
                )
            )
        )
    return BenchPlan(request, folder, runs)


@contextmanager
def _backend(request: BenchRequest, workers: int) -> Iterator[None]:
    """One Ray cluster for every game of the bench (each run would start its own)."""
    with ExitStack() as stack:
        if request.backend == RAY:
            stack.enter_context(ray_cluster(workers, request.ray_address))
        yield


def execute_bench(
    plan: BenchPlan, console: Console | None = None, prices: Prices | None = None
) -> BenchReport:
    """Play every game's episodes left, all at once; once every game is complete, write
    ``bench.json``."""
    report = BenchReport()
    runs = [run for run in plan.runs if run.tasks]
    workers = max((run.workers for run in plan.runs), default=1)
    if runs:
        with _backend(plan.request, workers):
            done = execute_all(runs, console, prices)
        for run_report in done:
            report.written += run_report.written
            report.failures += run_report.failures
            report.interrupted |= run_report.interrupted
            report.stopped_at_cost |= run_report.stopped_at_cost
        if report.interrupted or report.stopped_at_cost:
            return report
    if not report.failures:
        report.bench = bench_figures(plan.folder, plan.request.suite)
        write_bench(plan.folder, report.bench)
    return report


def model_problems(bench: JSON) -> tuple[list[str], list[str]]:
    """What keeps a model's bench from being the model's result (a game whose turns the
    model played none of), and what flags it (a game whose fallback played more than
    5% of the turns); both empty for an agent that is no model."""
    errors: list[str] = []
    warnings: list[str] = []
    for slug, figures in bench.get("games", {}).items():
        llm = figures.get("llm")
        if llm is None or not llm.get("turns"):
            continue
        share = llm.get("modelTurnShare") or 0.0
        fallen = llm["turns"] - llm["modelTurns"]
        if not llm["modelTurns"]:
            errors.append(
                f"{slug}: the model played none of its {llm['turns']} turns ({llm['errors']} "
                f"failed calls, {llm['parseFailures']} unreadable replies): every score is "
                "the fallback's"
            )
        elif 1 - share > FALLBACK_WARNING:
            warnings.append(
                f"{slug}: the fallback played {fallen} of {llm['turns']} turns "
                f"({1 - share:.0%}, past {FALLBACK_WARNING:.0%}): its figures are partly "
                "the fallback's"
            )
    return errors, warnings


# -- the figures ------------------------------------------------------------------------


def _read_json(path: Path) -> JSON:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BenchError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise BenchError(f"{path} is not a JSON object")
    return data


def _json_bytes(data: JSON) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode()


def write_bench(folder: Path, bench: JSON) -> None:
    """Write ``bench`` as the ``bench.json`` of ``folder``."""
    write_atomic(folder / BENCH, _json_bytes(bench))


def _turns(folder: Path, records: list[JSON]) -> tuple[int, int]:
    """The agent turns recorded in the replays of ``records`` and those the fallback
    played."""
    turns = fallbacks = 0
    for record in records:
        try:
            replay = read_replay(folder / record["replay"])
        except ReplayError as error:
            raise BenchError(str(error)) from None
        for line in replay.lines:
            for note in line.get("turns", ()):
                turns += 1
                fallbacks += bool(note.get("fallback"))
    return turns, fallbacks


def _share(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


#: the counts a model's figures are summed from (besides :data:`LLM_COUNTS`)
TURN_COUNTS = ("turns", "modelTurns", "seconds")
#: the calls' wait for a slot, which records from before it was counted do not hold:
#: their figures have none, so a result published then keeps the figures it had
QUEUE = "queueSeconds"


def llm_figures(counts: JSON) -> JSON:
    """A model's figures from its summed counts: the share of turns it played itself
    (not its fallback), tokens per turn, seconds per call (the requests' own time) and
    the queueing per call apart (the wait for a slot among the calls in flight), and the
    fallback share."""
    turns, tokens = counts["turns"], counts["promptTokens"] + counts["completionTokens"]
    figures = {
        **{name: counts[name] for name in LLM_COUNTS},
        "turns": turns,
        "modelTurns": counts["modelTurns"],
        "seconds": round(counts["seconds"], 4),
        "modelTurnShare": _share(counts["modelTurns"], turns),
        "tokens": tokens,
        "tokensPerTurn": _share(tokens, turns),
        "secondsPerCall": _share(counts["seconds"], counts["calls"]),
        "fallbackShare": _share(counts["fallbacks"], turns),
    }
    if QUEUE in counts:
        figures[QUEUE] = round(counts[QUEUE], 4)
        figures["queueSecondsPerCall"] = _share(counts[QUEUE], counts["calls"])
    return figures


def _sum_llm(folder: Path, records: list[JSON]) -> JSON:
    """A model's counts over a game's episodes. Turns come from the records where they
    count them, otherwise from the turn notes of the replays."""
    blocks = [record.get("llm", {}) for record in records]
    counts: JSON = {name: sum(block.get(name, 0) for block in blocks) for name in LLM_COUNTS}
    counts["seconds"] = sum(block.get("seconds", 0.0) for block in blocks)
    if any(QUEUE in block for block in blocks):
        counts[QUEUE] = sum(block.get(QUEUE, 0.0) for block in blocks)
    if all("turns" in block and "modelTurns" in block for block in blocks):
        counts["turns"] = sum(block["turns"] for block in blocks)
        counts["modelTurns"] = sum(block["modelTurns"] for block in blocks)
    else:
        turns, fallback_turns = _turns(folder, records)
        counts["turns"], counts["modelTurns"] = turns, turns - fallback_turns
    return counts


def game_figures(folder: Path, records: list[JSON], baseline: Baseline | None = None) -> JSON:
    """One game's figures from its episodes (in seed order), normalised on ``baseline``."""
    rows = sorted(records, key=lambda record: record["seed"])
    scores = [row["score"] for row in rows]
    progress = [row["progress"] for row in rows]
    score, spread = mean_interval(scores), mean_interval(progress)
    outcomes = {outcome: 0 for outcome in OUTCOMES}
    for row in rows:
        outcomes[row["outcome"]] += 1
    figures: JSON = {
        "folder": folder.name,
        "episodes": len(rows),
        "normalisedScore": None,
        "normalisedCi95": None,
        "meanScore": round(score.mean, 4),
        "scoreCi95": score.rounded(),
        "medianScore": statistics.median(scores),
        "meanProgress": round(spread.mean, 4),
        "progressCi95": spread.rounded(),
        "wins": outcomes[WON],
        "outcomes": outcomes,
        "meanSteps": round(statistics.fmean(row["steps"] for row in rows), 2),
    }
    if baseline is not None:
        normalised = normalised_scores(rows, baseline)
        interval = mean_interval(list(normalised.values()))
        figures["normalisedScore"] = _rounded(interval.mean)
        figures["normalisedCi95"] = interval.rounded()
        figures["normalisedBySeed"] = {
            str(seed): _rounded(value) for seed, value in normalised.items()
        }
        figures["scale"] = baseline.describe()
    if any("llm" in row for row in rows):
        figures["llm"] = llm_figures(_sum_llm(folder, rows))
    return figures


def _rounded(value: float) -> float:
    """``value`` to 4 places, with no negative zero."""
    return round(value, 4) + 0.0


def normalised_scores(records: list[JSON], baseline: Baseline) -> dict[int, float]:
    """Each episode's score on its game's scale, by seed."""
    return {record["seed"]: baseline.normalised(record["score"]) for record in records}


def _total_llm(games: dict[str, JSON]) -> JSON | None:
    blocks = [figures["llm"] for figures in games.values() if "llm" in figures]
    if not blocks:
        return None
    counts = {name: sum(block[name] for block in blocks) for name in (*LLM_COUNTS, *TURN_COUNTS)}
    if any(QUEUE in block for block in blocks):
        counts[QUEUE] = sum(block.get(QUEUE, 0.0) for block in blocks)
    return llm_figures(counts)


def bench_figures(folder: Path, started: Suite | None = None) -> JSON:
    """``bench.json`` of a bench folder, from its run folders alone: every game of its
    suite must be complete (every seed played, with the suite's options and limits).
    The scale is the shipped suite's of the same hash, or ``started``'s (the suite the
    bench was started with) when it has that hash."""
    runs = _runs(folder)
    if not runs:
        raise BenchError(f"{folder} holds no run folder: not a bench folder")
    held = _read_json(runs[0] / "run.json").get("suite")
    if not isinstance(held, dict):
        raise BenchError(f"{runs[0]} is a run of no suite")
    suite = read_suite({key: value for key, value in held.items() if key != "hash"}, str(runs[0]))
    baselines = shipped_baselines(suite.hash)
    if started is not None and started.hash == suite.hash and started.baselines is not None:
        baselines = started.baselines
    first = _read_json(runs[0] / "run.json")
    games: dict[str, JSON] = {}
    progress: list[list[float]] = []
    normalised: list[list[float]] = []
    for entry in suite.games:
        run = folder / entry.game
        config = _read_json(run / "run.json")
        if config.get("suite", {}).get("hash") != suite.hash:
            raise BenchError(f"{run} was played for another suite")
        for key in ("agent", "model"):
            if config.get(key) != first.get(key):
                raise BenchError(f"{run} was played by another {key} than {first.get(key)!r}")
        if config.get("options") != entry.options or config.get("maxSteps") != entry.max_steps:
            raise BenchError(f"{run} was played with other options or limits than the suite's")
        records = sorted(RunDir(run).records(), key=lambda record: record["seed"])
        seeds = [record["seed"] for record in records]
        if seeds != sorted(entry.seeds):
            missing = set(entry.seeds) - set(seeds)
            raise BenchError(
                f"{run} is unfinished: {len(missing)} seed(s) of the suite unplayed"
                if missing
                else f"{run} holds seeds the suite does not list"
            )
        baseline = None if baselines is None else baselines[entry.game]
        games[entry.game] = game_figures(run, records, baseline)
        progress.append([record["progress"] for record in records])
        if baseline is not None:
            normalised.append(list(normalised_scores(records, baseline).values()))
    headline = stratified_interval(progress)
    scaled = stratified_interval(normalised) if baselines is not None else None
    bench: JSON = {
        "bench": FORMAT,
        "suite": suite.describe(),
        "agent": first["agent"],
        "model": first.get("model"),
        "version": __version__,
        "headline": {
            "normalisedScore": None if scaled is None else _rounded(scaled.mean),
            "normalisedCi95": None if scaled is None else scaled.rounded(),
            "meanProgress": round(headline.mean, 4),
            "ci95": headline.rounded(),
        },
        "games": games,
    }
    total = _total_llm(games)
    if total is not None:
        bench["headline"]["llm"] = total
    return bench


def _runs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise BenchError(f"{folder} is not a folder")
    return sorted(path.parent for path in folder.glob("*/run.json"))


def read_bench(folder: Path) -> JSON:
    """``bench.json`` of a bench folder; :class:`BenchError` when there is none."""
    path = folder / BENCH
    if not path.is_file():
        raise BenchError(f"{folder} holds no {BENCH}: not a bench folder")
    bench = _read_json(path)
    if bench.get("bench") != FORMAT:
        raise BenchError(f"{path} is not a bench result of format {FORMAT}")
    return bench


def verify_bench(folder: Path, started: Suite | None = None) -> tuple[list[Verdict], list[str]]:
    """Every game's runs of a bench folder verified (each replay re-simulated, each record
    matched with its replay), and what else is wrong: the suite's hash, and, when every
    replay matches, every figure recomputed (on the scale :func:`bench_figures` takes).
    Raises :class:`BenchError` without ``bench.json``."""
    bench = read_bench(folder)
    suite = bench.get("suite", {})
    if suite_hash({k: v for k, v in suite.items() if k != "hash"}) != suite.get("hash"):
        return [], [f"{folder / BENCH}: its suite does not match its hash"]
    verdicts = [
        verdict for slug in suite.get("games", {}) for verdict in verify_path(folder / slug)
    ]
    if any(not verdict.ok for verdict in verdicts):
        return verdicts, []
    if bench_figures(folder, started) != bench:
        return verdicts, [f"{folder / BENCH}: its figures differ from its episodes'"]
    return verdicts, []


def check_bench(folder: Path, started: Suite | None = None) -> list[str]:
    """What is wrong with a bench folder, or nothing: every replay re-simulated, every
    record matched with its replay, the suite's hash and every figure recomputed (on the
    scale :func:`bench_figures` takes)."""
    try:
        verdicts, problems = verify_bench(folder, started)
    except PlaybenchError as error:
        return [str(error)]
    return [
        f"{verdict.path}: {verdict.problem}" for verdict in verdicts if not verdict.ok
    ] + problems
