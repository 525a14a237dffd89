"""A published bench result's figures derived by the server from its replays alone.

An upload's ``bench.json`` and ``runs.jsonl`` are claims. :func:`derive_problems`
re-simulates the one replay the suite names for each of its episodes (its game, seed and
options exactly the suite's for that slot, each slot once, each replay serving one slot),
takes each episode's score, progress, outcome, steps and fingerprint from the
re-simulated :class:`~playbench.core.match.Match` and the turns a model played from the
replay's turn notes, and recomputes ``bench.json`` from those with the runner's own
:func:`~playbench.runner.bench.bench_figures`. Any claim that differs is named as a
problem, so a result is kept only when every figure it shows is the server's.

A result's suite is *official* when its name and hash are those of a suite the runner
ships (:func:`~playbench.runner.suite.shipped_suites`); a suite of another name is shown
apart, under its hash, with no normalised scale (:func:`unscaled`: its baselines would be
the publisher's), and a suite that takes a shipped name without being that suite is
refused.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import orjson

from playbench.core.game import JSON
from playbench.runner.bench import BENCH, FORMAT, bench_figures
from playbench.runner.episode import REPLAYS
from playbench.runner.replay import replay_name, verify_replay
from playbench.runner.store import CONFIG, RUNS
from playbench.runner.suite import Suite, SuiteGame, load_suite, read_suite, shipped_suites

#: the bytes of ``bench.json`` or a ``run.json`` at most (suite-v2's is under 10 KB)
MAX_JSON_BYTES = 1 << 20
#: the bytes of one ``runs.jsonl`` line at most
MAX_RECORD_BYTES = 64 * 1024
#: how deep a ``bench.json``, ``run.json`` or record may nest (they use 4 levels)
MAX_DEPTH = 16
#: the figures of an episode taken from its re-simulation, never from its record
DERIVED = ("score", "progress", "outcome", "steps", "fingerprint")
#: the counts of a model's turns that its replay's turn notes give (so never a record's)
TURN_COUNTS = ("turns", "modelTurns")


#: a figure without a scale, and the figures only a scale gives
NO_SCALE = {"normalisedScore": None, "normalisedCi95": None}
SCALE_ONLY = ("normalisedBySeed", "scale")


class Unsound(Exception):
    """A file of a result that cannot be read as the result's, or a claim that differs
    from what the replays give; the message names the file."""


def depth(value: Any) -> int:
    """How deep a parsed JSON value nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
    return deepest


