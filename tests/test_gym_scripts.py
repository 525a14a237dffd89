"""The Gym door's two benchmark scripts, run small: ``engine_speed.py --gym`` prints its row
for a game, and ``train_ppo.py``'s baselines play what they say (the figures themselves are
measured by hand, never in a test)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: one game, each side for a fifth of a second of CPU time
SMALL = ["--gym", "--game", "delvewick", "--seconds", "0.2", "--rounds", "1"]


def test_engine_speed_gym_prints_a_row_of_positive_rates_for_a_game() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "engine_speed.py"), *SMALL],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("delvewick")]
    gym_row, engine_row = rows
    assert len(gym_row) == 11 and all(float(cell.replace(",", "")) > 0 for cell in gym_row[1:])
    assert engine_row[2] == "steps/s" and engine_row[-2] == "ratio"


@pytest.fixture(scope="module")
def train_ppo() -> Any:
    spec = importlib.util.spec_from_file_location("train_ppo", BENCHMARKS / "train_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Played(gymnasium.Wrapper):
    """Keeps the text of every action stepped."""

    texts: list[str] = []  # noqa: RUF012 (one list for the test's envs)

    def step(self, action: Any) -> Any:
        Played.texts.append(self.env.unwrapped.action_text(int(action)))
        return self.env.step(action)


@pytest.mark.parametrize(("shunned", "buys_hints"), [((), True), (("hint",), False)])
def test_the_random_baselines_buy_the_hint_only_when_not_shunned(
    train_ppo: Any, monkeypatch: pytest.MonkeyPatch, shunned: tuple[str, ...], buys_hints: bool
) -> None:
    made = gymnasium.make
    monkeypatch.setattr(train_ppo, "EVAL_SEEDS", range(4))
    monkeypatch.setattr(train_ppo.gymnasium, "make", lambda *a, **k: Played(made(*a, **k)))
    Played.texts = []
    scores = train_ppo.evaluate("playbench/GemSwap-v0", {}, None, shunned)
    assert len(scores) == 4
    assert sum(text.startswith("swap") for text in Played.texts) == 4 * 30
    assert ("hint" in Played.texts) is buys_hints
