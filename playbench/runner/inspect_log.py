"""Inspect logs read back: an episode a sample of ``playbench/<task>`` played, checked by
replay, and written as the run and bench folders ``playbench bench`` writes.

A sample's store holds its episode under :data:`STORE_KEY`: ``replay`` (the replay
file's lines, header first and end last, as :mod:`playbench.runner.replay` describes
them), ``llm`` (the seat's counts, as a run's ``runs.jsonl`` reports them) and
``budget`` (the budget or Inspect limit that ended the episode, else None).

:func:`check_episode` rebuilds the episode from the sample's seed and options and its
action log with :meth:`Match.replay` (the scorer's check); :func:`write_folders` writes a
log's episodes as one run folder per game (``run.json``, ``runs.jsonl``, ``replays/``,
``summary.json``), with ``bench.json`` once every seed of the task's suite was played,
and re-simulates every replay line by line with
:func:`~playbench.runner.replay.verify_path`; :func:`import_log` (``playbench import``)
keeps the folders only when every episode replays to what the log records.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench import __version__
from playbench.agents.llm.prompts import SCHEMA_IN_JSON_SCHEMA
from playbench.core.errors import PlaybenchError, StateError
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.runner.bench import BENCH, bench_figures
from playbench.runner.episode import REPLAYS
from playbench.runner.outcome import outcome_of
from playbench.runner.replay import dump_lines, header, replay_name, verify_path, write_atomic
from playbench.runner.store import CONFIG, RUNS, SUMMARY
from playbench.runner.suite import Suite, SuiteGame, read_suite
from playbench.runner.summary import summarize

#: the key of a sample's store that holds its episode
STORE_KEY = "playbench"
#: the key of the task's metadata that holds the suite its samples play
SUITE_KEY = "playbench_suite"
#: the scorer's name, the key of its score in a sample
SCORER = "replay"
#: the agent an Inspect result is recorded as: the seat of ``playbench run --agent llm``
AGENT = "llm"
#: what ``run.json`` records about an Inspect run beside the model
DOOR = "inspect"
INSPECT_EXTRA = "reading an Inspect log needs Inspect AI: pip install 'playbench[inspect]'"


class InspectLogError(PlaybenchError):
    """An Inspect log that cannot be read back, or whose episodes do not replay."""


@dataclass(frozen=True, slots=True)
class Checked:
    """An episode rebuilt from its seed and action log."""

    match: Match
    outcome: str
    progress: float

    @property
    def score(self) -> int:
        return self.match.score

    @property
    def fingerprint(self) -> str:
        return self.match.fingerprint()


def episode_replay(
    match: Match, lines: list[JSON], model: str | None, budget: str | None
) -> list[JSON]:
    """The replay file's lines of an episode played on ``match`` (its header, ``lines``
    and its end)."""
    game, seed = match.game, match.seed
    assert seed is not None
    outcome = outcome_of(game, match.state, match.over)
    end: JSON = {
        "score": match.score,
        "fingerprint": match.fingerprint(),
        "steps": len(lines),
        "outcome": outcome,
        "progress": game.progress(match.state),
    }
    if budget is not None:
        end["budget"] = budget
    return [header(game.slug, seed, match.options, AGENT, model), *lines, {"end": end}]


def check_episode(metadata: JSON, held: Any) -> Checked:
    """Rebuild a sample's episode: the actions of its replay from the sample's own game,
    seed and options must each be accepted and lead to the score and fingerprint its
    end records. :class:`InspectLogError` names what does not."""
    if not isinstance(held, dict) or not isinstance(held.get("replay"), list):
        raise InspectLogError("the sample holds no playbench episode (no replay in its store)")
    replay = held["replay"]
    if len(replay) < 2 or not isinstance(replay[-1], dict) or "end" not in replay[-1]:
        raise InspectLogError("the sample's replay has no end line")
    head, lines, end = replay[0], replay[1:-1], replay[-1]["end"]
    for key in ("game", "seed", "options"):
        if head.get(key) != metadata.get(key):
            raise InspectLogError(
                f"the replay's header has {key} {head.get(key)!r}, the sample {metadata.get(key)!r}"
            )
    try:
        actions = [line["action"] for line in lines]
        match = Match.replay(
            metadata["game"], metadata["seed"], metadata["options"] or None, actions
        )
    except (KeyError, TypeError):
        raise InspectLogError("the sample's replay has a line without an action") from None
    except StateError as error:
        raise InspectLogError(f"step {_step_of(str(error))}: {error}") from None
    checked = Checked(
        match, outcome_of(match.game, match.state, match.over), match.game.progress(match.state)
    )
    if end.get("steps") != len(lines):
        raise InspectLogError(f"{len(lines)} steps in the replay, its end says {end.get('steps')}")
    if end.get("score") != checked.score:
        raise InspectLogError(
            f"final score {checked.score} on replay, the log says {end.get('score')}"
        )
    if end.get("fingerprint") != checked.fingerprint:
        raise InspectLogError(
            f"final fingerprint {checked.fingerprint} on replay, the log says "
            f"{end.get('fingerprint')}"
        )
    return checked


def _step_of(reason: str) -> str:
    """The step (from 1) of a :meth:`Match.replay` refusal, which names the entry from 0."""
    words = reason.split()
    if len(words) > 2 and words[:2] == ["log", "entry"] and words[2].isdigit():
        return str(int(words[2]) + 1)
    return "?"


# -- reading a log ------------------------------------------------------------------------


def is_eval_log(path: Path) -> bool:
    """Whether ``path`` is an Inspect log file (``.eval``, a zip, or ``.json``)."""
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return zipfile.is_zipfile(path)
    return path.suffix == ".json" and _json_log(path)


def _json_log(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            start = file.read(4096)
    except OSError:
        return False
    return b'"eval"' in start and b'"version"' in start


def read_log(path: Path) -> Any:
    """The Inspect log at ``path``, samples included."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InspectLogError(INSPECT_EXTRA) from None
    try:
        return read_eval_log(str(path))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise InspectLogError(f"cannot read the Inspect log {path}: {error}") from None


