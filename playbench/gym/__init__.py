"""Gymnasium environments of every game that has a learning module (``pip install
'playbench[gym]'``).

    import gymnasium
    import playbench  # registers the ids below

    env = gymnasium.make("playbench/Delvewick-v0", render_mode="rgb_array")
    observation, info = env.reset(seed=7)  # a training game, drawn by seed 7
    observation, reward, terminated, truncated, info = env.step(info["action_mask"].argmax())

Without the import, Gymnasium's module-prefixed id does it:
``gymnasium.make("playbench:playbench/GemSwap-v0")``. The ids come from the game registry
(:func:`env_id`); each game says its actions, arrays and picture in its own ``learning``
module (:mod:`playbench.core.learning`). The env is :class:`playbench.gym.env.PlaybenchEnv`,
``gymnasium.make_vec`` makes :class:`playbench.gym.vector.PlaybenchVectorEnv`; observations
and pictures are built in :mod:`~playbench.gym.observations` and
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

from playbench.core.game import Game, game_package
from playbench.core.registry import all_games

ENTRY_POINT = "playbench.gym.env:PlaybenchEnv"
VECTOR_ENTRY_POINT = "playbench.gym.vector:PlaybenchVectorEnv"
GYMNASIUM = "gymnasium"
#: the name of a game's learning module (see :mod:`playbench.core.learning`)
LEARNING = "learning"


def env_id(game: Game) -> str:
    """A game's env id: ``playbench/`` and its name without spaces, version 0."""
    return f"playbench/{game.name.replace(' ', '')}-v0"


def env_ids() -> dict[str, str]:
    """Every env id -> its game's slug: each registered game with a learning module."""
    return {env_id(game): game.slug for game in all_games() if _learns(game)}


def _learns(game: Game) -> bool:
    """Whether the game has a learning module, found without importing it (nor numpy)."""
    return importlib.util.find_spec(f"{game_package(game)}.{LEARNING}") is not None


def register_envs() -> None:
    """Register every game's id with Gymnasium (again is harmless)."""
    from gymnasium.envs.registration import register, registry

    for game in all_games():
        name = env_id(game)
        if name not in registry and _learns(game):
            register(
                id=name,
                entry_point=ENTRY_POINT,
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs={"game": game.slug},
                # the game's cap: gymnasium.make cuts there with its TimeLimit (or at the
                # max_episode_steps asked for), make_vec hands it to the vector env; the
                # env refuses a step or a render before reset (ResetNeeded) and passes
                # check_env itself
                max_episode_steps=game.step_cap,
                order_enforce=False,
                disable_env_checker=True,
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
