"""The env ids reach Gymnasium through ``import playbench`` or the module-prefixed id, and
``import playbench`` stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

from playbench.gym import env_ids

ENV_IDS = env_ids()


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_playbench_imports_neither_gymnasium_nor_numpy() -> None:
    code = "import sys, playbench; print('gymnasium' in sys.modules, 'numpy' in sys.modules)"
    assert run(code) == "False False"


@pytest.mark.parametrize(
    "code",
    [
        "import playbench, gymnasium",
        "import gymnasium, playbench",
        "import gymnasium; gymnasium.make('playbench:playbench/Delvewick-v0')",
    ],
)
def test_every_id_is_registered(code: str) -> None:
    ids = sorted(ENV_IDS)
    check = (
        f"{code}\nimport gymnasium\n"
        f"print(sorted(i for i in gymnasium.registry if i.startswith('playbench/')))"
    )
    assert run(check) == str(ids)


def test_module_prefixed_id_makes_each_env() -> None:
    makes = "; ".join(
        f"gymnasium.make('playbench:{env_id}').reset(seed=1)" for env_id in sorted(ENV_IDS)
    )
    assert run(f"import gymnasium; {makes}; print('made')") == "made"
