"""Bench results in the data folder: ``<data>/bench/<id>/``, each a folder written by
``playbench bench`` (``bench.json`` and a run folder per game, with its replays; a
``report/`` from ``playbench report`` is linked when present).

A result is shown only once the server has re-simulated every replay of it and recomputed
its figures (:func:`playbench.runner.bench.check_bench`). The verdict is kept per worker
against a digest of the files it read, so a folder is checked again only when it changes.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from playbench.core.game import JSON
from playbench.runner.bench import BENCH, check_bench, read_bench

BENCH_FOLDER = "bench"
REPORT = "report"
RESULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


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


_SHELVES: dict[Path, BenchShelf] = {}
_SHELVES_LOCK = threading.Lock()


def shelf_for(data_dir: Path) -> BenchShelf:
    """The shelf of a data folder (one per folder and process)."""
    root = (data_dir / BENCH_FOLDER).resolve()
    with _SHELVES_LOCK:
        return _SHELVES.setdefault(root, BenchShelf(root))
