"""The Gym reference's examples (docs/gym.md) run as printed: one game to its end, and the
vector loop under every vectorization mode."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

DOCS = Path(__file__).resolve().parents[2] / "docs" / "gym.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)


def test_readme_example_plays_a_game_to_its_end() -> None:
    code = examples()[0]
    assert len([line for line in code.splitlines() if line.strip()]) == 5
    scope: dict = {}
    exec(code, scope)
    assert scope["terminated"] and not scope["truncated"]
    assert scope["env"].unwrapped.match.state.moves_made == 30
    assert scope["env"].render().shape == (338, 320, 3)


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync", "async"])
def test_readme_vector_loop_runs_past_game_overs(mode: str) -> None:
    code = examples()[1]
    make = 'gymnasium.make_vec("playbench/GemSwap-v0", num_envs=4)'
    assert make in code
    if mode != "vector_entry_point":
        code = code.replace(
            make,
            f'gymnasium.make_vec("playbench/GemSwap-v0", num_envs=4, vectorization_mode="{mode}",'
            ' vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})',
        )
    scope: dict = {"gymnasium": gymnasium, "np": np, "AutoresetMode": AutoresetMode}
    try:
        exec(code, scope)
        ended = scope["terminated"] | scope["truncated"]
        if mode != "vector_entry_point":
            assert scope["info"]["action_mask"].any(axis=1).all()
        assert not scope["info"]["illegal"].any()
    finally:
        scope["envs"].close()
    assert len(ended) == 4


def test_the_vector_kwargs_example_makes_the_native_env_in_that_mode() -> None:
    scope: dict = {"AutoresetMode": AutoresetMode}
    exec(examples()[2], scope)
    assert type(scope["envs"]).__name__ == "PlaybenchVectorEnv"
    assert scope["envs"].autoreset_mode == AutoresetMode.SAME_STEP


def test_the_random_picks_example_steps_every_env_on_a_legal_action() -> None:
    code = next(code for code in examples() if "LegalPicks" in code)
    scope: dict = {"gymnasium": gymnasium, "np": np}
    exec(code, scope)
    try:
        assert len(scope["reward"]) == 256 and not scope["info"]["illegal"].any()
    finally:
        scope["envs"].close()
