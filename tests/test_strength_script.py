"""benchmarks/strength.py: one quick run of every game, its table and its exact figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "strength.py"
QUICK = ["--quick", "--jobs", "1", "--seeds", "gem-swap=0", "--seeds", "cogcrawl=0"]


def strength(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def cells(header: str, line: str) -> dict[str, str]:
    """A table line cut where the header's columns start (names apart by 2+ spaces)."""
    found = list(re.finditer(r"\S+(?: \S+)*", header))
    ends = [match.start() for match in found[1:]] + [None]
    return {
        match.group(): line[match.start() : end].strip()
        for match, end in zip(found, ends, strict=True)
    }


@pytest.fixture(scope="module")
def quick() -> subprocess.CompletedProcess[str]:
    return strength(*QUICK)


def test_quick_run_prints_one_table_with_exact_figures(quick) -> None:
    assert quick.returncode == 0, quick.stderr
    lines = quick.stdout.splitlines()
    header = lines[0]
    assert re.split(r"  +", header) == [
        "game", "player", "seeds", "measure", "mean", "median", "95% interval", "note",
        "ms/move", "target", "met",
    ]  # fmt: skip
    rows = [cells(header, line) for line in lines[1:10]]
    assert lines[10] == ""
    timeless = [{k: v for k, v in row.items() if k != "ms/move"} for row in rows]
    assert [list(row.values()) for row in timeless] == [
        ["delvewick", "bot", "0", "score", "4,760.00", "4,760.0", "one run", "no randomness",
         "score > 4,730", "yes"],
        ["delvewick", "nearest-goal baseline", "0", "score", "4,280.00", "4,280.0", "one run",
         "no randomness", "", ""],
        ["delvewick", "old solutions", "0", "score", "4,280.00", "4,280.0", "one run",
         "no randomness", "", ""],
        ["chimestep", "bot", "0-1", "stage", "3.00", "3.0", "3.0-3.0", "", "median >= 30", "no"],
        ["chimestep", "greedy", "0-1", "stage", "3.00", "3.0", "3.0-3.0", "", "", ""],
        ["gem-swap", "search (make_bot)", "0", "score", "5,350.00", "5,350.0", "one run", "",
         "mean >= 6,000", "no"],
        ["gem-swap", "greedy", "0", "score", "4,840.00", "4,840.0", "one run", "", "", ""],
        ["cogcrawl", "delver", "0", "deepest level", "9.00", "9.0", "one run",
         "Cogheart 0/1 (0%)", "Cogheart >= 25%, median >= 8", "no"],
        ["cogcrawl", "random", "0", "deepest level", "1.00", "1.0", "one run",
         "Cogheart 0/1 (0%)", "", ""],
    ]  # fmt: skip
    for row in rows:
        assert float(row["ms/move"]) >= 0
    assert "Chimestep runs stop at stage 3, which counts as 3." in quick.stdout
    assert "(--quick: not the target's seed range)" in quick.stdout


def test_progress_names_every_run(quick) -> None:
    ended = [line.split(":")[0] for line in quick.stderr.splitlines()]
    assert ended == [
        "delvewick bot seed 0",
        "delvewick nearest-goal baseline seed 0",
        "delvewick old solutions seed 0",
        "chimestep bot seed 0",
        "chimestep bot seed 1",
        "chimestep greedy seed 0",
        "chimestep greedy seed 1",
        "gem-swap search (make_bot) seed 0",
        "gem-swap greedy seed 0",
        "cogcrawl delver seed 0",
        "cogcrawl random seed 0",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "chess"], "--games: ['chess'] not among delvewick, chimestep"),
        (["--seeds", "gem-swap=9-3"], "--seeds: '9-3' is not a range such as 0-19"),
        (["--seeds", "go=0-3"], "--seeds wants GAME=FIRST-LAST"),
        (["--jobs", "0"], "--jobs must be at least 1, not 0"),
    ],
)
def test_bad_options_are_refused_with_the_reason(args: list[str], message: str) -> None:
    result = strength(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""
