"""Gymnasium's RecordVideo holds a Delvewick episode across a level change (every frame of
an env has one size), and records with nothing installed beyond the ``gym`` extra."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import gymnasium
from gymnasium.wrappers import RecordVideo
from packaging.requirements import Requirement

from playbench.games.delvewick.levels import LEVELS, SOLUTION_LETTERS

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_record_video_across_a_delvewick_level_change(tmp_path: Path) -> None:
    env = gymnasium.make("playbench/Delvewick-v0", render_mode="rgb_array", games="any")
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda episode: True)
    env.reset(seed=0)
    levels = set()
    for letter in LEVELS[0].solution + "WWWW":
        observation, _, _, _, info = env.step(SOLUTION_LETTERS.index(letter))
        assert not info["illegal"]
        levels.add(round(float(observation["stats"][0]) * 8))
    frames = list(env.recorded_frames)
    env.close()
    assert levels == {1, 2}
    assert {frame.shape for frame in frames} == {(210, 448, 3)}
    assert len(frames) == len(LEVELS[0].solution) + 5
    (video,) = tmp_path.glob("*.mp4")
    assert video.stat().st_size > 0


def installed_by(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` install, with everything they require in turn
    (their markers evaluated here, extras followed)."""
    found: set[str] = set()
    todo = [(Requirement(text), "") for text in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = metadata.distribution(requirement.name).metadata["Name"].lower()
        extras = sorted(requirement.extras)
        if (name, *extras) in found:
            continue
        found.add(name)
        found.add((name, *extras))
        for text in metadata.requires(name) or []:
            for chosen in ["", *extras]:
                todo.append((Requirement(text), chosen))
    return {name for name in found if isinstance(name, str)}


def test_record_video_needs_nothing_beyond_the_gym_extra(tmp_path: Path) -> None:
    """A Cogcrawl episode recorded in a new interpreter that can import no module of an
    installed distribution outside playbench's dependencies and its ``gym`` extra."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    allowed = installed_by(project["dependencies"] + project["optional-dependencies"]["gym"])
    allowed.add("playbench")
    assert "moviepy" in allowed
    blocked = sorted(
        module
        for module, names in metadata.packages_distributions().items()
        if not {name.lower() for name in names} & allowed
    )
    assert "torch" in blocked and "stable_baselines3" in blocked
    script = """
import importlib.abc, json, sys
STARTED = set(sys.modules)  # what the interpreter imported before (site's own hooks)
BLOCKED = set(json.loads(sys.argv[1])) - STARTED
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name} is outside the gym extra", name=name)
sys.meta_path.insert(0, Refuse())
import gymnasium, numpy as np, playbench
from gymnasium.wrappers import RecordVideo
env = RecordVideo(
    gymnasium.make("playbench/Cogcrawl-v0", render_mode="rgb_array"),
    sys.argv[2], episode_trigger=lambda episode: True,
)
_, info = env.reset(seed=3)
for _ in range(12):
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
env.close()
print(json.dumps(sorted(set(sys.modules) & BLOCKED)))
"""
    run = subprocess.run(
        [sys.executable, "-c", script, json.dumps(blocked), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ},
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.splitlines()[-1]) == []
    (video,) = tmp_path.glob("*.mp4")
    assert video.stat().st_size > 0
