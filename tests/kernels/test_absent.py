"""The kernels turned off, missing or stale: the Python rules run, said once; and the
binding refuses buffers of the wrong sizes before it touches any env."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from playbench.core import get_game
from playbench.kernels import KERNELS_ENV, batched, native, wanted

GAME = get_game("delvewick")


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )


def test_the_environment_variable_turns_the_kernels_off() -> None:
    shown = _run(
        "from playbench.core import get_game\n"
        "from playbench.kernels import batched, native\n"
        "print(native(), batched(get_game('delvewick'), 4))",
        **{KERNELS_ENV: "0"},
    )
    assert shown.stdout.split() == ["None", "None"]
    assert shown.stderr == ""


def test_a_missing_build_is_said_once_and_the_rules_run() -> None:
    shown = _run(
        "import sys\n"
        "sys.modules['playbench.kernels._native'] = None\n"
        "from playbench.core import get_game\n"
        "from playbench.kernels import batched, native\n"
        "print(native(), native(), batched(get_game('delvewick'), 4))",
        **{KERNELS_ENV: "1"},
    )
    assert shown.stdout.split() == ["None", "None", "None"]
    assert shown.stderr.count("the C kernels are not built") == 1


needs_kernel = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")


@needs_kernel
def test_a_build_of_other_sources_is_not_used(tmp_path) -> None:
    """The build records its sources' hash (``setup.py``'s ``kernel_hash``): beside sources
    edited since, it is not run, and that is said."""
    import shutil

    from playbench import kernels

    for path in os.listdir(kernels.HERE):
        if path.endswith((".c", ".h")):
            shutil.copy(os.path.join(kernels.HERE, path), tmp_path / path)
    assert kernels._load(str(tmp_path)) is native()
    header = tmp_path / "delvewick.h"
    header.write_text(header.read_text().replace("DW_CRACK_POINTS 10", "DW_CRACK_POINTS 11"))
    with pytest.warns(RuntimeWarning, match="sources changed since they were built"):
        assert kernels._load(str(tmp_path)) is None


@needs_kernel
def test_the_binding_refuses_buffers_of_the_wrong_sizes() -> None:
    kernel = batched(GAME, 4)
    extension = native()
    arguments = [
        kernel.kernel,
        kernel.actions,
        kernel.starts,
        kernel.state,
        kernel.cells,
        kernel.table,
        kernel.layouts,
        kernel.params,
        kernel.records,
        kernel.mask,
        kernel.rewards,
        kernel.ends,
        kernel.scores,
        kernel.illegal,
        kernel.origins,
        kernel.progresses,
    ]
    before = (kernel.state.copy(), kernel.cells.copy())
    wrong = {
        2: np.zeros(3, dtype=np.int64),
        3: np.zeros((4, 3), dtype=np.int64),
        9: np.zeros((4, 4), dtype=np.int8),
        10: np.zeros(5, dtype=np.float64),
        14: np.zeros(3, dtype=np.int64),
        15: np.zeros(5, dtype=np.float64),
    }
    for at, replacement in wrong.items():
        broken = list(arguments)
        broken[at] = replacement
        with pytest.raises(ValueError):
            extension.step(*broken)
    starts = kernel.starts.copy()
    kernel.starts[2] = len(kernel.table)
    with pytest.raises(ValueError, match="start level is not in the table"):
        kernel.step([4, 4, 4, 4])
    kernel.starts[:] = starts
    kernel.state[1, 0] = -1
    with pytest.raises(ValueError, match="level is not in the table"):
        kernel.step([4, 4, 4, 4])
    kernel.state[1, 0] = before[0][1, 0]
    with pytest.raises(ValueError, match="no kernel of that number"):
        extension.step(99, *arguments[1:])
    np.testing.assert_array_equal(kernel.state, before[0])
    np.testing.assert_array_equal(kernel.cells, before[1])
    kernel.step([4, 4, 4, 4])
    assert kernel.state[:, 3].tolist() == [1, 1, 1, 1]


def test_the_single_env_runs_on_the_rules_with_the_kernels_turned_off() -> None:
    """``gymnasium.make``'s env asks for the kernel only where it runs: with
    ``PLAYBENCH_KERNELS=0`` it plays on the rules and says nothing."""
    code = (
        "import gymnasium, playbench\n"
        "env = gymnasium.make('playbench/Chimestep-v0', events=False, games='any')\n"
        "_, info = env.reset(seed={seed})\n"
        "one = env.unwrapped\n"
        "print(one._kernel is None, one.match.seed, int(info['action_mask'].sum()))"
    )
    seed = int(np.random.default_rng().integers(2**32))
    off = _run(code.format(seed=seed), **{KERNELS_ENV: "0"})
    assert off.stdout.split()[:2] == ["True", str(seed)], off.stdout
    assert off.stderr == ""
    if wanted():
        on = _run(code.format(seed=seed), **{KERNELS_ENV: "1"})
        assert on.stdout.split()[0] == "False"
        assert on.stdout.split()[1:] == off.stdout.split()[1:]