@dataclass(slots=True)
class Written:
    """What :func:`write_folders` wrote and found."""

    folder: Path
    #: the episodes written, per game
    games: dict[str, int] = field(default_factory=dict)
    #: samples not written (errored, or never scored), with why
    skipped: list[str] = field(default_factory=list)
    #: every episode that does not replay to what the log records, named
    problems: list[str] = field(default_factory=list)
    #: ``bench.json``, or None with the reason in ``incomplete``
    bench: JSON | None = None
    incomplete: str = ""


def write_folders(log: Any, where: Path, folder: Path) -> Written:
    """Write ``log``'s episodes into ``folder`` (new, or empty): one run folder per game,
    re-simulated line by line, and ``bench.json`` when every seed of the task's suite
    was played. ``where`` names the log in what is reported."""
    spec = log.eval
    held = (spec.metadata or {}).get(SUITE_KEY)
    if not isinstance(held, dict):
        raise InspectLogError(
            f"{where} is not a log of a playbench task (its task is {spec.task!r})"
        )
    suite = read_suite({key: value for key, value in held.items() if key != "hash"}, str(where))
    model = spec.model
    written = Written(folder)
    runs: dict[str, list[tuple[Any, JSON]]] = {}
    epochs = {sample.epoch for sample in log.samples or []}
    if len(epochs) > 1:
        raise InspectLogError(f"{where} holds {len(epochs)} epochs; playbench reads logs of one")
    for sample in log.samples or []:
        name = f"{where} sample {sample.id}"
        if sample.error is not None:
            written.skipped.append(f"{name}: it errored ({_error_text(sample.error)})")
            continue
        score = (sample.scores or {}).get(SCORER)
        if score is None:
            written.skipped.append(f"{name}: it has no {SCORER} score")
            continue
        metadata = sample.metadata or {}
        episode = (sample.store or {}).get(STORE_KEY)
        try:
            checked = check_episode(metadata, episode)
        except InspectLogError as error:
            written.problems.append(f"{name}: {error}")
            continue
        problem = _suite_problem(suite, metadata) or _score_problem(score, checked)
        if problem:
            written.problems.append(f"{name}: {problem}")
            continue
        record = _record(sample, episode, checked, model)
        runs.setdefault(metadata["game"], []).append((episode["replay"], record))
    for entry in suite.games:
        episodes = runs.get(entry.game, [])
        if not episodes:
            continue
        run = folder / entry.game
        (run / REPLAYS).mkdir(parents=True, exist_ok=True)
        config = _config(spec, suite.describe(), entry, _schema_in(log))
        write_atomic(run / CONFIG, _json_bytes(config))
        records = []
        for replay, record in sorted(episodes, key=lambda pair: pair[1]["seed"]):
            write_atomic(run / record["replay"], dump_lines(replay))
            records.append(record)
        write_atomic(run / RUNS, dump_lines(records))
        summary = summarize(records)
        summary["harness"] = config["harness"]
        write_atomic(run / SUMMARY, _json_bytes(summary))
        written.games[entry.game] = len(records)
        written.problems += [
            f"{where} sample {_sample_of(verdict.path)}: {verdict.problem}"
            for verdict in verify_path(run)
            if not verdict.ok
        ]
    if written.problems:
        return written
    missing = [
        f"{entry.game} {len(set(entry.seeds)) - written.games.get(entry.game, 0)}"
        for entry in suite.games
        if written.games.get(entry.game, 0) != len(entry.seeds)
    ]
    if missing:
        written.incomplete = (
            f"no {BENCH}: episodes of the suite {suite.name} unplayed or unscored "
            f"({', '.join(missing)})"
        )
        return written
    written.bench = bench_figures(folder)
    write_atomic(folder / BENCH, _json_bytes(written.bench))
    return written


