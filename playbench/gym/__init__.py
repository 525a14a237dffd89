"""Gymnasium environments of the four games (``pip install 'playbench[gym]'``).

    import gymnasium
    import playbench  # registers the ids below

    env = gymnasium.make("playbench/Delvewick-v0", render_mode="rgb_array")
    observation, info = env.reset(seed=7)
    observation, reward, terminated, truncated, info = env.step(info["action_mask"].argmax())

Without the import, Gymnasium's module-prefixed id does it:
``gymnasium.make("playbench:playbench/GemSwap-v0")``. The env is
:class:`playbench.gym.env.PlaybenchEnv`; its actions, observations and pictures are
described in :mod:`~playbench.gym.actions`, :mod:`~playbench.gym.observations` and
:mod:`~playbench.gym.pictures`.

This module stays light: importing it (``import playbench`` does) imports neither
Gymnasium nor numpy. When Gymnasium is already imported the ids are registered at once;
otherwise they are registered the moment Gymnasium finishes importing.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

#: env id -> registry slug
ENV_IDS: dict[str, str] = {
    "playbench/Delvewick-v0": "delvewick",
    "playbench/Chimestep-v0": "chimestep",
    "playbench/GemSwap-v0": "gem-swap",
    "playbench/Cogcrawl-v0": "cogcrawl",
}
#: steps after which an episode is truncated
MAX_EPISODE_STEPS: dict[str, int] = {
    "delvewick": 5_000,
    "chimestep": 20_000,
    "gem-swap": 500,
    "cogcrawl": 50_000,
}
ENTRY_POINT = "playbench.gym.env:PlaybenchEnv"
GYMNASIUM = "gymnasium"


def register_envs() -> None:
    """Register the four ids with Gymnasium (again is harmless)."""
    from gymnasium.envs.registration import register, registry

    for env_id, slug in ENV_IDS.items():
        if env_id not in registry:
            register(
                id=env_id,
                entry_point=ENTRY_POINT,
                kwargs={"game": slug},
                max_episode_steps=MAX_EPISODE_STEPS[slug],
            )


class _RegisterAfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds Gymnasium with the other finders, runs its module, then registers the envs."""

    def __init__(self) -> None:
        self._loader: importlib.abc.Loader | None = None

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != GYMNASIUM:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__.loader = self._loader
        module.__loader__ = self._loader
        self._loader.exec_module(module)
        register_envs()


def install() -> None:
    """Make the ids known to Gymnasium: now if it is imported, else when it is."""
    if GYMNASIUM in sys.modules:
        register_envs()
    elif not any(isinstance(finder, _RegisterAfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport())
