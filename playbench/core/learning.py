"""What a game tells a learning door (Gymnasium): its fixed actions, its arrays, its picture.

Like :mod:`playbench.core.controls`, this is found by convention: a game package with a
``learning`` module (``ACTIONS`` and the functions below) is a game the Gymnasium door
can serve; :func:`learning_of` imports it only when a door asks, so numpy is imported
only then. Nothing here imports numpy or Gymnasium: an array is described by
an :class:`Array` and the door builds the space.

- ``actions``: one fixed enumeration of the game's JSON actions (:class:`ActionTable`),
  the ``Discrete(n)`` action space; which of them the rules take now is the mask.
- ``arrays(options)``: the observation arrays by name, fixed in shape for the options
  (a board plane of small category ids says how many ids it has, for a one-hot form);
  ``encode(state, described)`` makes new arrays of the shapes and dtypes ``described``
  (the ``arrays`` of the env's options), by name and sharing no memory with any earlier
  call's, from the state's public part only.
- ``legal(state)``: the indices the rules take now, the mask's ones, as a list or a tuple
  (by default from ``legal_actions``; a game may compute them faster from its state). A
  tuple says the same few sets come again and again (Delvewick's directions, Chimestep's
  by status), so a door keeps their mask rows; a list (Gem Swap's swaps, new each board)
  has its row made afresh, which costs less than looking it up.
- ``encode_all(states, out)``: fills row ``i`` of every array of ``out`` from ``states[i]``
  at once (by default ``encode`` row by row), for vector envs.
- ``status(state)``: the status line of a picture (score, oil, lives, moves, depth).
- ``quits(state)`` (optional): the legal indices that end the run at once for nothing
  (Cogcrawl's ``up`` on dungeon level 1); a door leaves them out of the mask unless asked.
- ``dominated(state)`` (optional): the legal indices that can only lose to an agent that
  reads the door's observation (Gem Swap's ``hint``, which costs points and answers in the
  events only); a door leaves them out of the mask unless asked.
- ``tiles(state)`` (optional): the board as one RGB colour a cell, uint8 (rows, columns,
  3), at most ``tile_grid(options)`` in size: what a door scales up to a small square
  frame for pixel agents.
- ``paint(state)`` (optional): the board as an RGB picture, ``frame(options)`` the largest
  it can be for those options, so a door gives every frame of an env the same size. Or
  ``glyphs(state)``: the board as rows of glyphs, drawn in the colours of the game's
  palette (:mod:`playbench.core.palette`), at most ``grid(options)`` rows and columns.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playbench.core.game import Action, Game, module_beside

#: the module a game's learning description lives in
MODULE = "learning"
#: what such a module may leave out
OPTIONAL = (
    "legal",
    "encode_all",
    "paint",
    "frame",
    "glyphs",
    "grid",
    "quits",
    "dominated",
    "tiles",
    "tile_grid",
)


@dataclass(frozen=True, slots=True)
class Array:
    """One observation array: its shape, numpy dtype name and inclusive bounds.

    ``categories`` > 0 marks a plane of category ids 0 .. categories - 1 (a board); a door
    may hand it out one-hot instead, as ``categories`` planes of 0/1.
    """

    shape: tuple[int, ...]
    dtype: str
    low: float
    high: float
    categories: int = 0


@dataclass(frozen=True, slots=True)
class ActionTable:
    """A game's enumeration: ``actions[i]`` is the JSON action of index ``i``.

    ``key`` reduces an action of the game to a hashable key and ``indices`` maps a key to
    the indices it stands for, so a list of legal actions becomes a mask in one pass.
    """

    actions: tuple[Action, ...]
    key: Callable[[Action], Hashable]
    indices: dict[Hashable, tuple[int, ...]]

    @classmethod
    def of(cls, actions: list[Action], key: Callable[[Action], Hashable]) -> ActionTable:
        indices: dict[Hashable, tuple[int, ...]] = {}
        for index, action in enumerate(actions):
            found = key(action)
            indices[found] = (*indices.get(found, ()), index)
        return cls(tuple(actions), key, indices)

    @property
    def size(self) -> int:
        return len(self.actions)

    def legal(self, actions: list[Action]) -> list[int]:
        """The indices that ``actions`` (the game's legal actions) stand for, in order."""
        key, indices = self.key, self.indices
        return [index for action in actions for index in indices.get(key(action), ())]


def _no_size(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return (0, 0)


@dataclass(frozen=True, slots=True)
class Learning:
    """A game's description for learning doors (see the module docstring)."""

    actions: ActionTable
    arrays: Callable[[Mapping[str, Any] | None], dict[str, Array]]
    encode: Callable[[Any, Mapping[str, Array]], dict[str, Any]]
    status: Callable[[Any], str]
    legal: Callable[[Any], Sequence[int]] | None = None
    encode_all: Callable[[list[Any], dict[str, Any]], None] | None = None
    paint: Callable[[Any], Any] | None = None
    frame: Callable[[Mapping[str, Any] | None], tuple[int, int]] = field(default=_no_size)
    glyphs: Callable[[Any], list[str]] | None = None
    grid: Callable[[Mapping[str, Any] | None], tuple[int, int]] = field(default=_no_size)
    quits: Callable[[Any], Sequence[int]] | None = None
    dominated: Callable[[Any], Sequence[int]] | None = None
    tiles: Callable[[Any], Any] | None = None
    tile_grid: Callable[[Mapping[str, Any] | None], tuple[int, int]] = field(default=_no_size)

    def legal_indices(self, game: Game, state: Any) -> Sequence[int]:
        """The indices the rules take in ``state``: the mask's ones."""
        return self.legal_of(game)(state)

    def legal_of(
        self, game: Game, quits: bool = True, dominated: bool = True
    ) -> Callable[[Any], Sequence[int]]:
        """The function of a state giving :meth:`legal_indices` (for a door's loop); with
        ``quits=False`` without the indices ``quits`` names, with ``dominated=False``
        without those ``dominated`` names (a list then)."""
        if self.legal is not None:
            legal = self.legal
        else:
            table, legal_actions = self.actions, game.legal_actions

            def legal(state: Any) -> Sequence[int]:
                return table.legal(legal_actions(state))

        left_out = [
            named
            for named, kept in ((self.quits, quits), (self.dominated, dominated))
            if named is not None and not kept
        ]
        if not left_out:
            return legal

        def staying(state: Any) -> Sequence[int]:
            found = legal(state)
            gone = {index for named in left_out for index in named(state)}
            return [index for index in found if index not in gone] if gone else found

        return staying

    def encode_each(
        self, states: list[Any], out: dict[str, Any], described: Mapping[str, Array]
    ) -> None:
        """Fill row ``i`` of every array of ``out`` (the arrays ``described``, a batch in
        front) from ``states[i]``."""
        if self.encode_all is not None:
            self.encode_all(states, out)
            return
        encode = self.encode
        for i, state in enumerate(states):
            for name, array in encode(state, described).items():
                out[name][i] = array


def learning_of(game: Game) -> Learning | None:
    """What the ``learning`` module beside the game's class says, if there is one: its
    ``ACTIONS``, ``arrays``, ``encode`` and ``status``, and where it has them ``legal``,
    ``encode_all``, ``paint`` with ``frame``, or ``glyphs`` with ``grid``, ``quits``,
    ``dominated``, and ``tiles`` with ``tile_grid``."""
    module = module_beside(game, MODULE)
    if module is None:
        return None
    found = {part: getattr(module, part) for part in OPTIONAL if hasattr(module, part)}
    return Learning(module.ACTIONS, module.arrays, module.encode, module.status, **found)