def _error_text(error: Any) -> str:
    """A sample's error in a line: behind a retry's opaque ``RetryError[...]``, the last
    line of its traceback (the error the retries ended on)."""
    message = _first_line(error.message)
    if message.startswith("RetryError") and error.traceback:
        last = [line for line in error.traceback.splitlines() if line.strip()]
        if last:
            return _first_line(last[-1])
    return message


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def _sample_of(path: Path) -> str:
    """The sample id of a replay's path (``<game>-<seed>.jsonl``), or the path."""
    return path.stem if path.suffix == ".jsonl" else str(path)


def _suite_problem(suite: Suite, metadata: JSON) -> str:
    """What makes a sample no episode of the task's suite (its game, seed or options)."""
    entry = next((entry for entry in suite.games if entry.game == metadata["game"]), None)
    if entry is None:
        return f"its game {metadata['game']!r} is not one of the suite {suite.name}'s"
    if metadata["seed"] not in entry.seeds:
        return f"its seed {metadata['seed']} is not one the suite lists for {entry.game}"
    if metadata["options"] != entry.options_of(metadata["seed"]):
        return f"its options {metadata['options']!r} are not the suite's for its seed"
    return ""


def _score_problem(score: Any, checked: Checked) -> str:
    """What the sample's score says that its replay does not."""
    metadata = score.metadata or {}
    if score.value != checked.progress:
        return f"its score is progress {score.value}, its replay gives {checked.progress}"
    for key, value in (("score", checked.score), ("fingerprint", checked.fingerprint)):
        if metadata.get(key) != value:
            return f"its score's {key} is {metadata.get(key)!r}, its replay gives {value!r}"
    return ""


def _record(sample: Any, episode: JSON, checked: Checked, model: str) -> JSON:
    """The episode's ``runs.jsonl`` line, as ``playbench run`` writes it."""
    match = checked.match
    seed = match.seed
    assert seed is not None
    record: JSON = {
        "game": match.game.slug,
        "seed": seed,
        "options": match.options or {},
        "agent": AGENT,
        "model": model,
        "score": checked.score,
        "progress": checked.progress,
        "steps": len(episode["replay"]) - 2,
        "outcome": checked.outcome,
        "seconds": round(sample.total_time or 0.0, 4),
        "fingerprint": checked.fingerprint,
        "replay": f"{REPLAYS}/{replay_name(match.game.slug, seed)}",
    }
    if episode.get("budget") is not None:
        record["budget"] = episode["budget"]
    if isinstance(episode.get("llm"), dict):
        record["llm"] = episode["llm"]
    record["inspect"] = {"sample": sample.id, "epoch": sample.epoch}
    return record


