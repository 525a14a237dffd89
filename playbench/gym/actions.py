"""Each game's actions as one fixed enumeration: the ``Discrete(n)`` action space.

Index ``i`` of a game's :class:`ActionTable` is always the same JSON action of the game's
grammar, whatever the state. Which of them the rules accept now is the action mask: a
legal action of the game maps to its index (a Chimestep ``tick`` to every tick count).

Delvewick (5): ``up``, ``down``, ``left``, ``right``, ``wait``.

Chimestep (12): ``start``; ``hop upLeft``, ``hop upRight``, ``hop downLeft``,
``hop downRight``; ``toll``; ``tick 1``, ``tick 2``, ``tick 4``, ``tick 8``, ``tick 16``,
``tick 30`` (a tick is legal whenever the game takes a tick, at every count).

Gem Swap (113): the 112 swaps of neighbouring cells in normal form, in board order
(A1 right, A1 down, B1 right, ..., H7 down, A8 right, ..., G8 right), then ``hint``. The
``moves`` query and the ``select``/``deselect`` clicks are left out: they are a person's
aids, not play.

Cogcrawl (133): a seat turn of one primitive: ``move`` in the 8 directions
(n, s, e, w, ne, nw, se, sw), ``kick`` and ``chat`` in the same 8, ``search``, ``wait``,
``pickup``, ``down``, ``up``, then ``eat``, ``quaff``, ``wield`` and ``wear`` of each pack
letter a..z. ``travel`` is left out (its target is a map cell, which an agent reaches by
moves); so are multi-entry replies and ``say``/``notes``.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from playbench.core.game import Action
from playbench.games.chimestep.board import DIRECTIONS as HOP_DIRECTIONS
from playbench.games.cogcrawl.glyphs import DIRECTIONS as COMPASS
from playbench.games.delvewick.commands import MOVES as DELVEWICK_MOVES
from playbench.games.gemswap.commands import HINT, NORMAL_SWAPS

#: the tick counts Chimestep's enumeration offers (the hop cooldown is 4 ticks)
TICK_COUNTS = (1, 2, 4, 8, 16, 30)
PACK_LETTERS = string.ascii_lowercase


@dataclass(frozen=True, slots=True)
class ActionTable:
    """A game's enumeration: ``actions[i]`` is the JSON action of index ``i``.

    ``key`` reduces an action of the game to a hashable key and ``indices`` maps a key to
    the indices it stands for, so a list of legal actions becomes a mask in one pass.
    """

    actions: tuple[Action, ...]
    key: Callable[[Action], Hashable]
    indices: dict[Hashable, tuple[int, ...]]

    @property
    def size(self) -> int:
        return len(self.actions)

    def mask(self, legal: list[Action]) -> bytearray:
        """One byte per index: 1 where the action is among ``legal``."""
        flags = bytearray(len(self.actions))
        key, indices = self.key, self.indices
        for action in legal:
            for index in indices.get(key(action), ()):
                flags[index] = 1
        return flags


def _table(actions: list[Action], key: Callable[[Action], Hashable]) -> ActionTable:
    indices: dict[Hashable, tuple[int, ...]] = {}
    for index, action in enumerate(actions):
        found = key(action)
        indices[found] = (*indices.get(found, ()), index)
    return ActionTable(tuple(actions), key, indices)


def _delvewick_key(action: Action) -> Hashable:
    return action.get("dir", action["type"])


def _chimestep_key(action: Action) -> Hashable:
    """A tick of any count has the key of the game's legal ``{"type": "tick"}``."""
    return action["type"], action.get("dir")


def _gemswap_key(action: Action) -> Hashable:
    return action["command"]


def _cogcrawl_key(action: Action) -> Hashable:
    (entry,) = action["actions"]
    return entry["do"], entry.get("dir", entry.get("item"))


def _chimestep_actions() -> list[Action]:
    actions: list[Action] = [{"type": "start"}]
    actions += [{"type": "hop", "dir": name} for name in HOP_DIRECTIONS]
    actions.append({"type": "toll"})
    actions += [{"type": "tick", "count": count} for count in TICK_COUNTS]
    return actions


def _cogcrawl_actions() -> list[Action]:
    entries: list[dict[str, Any]] = []
    for verb in ("move", "kick", "chat"):
        entries += [{"do": verb, "dir": name} for name in COMPASS]
    entries += [{"do": verb} for verb in ("search", "wait", "pickup", "down", "up")]
    for verb in ("eat", "quaff", "wield", "wear"):
        entries += [{"do": verb, "item": letter} for letter in PACK_LETTERS]
    return [{"actions": [entry]} for entry in entries]


TABLES: dict[str, ActionTable] = {
    "delvewick": _table(
        [*({"type": "move", "dir": name} for name in DELVEWICK_MOVES), {"type": "wait"}],
        _delvewick_key,
    ),
    "chimestep": _table(_chimestep_actions(), _chimestep_key),
    "gem-swap": _table(
        [*({"command": text} for text in NORMAL_SWAPS), {"command": HINT}], _gemswap_key
    ),
    "cogcrawl": _table(_cogcrawl_actions(), _cogcrawl_key),
}
