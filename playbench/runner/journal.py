"""An episode's journal: its replay written turn by turn while it is played
(``replays/<game>-<seed>.jsonl.partial``), with each model call written as it is asked
and as it is answered, so a run stopped at any point, even killed, loses no turn it paid
for and counts every call it made."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playbench.core.game import JSON
from playbench.runner.replay import ReplayError, dump_lines, read_lines


class Journal:
    """An episode's replay written turn by turn (flushed and synced after each turn), so
    a run stopped at any point loses no turn it paid for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: Any = None

    def read(self) -> list[JSON]:
        """The header and lines held from an earlier start (none when it is new)."""
        if not self.path.exists():
            return []
        try:
            return read_lines(self.path)
        except ReplayError:
            return []

    def start(self, entries: list[JSON]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("wb")
        self.append(entries)

    def append(self, entries: list[JSON]) -> None:
        if self.file is None or not entries:
            return
        self.file.write(dump_lines(entries))
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def journal_spent(path: Path) -> JSON:
    """What an unfinished episode's journal says it spent: the seat's counts after its
    last recorded turn, plus the calls journaled since (see :func:`unrecorded`)."""
    entries = [entry for entry in Journal(path).read() if isinstance(entry, dict)]
    counts: JSON = {}
    for entry in entries:
        for note in entry.get("turns", ()):
            counts = note.get("memory", {}).get("counts", counts)
    spent = dict(counts)
    for name, value in unrecorded(entries)[1].items():
        spent[name] = spent.get(name, 0) + value
    return spent


def unrecorded(entries: list[JSON]) -> tuple[list[JSON], JSON]:
    """The journal's call entries after its last recorded turn, and what they spent:
    each call asked is spent (its tokens when its answer was written; asked with no
    answer, it was in flight at a kill: ``unrecordedCalls``, its tokens unknown), and a
    call that failed is an error, not a call."""
    last = 0
    for index, entry in enumerate(entries):
        if any("memory" in note for note in entry.get("turns", ())):
            last = index
    trailing = [entry for entry in entries[last + 1 :] if "ask" in entry or "answer" in entry]
    spent = {"calls": 0, "promptTokens": 0, "completionTokens": 0, "errors": 0}
    asked = 0
    for entry in trailing:
        if "ask" in entry:
            asked += 1
            continue
        asked -= 1
        answer = entry["answer"]
        if "error" in answer:
            spent["errors"] += 1
        else:
            spent["calls"] += 1
            spent["promptTokens"] += answer.get("promptTokens", 0)
            spent["completionTokens"] += answer.get("completionTokens", 0)
    spent["calls"] += asked
    spent["unrecordedCalls"] = asked
    return trailing, {name: value for name, value in spent.items() if value}
