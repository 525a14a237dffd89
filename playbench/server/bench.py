"""Bench results in the data folder: ``<data>/bench/<id>/``, each a folder written by
``playbench bench`` (``bench.json`` and a run folder per game, with its replays). A folder
gets there by hand (a folder upload) or published (``POST /api/bench``: the folder as a
gzipped tar, unpacked here, checked, and kept under a name of its suite, agent and
contents, with the player who sent it in ``published.json``).

A result is shown only once the server has re-simulated every replay of it and recomputed
its figures (:func:`playbench.runner.bench.check_bench`). The verdict is stored in
``<data>/bench/.verdicts/`` under the digest of the files the check read (and the
playbench version that checked them), so a restart, another worker or another server on
the same folder reads it instead of re-simulating; only a new or changed result is
checked again.

Once a result verifies, the server draws its report (:func:`playbench.runner.report.
write_report`, matplotlib off screen) into ``<id>/report/`` on a thread of its own, one
report at a time per process, never in a request: a draft folder renamed into place when
whole, under a file lock so that two workers never draw one result at once. A drawing that
fails is logged and its error kept in ``<id>/.report-failed.txt`` (delete the file to draw
again). A ``report/`` put in by hand is served as it is.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import queue
import re
import shutil
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from filelock import FileLock, Timeout

from playbench import __version__
from playbench.core.game import JSON
from playbench.runner.bench import BENCH, check_bench, read_bench
from playbench.runner.replay import write_atomic
from playbench.runner.report import ReportError, write_report
from playbench.server.metrics import BENCH_CHECKS, BENCH_REPORTS

logger = logging.getLogger(__name__)

BENCH_FOLDER = "bench"
REPORT = "report"
PUBLISHED = "published.json"
#: the stored verdicts, one file per digest of a result's contents
VERDICTS = ".verdicts"
#: a result's report: the lock its drawer holds, the draft it draws into, its failure
REPORT_LOCK = ".report.lock"
REPORT_DRAFT = ".report-draft-"
REPORT_FAILED = ".report-failed.txt"
RESULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
#: a published archive's unpacked files: at most this many, this large in all
MAX_FILES = 20_000
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: a name in an archive: folders and files of letters, digits, ``.``, ``_`` and ``-``
MEMBER = re.compile(r"^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$")


class PublishRefused(Exception):
    """An archive that is not a sound bench result; ``status`` is the HTTP answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


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
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _relative(problem: str, folder: Path) -> str:
    # the data folder's own path is no business of the page's readers
    return problem.replace(f"{folder}{os.sep}", "")


def _check(folder: Path) -> tuple[str, ...]:
    BENCH_CHECKS.inc()
    return tuple(_relative(problem, folder) for problem in check_bench(folder))


