"""Bench results in the data folder: ``<data>/bench/<id>/``, each a folder written by
``playbench bench`` (``bench.json`` and a run folder per game, with its replays). A folder
gets there by hand (a folder upload) or published (``POST /api/bench``: the folder as a
gzipped tar, unpacked here, checked, and kept under a name of its suite, agent and
contents, with the player who sent it in ``published.json``).

A result is shown only once the server has re-simulated every replay of it and recomputed
its figures from them (:mod:`playbench.server.bench_derive`). The verdict is stored in
``<data>/bench/.verdicts/`` under the digest of the files the check read (and the
playbench version that checked them), so a restart, another worker or another server on
the same folder reads it instead of re-simulating; only a new or changed result is
checked again.

Once a result verifies, the server draws its report (:func:`playbench.runner.report.
write_report`, matplotlib off screen) into ``<id>/report/`` in a child process
(:mod:`playbench.server.bench_report`, at a lower priority and under a CPU budget), one
report at a time per server process, waited on by a thread of its own, never in a
request, so the drawing never holds the interpreter that answers other clients: a draft
folder renamed into place when whole, under a file lock so that two workers never draw
one result at once. A drawing that
fails is logged and its error kept in ``<id>/.report-failed.txt`` (delete the file to draw
again). A ``report/`` put in by hand is served as it is.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from filelock import FileLock, Timeout

from playbench import __version__
from playbench.core.game import JSON
from playbench.runner.bench import BENCH
from playbench.runner.replay import write_atomic
from playbench.runner.report import ReportError
from playbench.server.bench_archive import (
    QUOTED_CHARS,
    RESULT_ID,
    PublishRefused,
    ShelfLimits,
    clip,
    over,
    prune,
    survey,
    unpack,
    within_caps,
)
from playbench.server.bench_derive import Unsound, is_official, read_bounded, unscaled
from playbench.server.bench_report import REPORT
from playbench.server.metrics import BENCH_CHECKS, BENCH_REPORTS

logger = logging.getLogger(__name__)

BENCH_FOLDER = "bench"
PUBLISHED = "published.json"
#: the stored verdicts, one file per digest of a result's contents
VERDICTS = ".verdicts"
#: a result's report: the lock its drawer holds and its failure (the report and its draft
#: are named in :mod:`playbench.server.bench_report`)
REPORT_LOCK = ".report.lock"
REPORT_FAILED = ".report-failed.txt"
#: the module that re-simulates a result in a process of its own
CHECKER = "playbench.server.bench_check"
#: the module that draws a result's report in a process of its own, and its CPU budget
#: (the bot's suite-v2 report draws in a few seconds)
DRAWER = "playbench.server.bench_report"
REPORT_CPU_SECONDS = 120
#: seconds between two rescans of the results seen (for folders changed by hand)
RESCAN_SECONDS = 60.0
#: the bodies already judged, one file per digest of an archive's bytes
ARCHIVES = ".archives"


class ReportStatus(StrEnum):
    """Where a verified result's report stands."""

    DRAWN = "drawn"
    DRAWING = "drawing"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Shelved:
    """One result folder and what the check found (no problems: verified); a problem
    names its file from the result's folder."""

    id: str
    folder: Path
    bench: JSON | None
    problems: tuple[str, ...]

    @property
    def verified(self) -> bool:
        return not self.problems

    @property
    def has_report(self) -> bool:
        return (self.folder / REPORT / "index.html").is_file()

    @property
    def report_failure(self) -> str | None:
        """Why the report could not be drawn, or None."""
        try:
            return (self.folder / REPORT_FAILED).read_text(encoding="utf-8").strip()
        except OSError:
            return None

    @property
    def report_status(self) -> ReportStatus:
        if self.has_report:
            return ReportStatus.DRAWN
        return ReportStatus.FAILED if self.report_failure is not None else ReportStatus.DRAWING

    @property
    def official(self) -> bool:
        """Whether its suite is one the runner ships (name and hash), not one of its own."""
        return self.bench is not None and is_official(self.bench["suite"])

    @property
    def player(self) -> str | None:
        """The player who published it (None for a folder put in by hand)."""
        try:
            return json.loads((self.folder / PUBLISHED).read_text(encoding="utf-8"))["player"]
        except (OSError, ValueError, KeyError, TypeError):
            return None


def _checked_files(folder: Path) -> list[Path]:
    """The files a check reads: ``bench.json`` and every game folder's (not the report,
    nor the server's own hidden files)."""
    paths = [folder / BENCH]
    for child in sorted(folder.iterdir()):
        if child.is_dir() and child.name != REPORT and not child.name.startswith("."):
            paths += sorted(path for path in child.rglob("*") if path.is_file())
    return paths


