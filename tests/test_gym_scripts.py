"""The Gym door's two benchmark scripts, run small: ``engine_speed.py --gym`` prints its row
for a game, and ``train_ppo.py``'s baselines play what they say (the figures themselves are
measured by hand, never in a test)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
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


def _script(name: str) -> Any:
    """The benchmark script ``benchmarks/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_engine_speed_kernels_prints_a_row_of_positive_rates_for_a_game(tmp_path) -> None:
    """With NLE installed or not (hidden here, as on a machine without it: its columns
    then say ``-``), every other cell of the row is a positive rate or ratio."""
    from playbench.kernels import native

    (tmp_path / "nle.py").write_text("raise ImportError('NLE hidden by the test')\n")
    path = os.pathsep.join([str(tmp_path), *sys.path])
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "engine_speed.py"), "--kernels", *SMALL[1:]],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == 0, done.stderr
    if native() is None:
        assert "not built or are turned off" in done.stdout
        return
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("delvewick"))
    assert len(row) == 18
    assert row.count("-") == 4  # NLE's rate and the three ratios to it
    cells = [cell for cell in row[1:] if cell != "-"]
    assert all(float(cell.replace(",", "")) > 0 for cell in cells)


def test_vector_split_parts_a_vector_step_and_its_ratios_for_a_game() -> None:
    """A row of positive parts; the parts add up to the vector step, and the ratios are
    the ones its own figures give."""
    from playbench.kernels import native

    small = ["--game", "gem-swap", "--envs", "8", "--steps", "20", "--rounds", "1"]
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "vector_split.py"), *small],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if native() is None:
        assert done.returncode != 0 and "not built or are turned off" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("gem-swap"))
    picks, kernel, rest, vec, pick, one = (float(cell) for cell in row[1:7])
    assert min(picks, kernel, vec, pick, one) > 0 and abs(picks + kernel + rest - vec) < 0.2
    # the printed parts are rounded: the ratios from them agree to about 0.1
    assert abs(float(row[7].rstrip("x")) - one * 8 / vec) < 0.15
    assert abs(float(row[8].rstrip("x")) - (one - pick) * 8 / (vec - picks)) < 0.15


@pytest.fixture(scope="module")
def train_ppo() -> Any:
    return _script("train_ppo")


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


@pytest.fixture(scope="module")
def train_fast() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("train_fast", BENCHMARKS / "train_fast.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["train_fast"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.mark.parametrize("slug", ["delvewick", "cogcrawl"])
def test_train_fast_evaluates_on_the_protocols_test_games(
    train_fast: Any, monkeypatch: pytest.MonkeyPatch, slug: str
) -> None:
    """The held-out evaluation's vector env plays the protocol's first test games, each
    (seed, options) in its own row, to their ends, and hands back each one's final score."""
    made: list[Any] = []
    make_vec = gymnasium.make_vec

    def keep(*args: Any, **kwargs: Any) -> Any:
        made.append(make_vec(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(train_fast.gymnasium, "make_vec", keep)
    started: list[list[tuple[int, Any]]] = []
    count = 4
    rng = np.random.default_rng()

    def choose(observation: Any, mask: Any) -> np.ndarray:
        if not started:
            started.append([(match.seed, match.options) for match in made[0].unwrapped.matches])
        legal = mask.numpy()
        return np.array([int(rng.choice(np.flatnonzero(row))) for row in legal])

    scores, normalised = train_fast.play_tests(slug, count, choose)
    games = train_fast.protocol.test_games(slug, count)
    assert [seed for seed, _ in started[0]] == [seed for seed, _ in games]
    for (_, options), (_, wanted) in zip(started[0], games, strict=True):
        assert {key: options[key] for key in wanted or {}} == (wanted or {})
    for score, value, (_, options) in zip(scores, normalised, games, strict=True):
        figure = train_fast.figures(slug, options)
        assert value == pytest.approx(
            (score - figure["random"]) / (figure["bot"] - figure["random"])
        )


def test_train_fast_runs_small_and_writes_its_figures(tmp_path: Path) -> None:
    slug = str(np.random.default_rng().choice(["delvewick", "chimestep", "gem-swap", "cogcrawl"]))
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "train_fast.py"),
            *("--games", slug, "--steps", "2000", "--envs", "32", "--horizon", "16"),
            *("--test-games", "4", "--out", str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (result,) = json.loads((tmp_path / "train_fast.json").read_text())
    assert result["game"] == slug and result["steps"] >= 2000 and result["test_games"] == 4
    assert 0 < result["env_share_of_cpu"] < 1 and result["updates"] >= 1
    for name in ("trained", "random", "trained_normalised", "random_normalised"):
        band = result[name]
        assert band["low"] <= band["mean"] <= band["high"], name
    assert (tmp_path / f"train_fast_{slug}.png").stat().st_size > 0
    assert slug in done.stdout