class BenchShelf:
    """The results under one folder, each checked once per change of its contents."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._checking = threading.Lock()
        #: folder name: (the files' sizes and times, their digest), so an unchanged
        #: folder is not read again to find its digest
        self._digests: dict[str, tuple[tuple[tuple[str, int, int], ...], str]] = {}
        self._verdicts: dict[str, tuple[str, ...]] = {}
        self.drawer = ReportDrawer()

    def results(self) -> list[Shelved]:
        """Every result folder, verified or not, by id; a verified one without a report
        has it drawn."""
        if not self.root.is_dir():
            return []
        found = [
            self._shelved(folder)
            for folder in sorted(self.root.iterdir())
            if folder.is_dir() and RESULT_ID.match(folder.name) and (folder / BENCH).is_file()
        ]
        for shelved in found:
            if shelved.verified and shelved.report_status is ReportStatus.DRAWING:
                self.drawer.request(shelved.folder)
        return found

    def verified(self, result_id: str) -> Shelved | None:
        """The result ``result_id`` if it is there and verified."""
        if not RESULT_ID.match(result_id):
            return None
        folder = self.root / result_id
        if not (folder / BENCH).is_file():
            return None
        shelved = self._shelved(folder)
        return shelved if shelved.verified else None

    def publish(self, archive: bytes, player: str) -> Shelved:
        """Keep a published bench result once every replay of it verifies, and have its
        report drawn; the same result published again keeps its id.
        :class:`PublishRefused` with the first problem."""
        self.root.mkdir(parents=True, exist_ok=True)
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        try:
            _unpack(archive, incoming)
            problems = _check(incoming)
            if problems:
                raise PublishRefused(422, f"{problems[0]} (nothing was kept)")
            bench = read_bench(incoming)
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
            shelved = Shelved(result_id, folder, bench, ())
            if shelved.report_status is ReportStatus.DRAWING:
                self.drawer.request(folder)
            return shelved
        finally:
            shutil.rmtree(incoming, ignore_errors=True)

    def _shelved(self, folder: Path) -> Shelved:
        try:
            digest = self._digest_of(folder)
        except OSError as error:
            return Shelved(folder.name, folder, None, (f"cannot read it: {error.strerror}",))
        with self._lock:
            problems = self._verdict(digest)
        if problems is None:
            with self._checking:  # one check at a time; the verdicts stay readable meanwhile
                with self._lock:
                    problems = self._verdict(digest)  # checked while this thread waited?
                if problems is None:
                    problems = _check(folder)
                    with self._lock:
                        self._store(digest, problems)
        bench = read_bench(folder) if not problems else None
        return Shelved(folder.name, folder, bench, problems)

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
    """Draws the reports of verified results one at a time, on a daemon thread of its own
    (started with the first request), so that no request waits for matplotlib."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Path] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending: set[Path] = set()
        self._thread: threading.Thread | None = None

    def request(self, folder: Path) -> None:
        """Have ``folder``'s report drawn (once, however often asked while it waits)."""
        with self._lock:
            if folder in self._pending:
                return
            self._pending.add(folder)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bench-report", daemon=True)
                self._thread.start()
        self._queue.put(folder)

    def _run(self) -> None:
        while True:
            folder = self._queue.get()
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


def _draw(folder: Path) -> None:
    """``playbench report`` of ``folder`` into a draft beside it, renamed into place."""
    if (folder / REPORT).exists():
        raise ReportError(f"{REPORT} is there but holds no index.html: move it away")
    for stale in folder.glob(f"{REPORT_DRAFT}*"):
        shutil.rmtree(stale, ignore_errors=True)
    draft = Path(tempfile.mkdtemp(prefix=REPORT_DRAFT, dir=folder))
    try:
        write_report([folder], draft)
        draft.rename(folder / REPORT)
    finally:
        shutil.rmtree(draft, ignore_errors=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:30] or "x"


def _unpack(archive: bytes, into: Path) -> None:
    """Unpack a gzipped tar of plain files with plain names; :class:`PublishRefused`
    for anything else, as soon as it is seen (an archive is read no further than its
    limits)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            files = []
            total = 0
            for count, member in enumerate(tar, start=1):
                if count > MAX_FILES:
                    raise PublishRefused(413, f"the archive holds over {MAX_FILES} entries")
                name = member.name.removeprefix("./").rstrip("/")
                if member.isdir() and (not name or MEMBER.match(name)):
                    continue
                if not member.isfile() or not MEMBER.match(name) or REPORT in name.split("/"):
                    raise PublishRefused(
                        422, f"the archive holds {member.name!r}: only a bench folder's files"
                    )
                total += member.size
                if total > MAX_UNPACKED_BYTES:
                    raise PublishRefused(413, f"the archive unpacks to over {MAX_UNPACKED_BYTES}")
                member.name = name
                files.append(member)
            tar.extractall(into, members=files, filter="data")
    except (tarfile.TarError, EOFError, OSError) as error:
        raise PublishRefused(
            422, f"the body is not a gzipped tar of a bench folder: {error}"
        ) from None


_SHELVES: dict[Path, BenchShelf] = {}
_SHELVES_LOCK = threading.Lock()


def shelf_for(data_dir: Path) -> BenchShelf:
    """The shelf of a data folder (one per folder and process)."""
    root = (data_dir / BENCH_FOLDER).resolve()
    with _SHELVES_LOCK:
        return _SHELVES.setdefault(root, BenchShelf(root))