def _digest(folder: Path, paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        with path.open("rb") as stream:
            digest.update(hashlib.file_digest(stream, "sha256").digest())
    return digest.hexdigest()


def _relative(problem: str, folder: Path) -> str:
    """A problem as a reader may see it: paths from the result's folder (the data
    folder's own path is no business of the page's readers), and no longer than a few
    lines."""
    text = problem.replace(f"{folder}{os.sep}", "").replace(str(folder), "the result")
    return clip(text, QUOTED_CHARS * 3)


class BenchShelf:
    """The results under one folder, each checked once per change of its contents, in a
    process of its own under the CPU budget of ``limits``. A result seen once by this
    shelf is listed from what its check kept (cost independent of its files); a result
    put in by hand and changed since is found by :meth:`rescan`, which the shelf runs
    on a thread of its own every :data:`RESCAN_SECONDS`."""

    def __init__(self, root: Path, limits: ShelfLimits | None = None) -> None:
        self.root = root
        self.limits = limits or ShelfLimits()
        self._lock = threading.Lock()
        self._checking = threading.Lock()
        #: folder name: (the files' sizes and times, their digest), so an unchanged
        #: folder is not read again to find its digest
        self._digests: dict[str, tuple[tuple[tuple[str, int, int], ...], str]] = {}
        self._verdicts: dict[str, tuple[str, ...]] = {}
        #: folder name: what its last check found, as listed
        self._seen: dict[str, Shelved] = {}
        self._rescanner: threading.Thread | None = None
        self.drawer = ReportDrawer()

    def results(self) -> list[Shelved]:
        """Every result folder, verified or not, by id; a verified one without a report
        has it drawn. Only a folder this shelf has not seen yet is read."""
        if not self.root.is_dir():
            return []
        found = [
            self._known(folder)
            for folder in sorted(self.root.iterdir())
            if RESULT_ID.match(folder.name) and (folder / BENCH).is_file()
        ]
        for shelved in found:
            if shelved.verified and shelved.report_status is ReportStatus.DRAWING:
                self.drawer.request(shelved.folder)
        self._start_rescanner()
        return found

    def verified(self, result_id: str) -> Shelved | None:
        """The result ``result_id`` if it is there and verified."""
        if not RESULT_ID.match(result_id):
            return None
        folder = self.root / result_id
        if not (folder / BENCH).is_file():
            return None
        shelved = self._known(folder)
        return shelved if shelved.verified else None

    def rescan(self) -> int:
        """Read again every folder seen before (their files' sizes and times), check
        those that changed and forget those gone; how many changed their verdict."""
        with self._lock:
            seen = dict(self._seen)
        changed = 0
        for name, before in seen.items():
            folder = self.root / name
            if not (folder / BENCH).is_file():
                with self._lock:
                    self._seen.pop(name, None)
                continue
            changed += self._shelved(folder).problems != before.problems
        return changed

    def _start_rescanner(self) -> None:
        with self._lock:
            if self._rescanner is not None:
                return
            self._rescanner = threading.Thread(
                target=self._rescan_forever, name="bench-rescan", daemon=True
            )
        self._rescanner.start()

    def _rescan_forever(self) -> None:
        while True:
            time.sleep(RESCAN_SECONDS)
            try:
                self.rescan()
            except Exception:  # a folder gone meanwhile: the next round reads the rest
                logger.exception("the bench shelf's rescan failed")

    def _known(self, folder: Path) -> Shelved:
        with self._lock:
            shelved = self._seen.get(folder.name)
        return shelved if shelved is not None else self._shelved(folder)

    def publish(self, archive: bytes, player: str) -> Shelved:
        """Keep a published bench result once every replay of it verifies, and have its
        report drawn; the same result published again keeps its id, and the same bytes
        again are answered from their first verdict. :class:`PublishRefused` with the
        first problem."""
        body = survey(archive, self.limits)
        self.root.mkdir(parents=True, exist_ok=True)
        judged = self._judged(body)
        if judged is not None:
            return judged
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        try:
            try:
                shelved = self._admit(archive, incoming, player)
            except PublishRefused as refused:
                if refused.final:
                    self._judge(body, {"status": refused.status, "error": str(refused)})
                raise
            self._judge(body, {"id": shelved.id})
            return shelved
        finally:
            shutil.rmtree(incoming, ignore_errors=True)

    def _admit(self, archive: bytes, incoming: Path, player: str) -> Shelved:
        unpack(archive, incoming, self.limits)
        bench = within_caps(incoming, self.limits)
        prune(incoming, bench)
        problems = self._check(incoming)
        if problems:
            raise PublishRefused(422, f"{problems[0]} (nothing was kept)")
        if not is_official(bench["suite"]):
            (incoming / BENCH).write_text(json.dumps(unscaled(bench), indent=2), encoding="utf-8")
        digest = _digest(incoming, _checked_files(incoming))
        result_id = (
            f"{_slug(bench['suite']['name'])}-{_slug(bench['agent'])}"
            f"{'-' + _slug(bench['model']) if bench.get('model') else ''}-{digest[:12]}"
        )
        (incoming / PUBLISHED).write_text(
            json.dumps({"player": player, "publishedAt": datetime.now(UTC).isoformat()}),
            encoding="utf-8",
        )
        with self._lock:
            self._store(digest, ())
        folder = self.root / result_id
        if not folder.exists():
            incoming.rename(folder)
        shelved = self._shelved(folder)
        if shelved.verified and shelved.report_status is ReportStatus.DRAWING:
            self.drawer.request(folder)
        return shelved

    def _judged(self, body: str) -> Shelved | None:
        """The stored verdict on an archive of digest ``body``: its result, or
        :class:`PublishRefused` as it was refused; None when never judged (or its
        result is gone)."""
        try:
            stored = json.loads(self._archive_path(body).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("version") != __version__:
            return None
        if isinstance(stored.get("error"), str) and isinstance(stored.get("status"), int):
            raise PublishRefused(stored["status"], stored["error"])
        result_id = stored.get("id")
        if not isinstance(result_id, str) or not RESULT_ID.match(result_id):
            return None
        return self.verified(result_id)

    def _judge(self, body: str, verdict: JSON) -> None:
        path = self._archive_path(body)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"version": __version__, **verdict}).encode())

    def _archive_path(self, body: str) -> Path:
        return self.root / ARCHIVES / f"{body}.json"

    def _check(self, folder: Path, digest: str | None = None) -> tuple[str, ...]:
        """The problems of ``folder``, found in a process of its own, one at a time (the
        stored verdict on ``digest`` if another thread kept one while this one waited)."""
        with self._checking:
            if digest is not None:
                with self._lock:
                    problems = self._verdict(digest)
                if problems is not None:
                    return problems
            BENCH_CHECKS.inc()
            found = _simulate(folder, self.limits.cpu_seconds)
        return tuple(_relative(problem, folder) for problem in found)

    def _shelved(self, folder: Path) -> Shelved:
        try:
            digest = self._digest_of(folder)
        except OSError as error:
            return Shelved(folder.name, folder, None, (f"cannot read it: {error.strerror}",))
        with self._lock:
            problems = self._verdict(digest)
        if problems is None:
            problems = self._check(folder, digest)
            with self._lock:
                self._store(digest, problems)
        bench = None
        if not problems:
            try:
                bench = read_bounded(folder / BENCH, BENCH)
            except Unsound as error:
                problems = (str(error),)
            else:
                if not is_official(bench["suite"]):
                    bench = unscaled(bench)
        shelved = Shelved(folder.name, folder, bench, problems)
        with self._lock:
            self._seen[folder.name] = shelved
        return shelved

    def _digest_of(self, folder: Path) -> str:
        paths = _checked_files(folder)
        signature = tuple(
            (str(path.relative_to(folder)), stat.st_size, stat.st_mtime_ns)
            for path in paths
            for stat in [path.stat()]
        )
        with self._lock:
            known = self._digests.get(folder.name)
        if known is not None and known[0] == signature:
            return known[1]
        digest = _digest(folder, paths)
        with self._lock:
            self._digests[folder.name] = (signature, digest)
        return digest

    def _verdict_path(self, digest: str) -> Path:
        return self.root / VERDICTS / f"{digest}.json"

    def _verdict(self, digest: str) -> tuple[str, ...] | None:
        """The stored verdict on contents of ``digest`` (checked by this version), or None."""
        if digest in self._verdicts:
            return self._verdicts[digest]
        try:
            stored = json.loads(self._verdict_path(digest).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("version") != __version__:
            return None
        problems = stored.get("problems")
        if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
            return None
        self._verdicts[digest] = tuple(problems)
        return self._verdicts[digest]

    def _store(self, digest: str, problems: tuple[str, ...]) -> None:
        """Keep a verdict, in memory and on disk (hold the lock)."""
        self._verdicts[digest] = problems
        path = self._verdict_path(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"version": __version__, "problems": list(problems)}
        write_atomic(path, json.dumps(record).encode())


class ReportDrawer:
    """Draws the reports of verified results one at a time, each in a child process that a
    daemon thread of its own (started with the first request) waits on, so that no
    request waits for matplotlib nor shares the interpreter with it. :meth:`close` (run at
    the process's exit) lets the report being drawn finish and draws no other."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Path | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending: set[Path] = set()
        self._thread: threading.Thread | None = None
        self._closed = False

    def request(self, folder: Path) -> None:
        """Have ``folder``'s report drawn (once, however often asked while it waits)."""
        with self._lock:
            if self._closed or folder in self._pending:
                return
            self._pending.add(folder)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bench-report", daemon=True)
                self._thread.start()
                atexit.register(self.close)
        self._queue.put(folder)

    def close(self) -> None:
        """Draw no more reports, once the one being drawn is done."""
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join()

    def _run(self) -> None:
        while True:
            folder = self._queue.get()
            if folder is None or self._closed:
                return
            try:
                draw_report(folder)
            except Exception:  # a folder gone meanwhile: the thread goes on with the next
                logger.exception("no report drawn for the bench result %s", folder)
            finally:
                with self._lock:
                    self._pending.discard(folder)


def draw_report(folder: Path) -> bool:
    """Draw the report of the verified result in ``folder`` into ``folder/report``
    unless it is there, has failed, or another process is drawing it; whether it drew.
    A failure is logged and kept in :data:`REPORT_FAILED`, never raised."""
    lock = FileLock(folder / REPORT_LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    try:
        if (folder / REPORT / "index.html").is_file() or (folder / REPORT_FAILED).exists():
            return False
        try:
            _draw(folder)
        except Exception as error:  # whatever went wrong is the result's, shown on its row
            logger.exception("report not drawn: %s", folder.name)
            reason = _relative(str(error), folder) or type(error).__name__
            write_atomic(folder / REPORT_FAILED, f"{reason}\n".encode())
            BENCH_REPORTS.labels(outcome="failed").inc()
            return False
        BENCH_REPORTS.labels(outcome="drawn").inc()
        return True
    finally:
        lock.release()


def _draw(folder: Path, cpu_seconds: int = REPORT_CPU_SECONDS) -> None:
    """:func:`playbench.server.bench_report.draw` of ``folder`` run by that module in a
    process of its own (lower priority, its CPU capped at ``cpu_seconds``);
    :class:`ReportError` with its reason when it did not draw."""
    command = [sys.executable, "-m", DRAWER, str(folder), str(cpu_seconds)]
    limit = cpu_seconds * 4 + 30
    try:
        done = subprocess.run(command, capture_output=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        raise ReportError(f"the drawing ran past {limit} s") from None
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise ReportError(f"the drawing needs over {cpu_seconds} s of CPU")
    if done.returncode != 0:
        reason = done.stdout.decode(errors="replace").strip()
        if not reason:
            logger.error("the report drawer of %s failed: %s", folder.name, done.stderr[-2000:])
        raise ReportError(reason or f"the drawing stopped with exit status {done.returncode}")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:30] or "x"


def _simulate(folder: Path, cpu_seconds: int) -> list[str]:
    """:func:`playbench.server.bench_derive.derive_problems` of ``folder`` run by
    :mod:`playbench.server.bench_check` in a process of its own (lower priority, its
    CPU capped at ``cpu_seconds``); :class:`PublishRefused` when it could not finish."""
    command = [sys.executable, "-m", CHECKER, str(folder), str(cpu_seconds)]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=cpu_seconds * 4 + 30, check=False
        )
    except subprocess.TimeoutExpired:
        raise over(f"its re-simulation ran past {cpu_seconds * 4 + 30} s") from None
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise over(f"its re-simulation needs over {cpu_seconds} s of CPU")
    try:
        problems = json.loads(done.stdout)
    except ValueError:
        problems = None
    if done.returncode != 0 or not isinstance(problems, list):
        logger.error("the bench check of %s failed: %s", folder.name, done.stderr[-2000:])
        raise PublishRefused(503, "the server could not check it: try again later", final=False)
    return [str(problem) for problem in problems]


_SHELVES: dict[Path, BenchShelf] = {}
_SHELVES_LOCK = threading.Lock()


def shelf_for(data_dir: Path, limits: ShelfLimits | None = None) -> BenchShelf:
    """The shelf of a data folder (one per folder and process; ``limits`` those of the
    first call)."""
    root = (data_dir / BENCH_FOLDER).resolve()
    with _SHELVES_LOCK:
        if root not in _SHELVES:
            _SHELVES[root] = BenchShelf(root, limits)
        return _SHELVES[root]
