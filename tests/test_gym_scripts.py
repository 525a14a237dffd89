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
    assert len(gym_row) == 13
    cells = [cell for cell in gym_row[1:] if cell != "-"]
    assert all(float(cell.replace(",", "")) > 0 for cell in cells)
    assert engine_row[2] == "steps/s" and engine_row[-2] == "ratio"


@pytest.fixture(scope="module")
def train_ppo() -> Any:
    spec = importlib.util.spec_from_file_location("train_ppo", BENCHMARKS / "train_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Played(gymnasium.Wrapper):
    """Keeps the (seed, options) of every reset and the text of every action stepped."""

    resets: list[tuple[Any, Any]] = []  # noqa: RUF012 (one list for the test's envs)

    def reset(self, **kwargs: Any) -> Any:
        Played.resets.append((kwargs.get("seed"), kwargs.get("options")))
        return self.env.reset(**kwargs)


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("gem-swap", [(0, None), (1, None), (2, None), (3, None)]),
        (
            "delvewick",
            [(i, {"startLevel": 7 + i % 2}) for i in range(4)],
        ),
    ],
)
def test_the_evaluation_plays_the_protocols_test_games(
    train_ppo: Any, monkeypatch: pytest.MonkeyPatch, slug: str, expected: list
) -> None:
    made = gymnasium.make
    monkeypatch.setattr(train_ppo.gymnasium, "make", lambda *a, **k: Played(made(*a, **k)))
    Played.resets = []
    games = train_ppo.protocol.test_games(slug, 4)
    env_id = {game: name for name, game in train_ppo.env_ids().items()}[slug]
    scores, progress, _ = train_ppo.evaluate(env_id, games, None)
    assert Played.resets == expected
    found = [train_ppo.figures(slug, options) for _, options in games]
    assert progress == [
        (score - one["random"]) / (one["bot"] - one["random"])
        for score, one in zip(scores, found, strict=True)
    ]


def test_the_training_keywords_make_envs_that_draw_training_games(train_ppo: Any) -> None:
    keywords = {**train_ppo.MAKE, **train_ppo.protocol.train_keywords("cogcrawl")}
    env = gymnasium.make("playbench/Cogcrawl-v0", **keywords)
    env.reset(seed=train_ppo.TRAIN_SEED)
    seeds = {env.unwrapped.match.seed}
    for _ in range(5):
        env.reset()
        seeds.add(env.unwrapped.match.seed)
    assert min(seeds) >= train_ppo.protocol.TRAIN_START_SEED