def parse_bounded(data: bytes, where: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """``data`` parsed as JSON within ``max_bytes`` and :data:`MAX_DEPTH`;
    :class:`Unsound` naming ``where`` otherwise."""
    if len(data) > max_bytes:
        raise Unsound(f"{where} is over {max_bytes:,} bytes")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise Unsound(f"{where} is not JSON: {error}") from None
    if depth(value) > MAX_DEPTH:
        raise Unsound(f"{where} nests deeper than {MAX_DEPTH} levels")
    return value


def read_bounded(path: Path, where: str, max_bytes: int = MAX_JSON_BYTES) -> JSON:
    """A JSON object file read within the bounds; :class:`Unsound` naming ``where``."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise Unsound(f"{where} is over {max_bytes:,} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise Unsound(f"{where} is missing") from None
    except OSError as error:
        raise Unsound(f"cannot read {where}: {error.strerror}") from None
    value = parse_bounded(data, where, max_bytes)
    if not isinstance(value, dict):
        raise Unsound(f"{where} is not a JSON object")
    return value


@functools.cache
def shipped_hashes() -> dict[str, str]:
    """Each suite the runner ships, by name: its hash."""
    return {name: load_suite(name).hash for name in shipped_suites()}


def is_official(suite: JSON) -> bool:
    """Whether a result's suite (as ``bench.json`` records it) is one the runner ships."""
    name, claimed = suite.get("name"), suite.get("hash")
    return isinstance(name, str) and shipped_hashes().get(name) == claimed


def unscaled(bench: JSON) -> JSON:
    """``bench`` without a normalised scale: how a result of a suite the runner does not
    ship is kept and shown, since nothing but the shipped suites' own baselines may set
    a scale (a suite file's baselines are no part of its hash)."""
    shown = {**bench, "headline": {**bench["headline"], **NO_SCALE}}
    shown["games"] = {
        slug: {
            **{key: value for key, value in figures.items() if key not in SCALE_ONLY},
            **NO_SCALE,
        }
        for slug, figures in bench["games"].items()
    }
    return shown


def _suite(bench: JSON) -> Suite:
    claimed = bench.get("suite")
    if not isinstance(claimed, dict):
        raise Unsound(f"{BENCH} names no suite")
    suite = read_suite({key: value for key, value in claimed.items() if key != "hash"}, BENCH)
    if suite.hash != claimed.get("hash"):
        raise Unsound(f"{BENCH}: its suite does not match its hash")
    shipped = shipped_hashes().get(suite.name)
    if shipped is not None and shipped != suite.hash:
        raise Unsound(
            f"{BENCH}: its suite is named {suite.name!r} but is not the shipped {suite.name} "
            f"({shipped[:19]}, this one {suite.hash[:19]}): give it a name of its own"
        )
    return suite


def _records(run: Path, where: str) -> list[JSON]:
    path = run / RUNS
    records = []
    try:
        with path.open("rb") as stream:
            for number, line in enumerate(stream, start=1):
                record = parse_bounded(line, f"{where} line {number}", MAX_RECORD_BYTES)
                if not isinstance(record, dict):
                    raise Unsound(f"{where} line {number} is not a run record")
                records.append(record)
    except FileNotFoundError:
        raise Unsound(f"{where} is missing") from None
    return records


def _slots(entry: SuiteGame, records: list[JSON], where: str) -> dict[int, JSON]:
    """The record of each of the suite's seeds: each seed once, none but the suite's."""
    found: dict[int, JSON] = {}
    for number, record in enumerate(records, start=1):
        seed = record.get("seed")
        if type(seed) is not int or seed not in entry.seeds:
            raise Unsound(f"{where} line {number}: seed {seed!r} is no episode of the suite's")
        if seed in found:
            raise Unsound(f"{where} line {number}: seed {seed} is recorded twice")
        found[seed] = record
    missing = sorted(set(entry.seeds) - set(found))
    if missing:
        raise Unsound(f"{where}: {len(missing)} seed(s) of the suite unplayed ({missing[0]}, …)")
    return found


def _episode(run: Path, entry: SuiteGame, seed: int, record: JSON, where: str) -> JSON:
    """The record of one slot with every figure taken from its replay's re-simulation."""
    replay = f"{REPLAYS}/{replay_name(entry.game, seed)}"
    if record.get("replay") != replay:
        raise Unsound(
            f"{where}: the episode of seed {seed} names the replay {record.get('replay')!r}, "
            f"not its own {replay}"
        )
    name = f"{entry.game}/{replay}"
    if not (run / replay).is_file():
        raise Unsound(f"{name} is missing")
    try:
        verdict = verify_replay(run / replay)
    except Exception as error:  # a malformed file the replay reader did not foresee
        raise Unsound(f"{name} cannot be re-simulated: {type(error).__name__}") from None
    if not verdict.ok:
        raise Unsound(f"{name}: {verdict.problem}")
    header = verdict.header or {}
    options = entry.options_of(seed)
    slot = (entry.game, seed, options)
    if (header.get("game"), header.get("seed"), header.get("options")) != slot:
        raise Unsound(
            f"{name} is {header.get('game')!r} on seed {header.get('seed')!r} with options "
            f"{header.get('options')!r}: the suite's episode is {entry.game} on seed {seed} "
            f"with options {options}"
        )
    if verdict.steps is not None and verdict.steps > entry.max_steps:
        raise Unsound(f"{name}: {verdict.steps} actions, past the suite's {entry.max_steps}")
    derived = {
        **record,
        "game": entry.game,
        "seed": seed,
        "options": options,
        "score": verdict.score,
        "progress": verdict.progress,
        "outcome": verdict.outcome,
        "steps": verdict.steps,
        "fingerprint": verdict.fingerprint,
    }
    for key in ("game", "options", *DERIVED):
        if record.get(key) != derived[key]:
            raise Unsound(
                f"{where}: the episode of seed {seed} records {key} {record.get(key)!r}, "
                f"its replay gives {derived[key]!r}"
            )
    if isinstance(record.get("llm"), dict):
        derived["llm"] = {k: v for k, v in record["llm"].items() if k not in TURN_COUNTS}
    return derived


def _difference(claimed: Any, derived: Any, where: str = "") -> str | None:
    """The first place where ``claimed`` differs from ``derived``, as ``a.b: x, y``."""
    if isinstance(claimed, dict) and isinstance(derived, dict):
        for key in [*derived, *(key for key in claimed if key not in derived)]:
            found = _difference(claimed.get(key), derived.get(key), f"{where}.{key}")
            if found is not None:
                return found
        return None
    if claimed != derived or type(claimed) is not type(derived):
        return f"{where.lstrip('.')} says {claimed!r}, the replays give {derived!r}"
    return None


def derived_bench(folder: Path) -> JSON:
    """``bench.json`` of the result in ``folder`` recomputed from its replays alone;
    :class:`Unsound` naming the first file or claim that is not the result's."""
    bench = read_bounded(folder / BENCH, BENCH)
    if bench.get("bench") != FORMAT:
        raise Unsound(f"{BENCH} is not a bench result of format {FORMAT}")
    suite = _suite(bench)
    scratch = Path(tempfile.mkdtemp(prefix="playbench-derive-"))
    try:
        for entry in suite.games:
            run = folder / entry.game
            config = read_bounded(run / CONFIG, f"{entry.game}/{CONFIG}")
            where = f"{entry.game}/{RUNS}"
            slots = _slots(entry, _records(run, where), where)
            served = {run / REPLAYS / replay_name(entry.game, seed) for seed in entry.seeds}
            for path in sorted((run / REPLAYS).glob("*")):
                if path not in served:
                    raise Unsound(f"{entry.game}/{REPLAYS}/{path.name} serves no episode")
            derived = [_episode(run, entry, seed, slots[seed], where) for seed in entry.seeds]
            copy = scratch / entry.game
            copy.mkdir()
            (copy / CONFIG).write_bytes(orjson.dumps(config))
            (copy / RUNS).write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in derived))
            (copy / REPLAYS).symlink_to((run / REPLAYS).resolve(), target_is_directory=True)
        return bench_figures(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def derive_problems(folder: Path) -> list[str]:
    """What keeps the result in ``folder`` from being shown: nothing when every figure
    of its ``bench.json`` is the one its replays give."""
    try:
        bench = read_bounded(folder / BENCH, BENCH)
        derived = derived_bench(folder)
    except Unsound as error:
        return [str(error)]
    except Exception as error:  # a malformed file no reader foresaw: the result's, final
        return [f"the result cannot be read: {type(error).__name__}: {str(error)[:200]}"]
    if not is_official(bench["suite"]):
        bench, derived = unscaled(bench), unscaled(derived)
    found = _difference(bench, derived)
    return [] if found is None else [f"{BENCH}: {found}"]
