"""What an env hands an agent each step, built from what the game says it is.

``obs_type``:

- ``"dict"`` (default): a ``Dict`` of ``Box`` arrays, the game's own
  (:class:`playbench.core.learning.Array`): board planes of small category ids with exact
  bounds, counters as floats in 0..1. With ``one_hot=True`` each board plane of ``k``
  categories becomes ``k`` planes of 0/1 (shape ``(k, rows, columns)``); with
  ``mask_in_observation=True`` the dict also holds ``action_mask`` (PettingZoo's
  convention), the same mask as ``info["action_mask"]``.
- ``"rgb"``: the frame (:mod:`playbench.gym.pictures`), fixed in size per env.
- ``"text"``: the text board a person or a language model reads (``Game.render``).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from playbench.core.game import Game
from playbench.core.learning import Array, Learning
from playbench.gym.pictures import Painter

OBS_TYPES = ("dict", "rgb", "text")
MASK = "action_mask"
#: the longest text board any game draws, and the characters it may use
TEXT_LENGTH = 8192
TEXT_CHARSET = frozenset(string.printable)


def _box(array: Array, one_hot: bool) -> spaces.Box:
    if one_hot and array.categories:
        return spaces.Box(0, 1, (array.categories, *array.shape), np.uint8)
    return spaces.Box(array.low, array.high, array.shape, np.dtype(array.dtype))


class Observer:
    """Builds one env's observations: its space, and each observation from a state."""

    def __init__(
        self,
        game: Game,
        learning: Learning,
        options: Mapping[str, Any] | None,
        obs_type: str = "dict",
        one_hot: bool = False,
        mask_in_observation: bool = False,
    ) -> None:
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type must be one of {list(OBS_TYPES)}, got {obs_type!r}")
        self.game = game
        self.learning = learning
        self.obs_type = obs_type
        self.arrays = learning.arrays(options)
        self.painter = Painter(game, learning, options)
        self.mask_in_observation = mask_in_observation and obs_type == "dict"
        #: the board planes to hand out one-hot: name -> category ids 0..k-1 as a column
        self.one_hot = {
            name: np.arange(array.categories, dtype=np.uint8).reshape(-1, *[1] * len(array.shape))
            for name, array in self.arrays.items()
            if one_hot and array.categories
        }
        self.size = learning.actions.size
        plain = obs_type == "dict" and not self.one_hot and not self.mask_in_observation
        #: the observation of a state and its mask, as the options shape it
        self._observe = {"rgb": self._frame, "text": self._text}.get(obs_type, self._finished)
        if plain:
            encode, described = learning.encode, self.arrays
            self._observe = lambda state, mask: encode(state, described)

    def space(self) -> spaces.Space:
        """A new observation space (each env owns its own, as it seeds it)."""
        if self.obs_type == "rgb":
            return spaces.Box(0, 255, self.painter.shape, np.uint8)
        if self.obs_type == "text":
            return spaces.Text(TEXT_LENGTH, min_length=0, charset=TEXT_CHARSET)
        boxes = {name: _box(array, name in self.one_hot) for name, array in self.arrays.items()}
        if self.mask_in_observation:
            boxes[MASK] = spaces.Box(0, 1, (self.size,), np.int8)
        return spaces.Dict(boxes)

    def empty(self, *batch: int) -> dict[str, np.ndarray]:
        """Arrays for the game's ``encode_all`` to fill whole (in their plain form), ``batch``
        in front."""
        return {
            name: np.empty((*batch, *array.shape), dtype=array.dtype)
            for name, array in self.arrays.items()
        }

    def observe(self, state: Any, mask: np.ndarray) -> Any:
        """A new observation of ``state`` (never shared with an earlier one)."""
        return self._observe(state, mask)

    def observe_of(self) -> Callable[[Any, np.ndarray], Any]:
        """:meth:`observe` as one function chosen once (for a door's loop)."""
        return self._observe

    def _frame(self, state: Any, mask: np.ndarray) -> np.ndarray:
        return self.painter.frame(state)

    def _text(self, state: Any, mask: np.ndarray) -> str:
        return self.game.render(state)

    def _finished(self, state: Any, mask: np.ndarray) -> dict[str, np.ndarray]:
        return self.finish(self.learning.encode(state, self.arrays), mask)

    def finish(self, out: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
        """``out`` (the game's arrays, a batch in front or not) in the handed-out form."""
        for name, categories in self.one_hot.items():
            plain = out[name]
            lead = plain.ndim - categories.ndim + 1
            out[name] = (plain[(slice(None),) * lead + (None,)] == categories).astype(np.uint8)
        if self.mask_in_observation:
            out[MASK] = mask.copy()
        return out
