"""What an env hands an agent each step, built from what the game says it is.

``obs_type``:

- ``"dict"`` (default): a ``Dict`` of ``Box`` arrays, the game's own
  (:class:`playbench.core.learning.Array`): board planes of small category ids with exact
  bounds, counters as floats in 0..1. With ``one_hot=True`` each board plane of ``k``
  categories becomes ``k`` planes of 0/1 (shape ``(k, rows, columns)``); with
  ``mask_in_observation=True`` the dict also holds ``action_mask`` (PettingZoo's
  convention), the same mask as ``info["action_mask"]``.
- ``"rgb"``: the frame (:mod:`playbench.gym.pictures`), fixed in size per env: large,
  for people and videos.
- ``"frame"``: a small picture for CNNs, uint8 (height, width, 3): the game's tiles (one
  colour a board cell) scaled up by the largest whole number that fits, at the top left
  on black. Its size is ``frame_size`` (a side, or (height, width)); by default the
  smallest at least 64 a side, as Procgen's, that gives every cell at least 3 x 3 pixels
  (Cogcrawl's 18 x 48 map: 64 x 144). A size that gives a cell less is refused.
- ``"planes"``: the board planes one-hot for CNNs, uint8 0 or 255, channels first
  (categories of every board plane in turn, height, width), each cell scaled up as in
  ``"frame"``: an image space SB3's ``CnnPolicy`` takes.
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

OBS_TYPES = ("dict", "rgb", "frame", "planes", "text")
MASK = "action_mask"
#: the longest text board any game draws, and the characters it may use
TEXT_LENGTH = 8192
TEXT_CHARSET = frozenset(string.printable)
#: the least side of a frame (Procgen's), and of a board cell in it, in pixels
FRAME_SIDE = 64
CELL_SIDE = 3


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
        frame_size: int | tuple[int, int] | None = None,
    ) -> None:
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type must be one of {list(OBS_TYPES)}, got {obs_type!r}")
        check_frame_size(frame_size)
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
        self.frame_size = frame_size
        if obs_type == "frame":
            self.small = SmallFrame(game, learning, options, frame_size)
        elif obs_type == "planes":
            self.planes = Planes(game, self.arrays, frame_size)
        plain = obs_type == "dict" and not self.one_hot and not self.mask_in_observation
        #: the observation of a state and its mask, as the options shape it
        chosen = {"rgb": self._frame, "text": self._text, "frame": self._small}
        chosen["planes"] = self._planes
        self._observe = chosen.get(obs_type, self._finished)
        if plain:
            encode, described = learning.encode, self.arrays
            self._observe = lambda state, mask: encode(state, described)

    def space(self) -> spaces.Space:
        """A new observation space (each env owns its own, as it seeds it)."""
        if self.obs_type == "rgb":
            return spaces.Box(0, 255, self.painter.shape, np.uint8)
        if self.obs_type == "frame":
            return spaces.Box(0, 255, self.small.shape, np.uint8)
        if self.obs_type == "planes":
            return spaces.Box(0, 255, self.planes.shape, np.uint8)
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

    def _small(self, state: Any, mask: np.ndarray) -> np.ndarray:
        return self.small.frame(state)

    def _planes(self, state: Any, mask: np.ndarray) -> np.ndarray:
        return self.planes.of(self.learning.encode(state, self.arrays))

    def _text(self, state: Any, mask: np.ndarray) -> str:
        return self.game.render(state)

    def _finished(self, state: Any, mask: np.ndarray) -> dict[str, np.ndarray]:
        return self.finish(self.learning.encode(state, self.arrays), mask)

    def finisher(self) -> Callable[[dict[str, np.ndarray], np.ndarray], dict] | None:
        """:meth:`finish` where the game's own arrays need one to be handed out (one-hot
        planes, the mask in the observation), else None."""
        return self.finish if self.one_hot or self.mask_in_observation else None

    def finish(self, out: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
        """``out`` (the game's arrays, a batch in front or not) in the handed-out form."""
        for name, categories in self.one_hot.items():
            plain = out[name]
            lead = plain.ndim - categories.ndim + 1
            out[name] = (plain[(slice(None),) * lead + (None,)] == categories).astype(np.uint8)
        if self.mask_in_observation:
            out[MASK] = mask.copy()
        return out


def check_frame_size(frame_size: Any) -> None:
    """ValueError unless ``frame_size`` is None, a side or (height, width) above 0."""
    sides = frame_size if isinstance(frame_size, tuple) else (frame_size, frame_size)
    if frame_size is not None and (
        len(sides) != 2 or not all(type(side) is int and side > 0 for side in sides)
    ):
        raise ValueError(
            "frame_size must be a whole number above 0 or (height, width) of them, "
            f"got {frame_size!r}"
        )


def frame_shape(frame_size: int | tuple[int, int] | None, grid: tuple[int, int]) -> tuple[int, int]:
    """(height, width) of a picture of a board of ``grid`` cells: ``frame_size`` as asked,
    by default the smallest at least ``FRAME_SIDE`` a side giving each cell ``CELL_SIDE``
    pixels a side; ValueError when the one asked gives a cell fewer."""
    rows, columns = grid
    if frame_size is None:
        return max(FRAME_SIDE, CELL_SIDE * rows), max(FRAME_SIDE, CELL_SIDE * columns)
    height, width = frame_size if isinstance(frame_size, tuple) else (frame_size, frame_size)
    if height // rows < CELL_SIDE or width // columns < CELL_SIDE:
        raise ValueError(
            f"frame_size {frame_size!r} gives a cell of the {rows} x {columns} board "
            f"{min(height // rows, width // columns)} pixels a side, under {CELL_SIDE}: "
            f"a frame must be at least {CELL_SIDE * rows} x {CELL_SIDE * columns}"
        )
    return height, width


def _scaled(grid: tuple[int, int], shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices that scale a board of ``grid`` cells up by the largest whole
    number whose result fits in ``shape`` (height, width)."""
    scale = min(shape[0] // grid[0], shape[1] // grid[1])
    rows = np.arange(grid[0] * scale) // scale
    columns = np.arange(grid[1] * scale) // scale
    return rows[:, None], columns[None, :]


class SmallFrame:
    """The ``"frame"`` observation: the game's tiles scaled into a small black square."""

    def __init__(
        self,
        game: Game,
        learning: Learning,
        options: Mapping[str, Any] | None,
        size: int | tuple[int, int] | None,
    ) -> None:
        if learning.tiles is None:
            raise ValueError(f"{game.slug} has no tiles: no obs_type='frame' for it")
        self.tiles = learning.tiles
        grid = learning.tile_grid(options)
        height, width = frame_shape(size, grid)
        self.shape = (height, width, 3)
        self.rows, self.columns = _scaled(grid, (height, width))

    def frame(self, state: Any) -> np.ndarray:
        tiles = self.tiles(state)
        picture = np.zeros(self.shape, dtype=np.uint8)
        rows, columns = self.rows, self.columns
        height = int(np.searchsorted(rows[:, 0], tiles.shape[0]))
        width = int(np.searchsorted(columns[0], tiles.shape[1]))
        picture[:height, :width] = tiles[rows[:height], columns[:, :width]]
        return picture


class Planes:
    """The ``"planes"`` observation: every board plane one-hot (0 or 255), scaled up."""

    def __init__(
        self, game: Game, arrays: Mapping[str, Array], size: int | tuple[int, int] | None
    ) -> None:
        self.boards = [
            (name, array.categories)
            for name, array in arrays.items()
            if array.categories and len(array.shape) == 2
        ]
        if not self.boards:
            raise ValueError(f"{game.slug} has no board planes: no obs_type='planes' for it")
        grid = (
            max(arrays[name].shape[0] for name, _ in self.boards),
            max(arrays[name].shape[1] for name, _ in self.boards),
        )
        height, width = frame_shape(size, grid)
        self.rows, self.columns = _scaled(grid, (height, width))
        self.ids = np.arange(max(k for _, k in self.boards), dtype=np.uint8)[:, None, None]
        self.shape = (sum(k for _, k in self.boards), height, width)

    def of(self, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.uint8)
        height, width = self.rows.shape[0], self.columns.shape[1]
        at = 0
        for name, categories in self.boards:
            scaled = arrays[name][self.rows, self.columns]
            place = out[at : at + categories, :height, :width]
            np.multiply(scaled[None] == self.ids[:categories], 255, out=place, casting="unsafe")
            at += categories
        return out
