"""The games' compiled kernels: N games of one kind stepped in one call.

One C extension, ``playbench.kernels._native`` (``binding.c``: the binding, and a header
per game with its rules), steps a batch of envs that live in preallocated NumPy arrays and
writes each env's observation, action mask, reward, end and score into more of them, with
no Python per game (:class:`playbench.kernels.batch.Batch`). The Python rules stay the
reference: ``tests/kernels`` plays both side by side on drawn levels and random legal
actions and compares the full state, the observation, the mask, the reward and the end at
every step.

The same extension draws for a batch (``draws.h``, :mod:`playbench.kernels.draws`): a random
legal action for each row of a mask, and each of N generators' ``integers(n)`` (the seeds a
vector env's envs draw when they start again at once), the very numbers NumPy gives.

Which doors step on them: the native vector env (:mod:`playbench.kernels.vector`) and the
single Gymnasium env (:mod:`playbench.kernels.single`), each when it is made with
``events=False`` (the default). ``playbench run`` and the server's stateless route stay on
the rules: their agents and answers read the game's JSON view and the step's events, which
only the rules give (``benchmarks/RESULTS.md`` has the figures).

Which games have one: a game has a kernel when its package has a module ``kernel`` (the
kernel's Python side: the level table, the observation record, the state in and out; its
``KERNEL`` names the kernel) and the extension has a kernel of that name. Delvewick,
Chimestep, Gem Swap and Cogcrawl have one.

``pip install`` (editable or not) builds the extension wherever a C compiler is found
(``setup.py``); elsewhere the install goes on and :func:`native` warns once that the games
run on their Python rules. The build carries the SHA-256 of the C sources it was built
from, and a build whose sources have changed since is not used (with a warning once).
``PLAYBENCH_KERNELS=0`` in the environment turns the kernels off: every door then runs on
the Python rules, with the same results.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from types import ModuleType
from typing import Any

from playbench.core.game import module_beside

KERNELS_ENV = "PLAYBENCH_KERNELS"
HERE = os.path.dirname(os.path.abspath(__file__))

#: the extension once looked for: [module or None]; empty before the first look
_LOADED: list[ModuleType | None] = []


def wanted() -> bool:
    """False when ``PLAYBENCH_KERNELS`` turns the kernels off (``0``, ``off``, ``no``,
    ``false``)."""
    return os.environ.get(KERNELS_ENV, "").strip().lower() not in ("0", "off", "no", "false")


def source_hash(directory: str = HERE) -> str:
    """The SHA-256 of the kernels' C sources as ``setup.py`` computes it for a build."""
    digest = hashlib.sha256()
    names = sorted(name for name in os.listdir(directory) if name.endswith((".c", ".h")))
    for name in names:
        with open(os.path.join(directory, name), "rb") as file:
            digest.update(name.encode() + b"\0" + file.read() + b"\0")
    return digest.hexdigest()


def _load(directory: str = HERE) -> ModuleType | None:
    """The extension if it was built from the C sources in ``directory``, else None (with a
    warning saying why)."""
    try:
        from playbench.kernels import _native
    except ImportError:
        warnings.warn(
            "playbench: the C kernels are not built (a C compiler is needed at install), so "
            "every game runs on its Python rules",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    if source_hash(directory) != _native.SOURCE:
        warnings.warn(
            "playbench: the C kernels' sources changed since they were built, so every game "
            "runs on its Python rules (pip install -e . builds them again)",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return _native


def native() -> ModuleType | None:
    """The built extension, or None when it is turned off, missing or stale (the last two
    said once, as a warning)."""
    if not wanted():
        return None
    if not _LOADED:
        _LOADED.append(_load())
    return _LOADED[0]


def kernel_module(game: Any) -> ModuleType | None:
    """The Python side of ``game``'s kernel (a game object or its class), or None when the
    game has none or the kernels cannot run."""
    extension = native()
    if extension is None:
        return None
    module = module_beside(game, "kernel")
    if module is None:
        return None
    return module if module.KERNEL in extension.KERNELS else None


def batched(game: Any, num_envs: int, options: Any = None) -> Any:
    """A :class:`~playbench.kernels.batch.Batch` of ``num_envs`` runs of ``game`` with these
    options, or None when the game has no kernel, the kernels cannot run, or the options
    are ones the kernel does not take (it then says nothing: the rules run)."""
    module = kernel_module(game)
    if module is None or not module.takes(options):
        return None
    from playbench.kernels.batch import Batch

    return Batch(module, num_envs, options)


def for_env(env: Any, num_envs: int) -> Any:
    """A batch of ``num_envs`` runs for a Gym env of its game and options, its masks leaving
    out what the env's leave out (:meth:`~playbench.kernels.batch.Batch.hide`); None where
    the game has no kernel here, or one that cannot leave out what the env does."""
    runs = batched(env.game, num_envs, env.options)
    if runs is None:
        return None
    try:
        runs.hide(*_hidden_actions(env))
    except ValueError:
        return None
    return runs


def _hidden_actions(env: Any) -> tuple[bool, bool]:
    """Whether the env leaves out of its mask the actions that quit, and those that are
    dominated (the game's learning names them; the env keeps them unless asked)."""
    learning, keywords = env.learning, env._keywords
    return (
        learning.quits is not None and not keywords["allow_quit"],
        learning.dominated is not None and not keywords["allow_dominated"],
    )
