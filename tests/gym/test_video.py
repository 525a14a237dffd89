"""Gymnasium's RecordVideo holds a Delvewick episode across a level change: every frame of
an env has one size."""

from __future__ import annotations

from pathlib import Path

import gymnasium
from gymnasium.wrappers import RecordVideo

from playbench.games.delvewick.levels import LEVELS, SOLUTION_LETTERS


def test_record_video_across_a_delvewick_level_change(tmp_path: Path) -> None:
    env = gymnasium.make("playbench/Delvewick-v0", render_mode="rgb_array")
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
