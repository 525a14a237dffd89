"""The reference of each shipped suite's scale: on every slot the higher of the project's
bot (its published bench) and the best known play the project records (Delvewick's shipped
level solutions, replayed here), with the source named in the suite;
no human baseline is recorded, and the suites say so."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from playbench.runner.bench import read_bench
from playbench.runner.store import RunDir
from playbench.runner.suite import load_suite, shipped_suites

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs" / "bench"
PUBLISHED = {"suite-v2": DOCS, "models-v2": DOCS / "models-v2", "quick": DOCS / "quick"}


@pytest.fixture(scope="module")
def script() -> Any:
    path = ROOT / "benchmarks" / "suite_baselines.py"
    spec = importlib.util.spec_from_file_location("suite_baselines", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", shipped_suites())
def test_the_reference_is_the_higher_of_the_bot_and_the_best_known_play(name, script):
    suite = load_suite(name)
    scale = suite.baselines
    assert scale is not None
    bench = read_bench(PUBLISHED[name] / "bot")
    for entry in suite.games:
        baseline = scale[entry.game]
        bot = {
            r["seed"]: r["score"] for r in RunDir(PUBLISHED[name] / "bot" / entry.game).records()
        }
        best = {}
        if entry.game in script.BEST_KNOWN:
            replay = script.BEST_KNOWN[entry.game][1]
            best = {seed: replay(entry, seed) for seed in entry.seeds}
        for seed in entry.seeds:
            assert baseline.reference[seed] == max(bot[seed], best.get(seed, bot[seed]))
        assert script.NO_HUMAN in baseline.reference_source
        assert bench["games"][entry.game]["scale"] == baseline.describe()


def test_the_solutions_replay_under_the_slots_budget(script):
    """A cut shorter than the solutions scores less than the whole replay, and the source
    then names the slots where the solutions are the reference."""
    entry = next(e for e in load_suite("quick").games if e.game == "delvewick")
    whole = {str(seed): script.delvewick_solutions(entry, seed) for seed in entry.seeds}
    short = dataclasses.replace(entry, max_steps=20)
    cut = {str(seed): script.delvewick_solutions(short, seed) for seed in entry.seeds}
    assert all(cut[seed] < whole[seed] for seed in whole)
    lower = {**whole, "2": whole["2"] - 1}
    reference, source = script.reference_of(entry, lower)
    assert reference == whole
    assert "the solutions on slots 2;" in source and script.NO_HUMAN in source
    reference, source = script.reference_of(entry, whole)
    assert reference == whole and "which equal it on every slot" in source
    others = next(e for e in load_suite("quick").games if e.game == "gem-swap")
    bot = {"0": 10.0, "1": 20.0, "2": 30.0}
    assert script.reference_of(others, bot) == (
        bot,
        "the bot's score on each slot: the project records no best known play above the "
        "bot for this game, and no human baseline is recorded",
    )
