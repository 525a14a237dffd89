"""Bench results in the data folder: ``<data>/bench/<id>/``, each a folder written by
``playbench bench`` (``bench.json`` and a run folder per game, with its replays; a
``report/`` from ``playbench report`` is linked when present). A folder gets there by
hand (a folder upload) or published (``POST /api/bench``: the folder as a gzipped tar,
unpacked here, checked, and kept under a name of its suite, agent and contents, with the
player who sent it in ``published.json``).

A result is shown only once the server has re-simulated every replay of it and recomputed
its figures (:func:`playbench.runner.bench.check_bench`). The verdict is kept per worker
against a digest of the files it read, so a folder is checked again only when it changes.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from playbench.core.game import JSON
from playbench.runner.bench import BENCH, check_bench, read_bench

BENCH_FOLDER = "bench"
REPORT = "report"
PUBLISHED = "published.json"
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


@dataclass(frozen=True, slots=True)
class Shelved:
    """One result folder and what the check found (no problems: verified)."""

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
    def player(self) -> str | None:
        """The player who published it (None for a folder put in by hand)."""
        try:
            return json.loads((self.folder / PUBLISHED).read_text(encoding="utf-8"))["player"]
        except (OSError, ValueError, KeyError, TypeError):
            return None


def _digest(folder: Path) -> str:
    """A digest of the files a check reads: ``bench.json`` and every game's folder."""
    digest = hashlib.sha256()
    paths = [folder / BENCH]
    for child in sorted(folder.iterdir()):
        if child.is_dir() and child.name != REPORT:
            paths += sorted(path for path in child.rglob("*") if path.is_file())
    for path in paths:
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class BenchShelf:
    """The results under one folder, each checked once per change."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._verdicts: dict[str, tuple[str, tuple[str, ...]]] = {}

    def results(self) -> list[Shelved]:
        """Every result folder, verified or not, by id."""
        if not self.root.is_dir():
            return []
        return [
            self._shelved(folder)
            for folder in sorted(self.root.iterdir())
            if folder.is_dir() and RESULT_ID.match(folder.name) and (folder / BENCH).is_file()
        ]

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
        """Keep a published bench result once every replay of it verifies; the same result
        published again keeps its id. :class:`PublishRefused` with the first problem."""
        self.root.mkdir(parents=True, exist_ok=True)
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        try:
            _unpack(archive, incoming)
            problems = check_bench(incoming)
            if problems:
                raise PublishRefused(
                    422, problems[0].replace(f"{incoming}/", "") + " (nothing was kept)"
                )
            bench = read_bench(incoming)
            digest = _digest(incoming)
            result_id = (
                f"{_slug(bench['suite']['name'])}-{_slug(bench['agent'])}"
                f"{'-' + _slug(bench['model']) if bench.get('model') else ''}-{digest[:12]}"
            )
            (incoming / PUBLISHED).write_text(
                json.dumps({"player": player, "publishedAt": datetime.now(UTC).isoformat()}),
                encoding="utf-8",
            )
            folder = self.root / result_id
            if not folder.exists():
                incoming.rename(folder)
            with self._lock:
                self._verdicts[result_id] = (digest, ())
            return Shelved(result_id, folder, bench, ())
        finally:
            shutil.rmtree(incoming, ignore_errors=True)

    def _shelved(self, folder: Path) -> Shelved:
        try:
            digest = _digest(folder)
        except OSError as error:
            return Shelved(folder.name, folder, None, (f"cannot read {folder.name}: {error}",))
        with self._lock:
            known = self._verdicts.get(folder.name)
            if known is not None and known[0] == digest:
                problems = known[1]
            else:
                problems = tuple(check_bench(folder))
                self._verdicts[folder.name] = (digest, problems)
        bench = read_bench(folder) if not problems else None
        return Shelved(folder.name, folder, bench, problems)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:30] or "x"


def _unpack(archive: bytes, into: Path) -> None:
    """Unpack a gzipped tar of plain files with plain names; :class:`PublishRefused`
    for anything else."""
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            members = tar.getmembers()
            if len(members) > MAX_FILES:
                raise PublishRefused(413, f"the archive holds over {MAX_FILES} entries")
            total = 0
            for member in members:
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
            tar.extractall(into, members=[m for m in members if m.isfile()], filter="data")
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