def _schema_in(log: Any) -> str:
    """Where the log's requests carried the reply's schema, as the seat's solver was
    given it by the task's start-up check (``json_schema`` in a log from before it)."""
    plan = getattr(log, "plan", None)
    for step in getattr(plan, "steps", None) or []:
        found = (step.params or {}).get("schema_in")
        if isinstance(found, str):
            return found
    return SCHEMA_IN_JSON_SCHEMA


def _config(spec: Any, suite: JSON, entry: SuiteGame, schema_in: str) -> JSON:
    """The run folder's ``run.json``: what ``playbench bench`` records, and the log."""
    args = spec.task_args or {}
    guide = get_game(entry.game).seat_guide()
    budget = {"maxTurns": entry.max_turns, "maxTokens": entry.max_tokens}
    config: JSON = {
        "game": entry.game,
        "agent": AGENT,
        "model": spec.model,
        "llm": {"model": spec.model, "door": DOOR},
        "harness": {
            "replyFormat": args.get("reply_format"),
            "schemaIn": schema_in,
            "fallback": guide.own_fallback or args.get("fallback"),
            "memory": args.get("memory"),
            "reflect": args.get("reflect"),
            "vision": args.get("vision"),
        },
        "options": entry.options,
        "maxSteps": entry.max_steps,
        "server": None,
        "player": None,
        "ranked": False,
        "version": __version__,
        "suite": suite,
        "inspect": {
            "task": spec.task,
            "evalId": spec.eval_id,
            "runId": spec.run_id,
            "created": spec.created,
            "taskArgs": args,
        },
    }
    # as playbench run records them: only when the suite sets them
    set_budget = {key: value for key, value in budget.items() if value is not None}
    if set_budget:
        config["budget"] = set_budget
    if entry.options_by_seed:
        config["optionsBySeed"] = {str(seed): o for seed, o in entry.options_by_seed.items()}
    return config


def _json_bytes(data: JSON) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode()


# -- the commands ---------------------------------------------------------------------------


def import_log(path: Path, out: Path) -> Written:
    """``playbench import LOG --out DIR``: the log's run and bench folders in ``out``,
    kept only when every episode replays to what the log records (else
    :class:`InspectLogError` naming each that does not, and nothing written)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InspectLogError(f"--out {out} is not an empty folder; choose another")
    log = read_log(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        written = write_folders(log, path, staging)
        if written.problems:
            raise InspectLogError(
                f"{path} is refused: {len(written.problems)} episode(s) do not replay to what "
                "it records: " + "; ".join(written.problems[:5])
            )
        refuse_empty(path, log, written)
        if out.exists():
            out.rmdir()
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    written.folder = out
    return written


def verify_log(path: Path) -> Written:
    """``playbench verify LOG``: every episode of the log re-simulated (in a folder of
    its own that is removed after), each problem named in ``problems``."""
    log = read_log(path)
    with tempfile.TemporaryDirectory(prefix="playbench-verify-") as folder:
        written = write_folders(log, path, Path(folder))
    if not written.problems:
        refuse_empty(path, log, written)
    return written


def refuse_empty(path: Path, log: Any, written: Written) -> None:
    """:class:`InspectLogError` when ``log`` holds no scored episode (every sample
    errored, or it has none): a log that measured nothing is no result, whatever
    ``inspect eval`` exited with. It names the eval's status and the samples' errors."""
    if written.games:
        return
    status = f"the eval's status is {log.status}"
    if getattr(log, "error", None) is not None:
        status += f" ({_first_line(log.error.message)})"
    why = "; ".join(written.skipped[:5]) or "it holds no sample"
    raise InspectLogError(f"{path} holds no scored episode, {status}: {why}")
