"""A run's folder: ``run.json`` (what was run), ``runs.jsonl`` (one line per finished
episode), ``replays/`` and ``summary.json``.

Every finished episode is written whole or not at all: its replay goes to a temporary
file renamed into place, then its line is appended to ``runs.jsonl`` in one write, with
Ctrl-C held back until both are done. A run started again into the same folder reads
``runs.jsonl`` and skips the episodes it holds. An episode a model plays in this process
is journaled turn by turn while it runs (``replays/<game>-<seed>.jsonl.partial``), and a run
started again continues it from its last recorded turn.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.runner.episode import JOURNAL, REPLAYS, Episode
from playbench.runner.journal import journal_spent
from playbench.runner.ledger import Spend
from playbench.runner.replay import dump_lines, write_atomic

RUNS = "runs.jsonl"
SUMMARY = "summary.json"
CONFIG = "run.json"
#: the fields of ``run.json`` that must agree for a run to continue in a folder
SAME_RUN = (
    "game",
    "agent",
    "model",
    "harness",
    "options",
    "maxSteps",
    "server",
    "player",
    "ranked",
    "suite",
    "budget",
    "optionsBySeed",
)


class RunDirError(PlaybenchError):
    """A run folder that cannot take this run."""


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back until the block is done, then raise it (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


class RunDir:
    """The folder of one run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.runs = path / RUNS
        self.replays = path / REPLAYS

    def records(self) -> list[JSON]:
        """The episodes already written (none for a new folder)."""
        if not self.runs.exists():
            return []
        records = []
        with self.runs.open(encoding="utf-8") as file:
            for number, line in enumerate(file, start=1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    reason = f"{self.runs} line {number} is not JSON: {error.msg}"
                    raise RunDirError(reason) from None
                records.append(record)
        return records

    def spent(self) -> Spend:
        """What this folder's episodes spent so far: the finished ones' records and the
        unfinished ones' journals."""
        blocks = [record.get("llm") or {} for record in self.records()]
        if self.replays.is_dir():
            blocks += [journal_spent(path) for path in self.replays.glob("*" + JOURNAL)]
        return sum((Spend.of(block) for block in blocks), Spend())

    def check(self, config: JSON) -> list[JSON]:
        """Read-only: the episodes a run of ``config`` can continue from, or
        :class:`RunDirError` when the folder holds something else."""
        if self.path.exists() and not self.path.is_dir():
            raise RunDirError(f"--out {self.path} is a file, not a folder")
        config_path = self.path / CONFIG
        if not config_path.exists():
            if self.runs.exists():
                raise RunDirError(f"{self.path} has {RUNS} but no {CONFIG}: not a run folder")
            return []
        try:
            before = json.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise RunDirError(f"cannot read {config_path}: {error}") from None
        for key in SAME_RUN:
            if before.get(key) != config.get(key):
                raise RunDirError(
                    f"{self.path} holds another run ({key} {before.get(key)!r}, not "
                    f"{config.get(key)!r}); choose another --out"
                )
        return self.records()

    def open(self, config: JSON) -> None:
        """Create the folder (and ``run.json`` the first time)."""
        self.replays.mkdir(parents=True, exist_ok=True)
        config_path = self.path / CONFIG
        if not config_path.exists():
            write_atomic(config_path, _json_bytes(config))

    def write(self, episode: Episode) -> None:
        """Write a finished episode: its replay (its journal then gone), then its line."""
        line = dump_lines([episode.record])
        replay = self.path / episode.record["replay"]
        with interrupts_held():
            write_atomic(replay, dump_lines(episode.replay))
            replay.with_name(replay.name + JOURNAL).unlink(missing_ok=True)
            descriptor = os.open(self.runs, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = 0
                while written < len(line):
                    written += os.write(descriptor, line[written:])
            finally:
                os.close(descriptor)

    def write_summary(self, summary: JSON) -> None:
        with interrupts_held():
            write_atomic(self.path / SUMMARY, _json_bytes(summary))


def _json_bytes(data: JSON) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode()
