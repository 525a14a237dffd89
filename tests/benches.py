"""Bench folders for the tests: a small suite run by ``playbench bench``, and a replay
with one line changed (as a forger would)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from playbench.cli import main
from playbench.core.registry import get_game
from playbench.games.delvewick.levels import LEVELS
from playbench.runner.seeds import parse_seeds


def small_bench(
    suite_file: Path, out: Path, games: Sequence[str], seeds: str, max_steps: int
) -> Path:
    """The random agent's bench into ``out`` over ``games`` on ``seeds``, its suite
    written to ``suite_file`` (named by the file's stem). A game whose seed changes
    nothing (Delvewick) starts each slot on another level, so no episode is played twice."""
    suite = {
        "name": suite_file.stem,
        "description": f"{len(games)} games on seeds {seeds}",
        "games": {
            slug: {"seeds": seeds, "options": {}, "maxSteps": max_steps, "harness": {}}
            for slug in games
        },
    }
    for slug in games:
        if not get_game(slug).seeded:
            suite["games"][slug]["optionsBySeed"] = {
                str(seed): {"startLevel": 1 + index % len(LEVELS)}
                for index, seed in enumerate(parse_seeds(seeds))
            }
    suite_file.write_text(json.dumps(suite))
    command = ["bench", "--agent", "random", "--suite", str(suite_file), "--workers", "1"]
    assert main([*command, "--out", str(out)]) == 0
    return out


def change_a_line(replay: Path, index: int, key: str, by: int) -> str:
    """Add ``by`` to ``key`` of the replay's line ``index`` (0: the header); its text
    before."""
    before = replay.read_text()
    lines = before.splitlines()
    line = json.loads(lines[index])
    line[key] += by
    lines[index] = json.dumps(line)
    replay.write_text("\n".join(lines) + "\n")
    return before
