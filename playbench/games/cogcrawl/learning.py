"""Cogcrawl for learning doors: 133 one-primitive seat turns, the drawn map as category ids.

Actions (133): a seat turn of one primitive: ``move`` in the 8 directions
(n, s, e, w, ne, nw, se, sw), ``kick`` and ``chat`` in the same 8, ``search``, ``wait``,
``pickup``, ``down``, ``up``, then ``eat``, ``quaff``, ``wield`` and ``wear`` of each pack
letter a..z. ``travel`` is left out (its target is a map cell, which an agent reaches by
moves); so are multi-entry replies and ``say``/``notes``.

Observation (only what the seat's own observation shows, never the hidden dungeon):
    ``map`` uint8 (18, 48): the drawn map (the remembered dungeon, the cog and the
    monsters in view) as category ids: 0 unseen, 1..16 ``. # | - + ' < > } $ % ! ) [ " @``
    (floor, corridor, walls, doors, stairs, lava, gold, food, potion, weapon, armour, the
    Cogheart, the cog), then one id per monster glyph in the monster table's order, and
    the last id for any other mark.
    ``position`` int16 (2,): the cog's x and y.
    ``stats`` float32 (11,), each in 0..1 (clipped): DL / 10, HP / max HP, max HP / 100,
    XL / 14, (AC + 10) / 30, gold / 1,000, hunger / 3 (not hungry, hungry, weak,
    fainting), confused, dungeon turn / 50,000, score / 10,000, deepest level / 10.
    ``pack`` uint8 (26,): what each pack letter a..z holds: 0 nothing, 1 gold, 2 food,
    3 potion, 4 weapon, 5 armour, 6 the Cogheart.

Picture: the drawn map as coloured glyphs (``palette.json``'s cells, monsters in the
monster colour); tiles: the same map one colour a cell.

Quits: ``up`` on dungeon level 1 leaves the dungeon and ends the run at once (score 0 for
a run that has not left level 1), so a door leaves it out of the mask unless asked.

Seed: the game seed makes the whole dungeon (each level's rooms, corridors, stairs,
monsters and items, drawn when the level is first entered) and every roll of combat,
hunger and monster moves: one seed, one dungeon, as MiniHack and NetHack do.
"""

from __future__ import annotations

import string
import struct
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from playbench.core.game import Action
from playbench.core.learning import ActionTable, Array
from playbench.core.palette import read_palette, rgb
from playbench.games.cogcrawl.actions import legal_primitives
from playbench.games.cogcrawl.constants import (
    FAINTING,
    HUNGRY,
    MAX_XL,
    NOT_HUNGRY,
    TURN_LIMIT,
    WEAK,
)
from playbench.games.cogcrawl.dungeon import LEVELS
from playbench.games.cogcrawl.glyphs import COG, DIRECTIONS, HEIGHT, WIDTH
from playbench.games.cogcrawl.items import CATEGORIES
from playbench.games.cogcrawl.monsters import KINDS
from playbench.games.cogcrawl.sight import visible_monsters
from playbench.games.cogcrawl.state import CogState, armour_class, hunger_of
from playbench.games.cogcrawl.view import drawn_map

PACK_LETTERS = string.ascii_lowercase
TERRAIN_GLYPHS = " .#|-+'<>}$%!)[\"@"
MAP_GLYPHS = TERRAIN_GLYPHS + "".join(
    dict.fromkeys(kind.glyph for kind in KINDS if kind.glyph not in TERRAIN_GLYPHS)
)
#: the id of any mark not in ``MAP_GLYPHS``
OTHER = len(MAP_GLYPHS)
MAP_CATEGORIES = OTHER + 1
CATEGORY_OF = np.full(256, OTHER, dtype=np.uint8)
for _id, _glyph in enumerate(MAP_GLYPHS):
    CATEGORY_OF[ord(_glyph)] = _id
HUNGER_CODES = {NOT_HUNGRY: 0, HUNGRY: 1, WEAK: 2, FAINTING: 3}
PACK_CODES = {kind: code for code, kind in enumerate(CATEGORIES, start=1)}
#: the scales of the counters (value / scale, clipped to 0..1)
HP_SCALE = 100
AC_FLOOR, AC_SPAN = -10, 30
GOLD_SCALE = 1_000
SCORE_SCALE = 10_000


def _key(action: Action) -> Hashable:
    (entry,) = action["actions"]
    return entry["do"], entry.get("dir", entry.get("item"))


def _actions() -> list[Action]:
    entries: list[dict[str, Any]] = []
    for verb in ("move", "kick", "chat"):
        entries += [{"do": verb, "dir": name} for name in DIRECTIONS]
    entries += [{"do": verb} for verb in ("search", "wait", "pickup", "down", "up")]
    for verb in ("eat", "quaff", "wield", "wear"):
        entries += [{"do": verb, "item": letter} for letter in PACK_LETTERS]
    return [{"actions": [entry]} for entry in entries]


ACTIONS = ActionTable.of(_actions(), _key)


def arrays(options: Mapping[str, Any] | None) -> dict[str, Array]:
    return {
        "map": Array((HEIGHT, WIDTH), "uint8", 0, MAP_CATEGORIES - 1, MAP_CATEGORIES),
        "position": Array((2,), "int16", 0, WIDTH - 1),
        "stats": Array((11,), "float32", 0.0, 1.0),
        "pack": Array((len(PACK_LETTERS),), "uint8", 0, len(CATEGORIES)),
    }


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0)


#: a byte of the drawn map -> its category id (for ``bytes.translate``)
CATEGORY_BYTES = CATEGORY_OF.tobytes()
#: each monster kind's category id, and the cog's
MONSTER_CODES = tuple(int(CATEGORY_OF[ord(kind.glyph)]) for kind in KINDS)
COG_CODE = int(CATEGORY_OF[ord(COG)])
PACK_SIZE = len(PACK_LETTERS)


#: the counters' bytes: the cog's x and y (int16), the stats (float32), the pack (uint8)
COUNTERS = struct.Struct(f"=2h11f{PACK_SIZE}s")
STATS_AT, PACK_AT = 4, 4 + 11 * 4
MAP_SHAPE, POSITION_SHAPE, STATS_SHAPE, PACK_SHAPE = (HEIGHT, WIDTH), (2,), (11,), (PACK_SIZE,)
UINT8, INT16, FLOAT32 = np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.float32)
_ndarray = np.ndarray


def _map_codes(state: CogState) -> bytearray:
    """The drawn map's category ids, row by row: the remembered map's bytes as ids, the
    monsters in view and the cog drawn on them (as ``drawn_map`` draws them)."""
    codes = state.level.memory.translate(CATEGORY_BYTES)
    for monster in visible_monsters(state):
        codes[monster.y * WIDTH + monster.x] = MONSTER_CODES[monster.kind]
    codes[state.y * WIDTH + state.x] = COG_CODE
    return codes


def encode(state: CogState, described: Mapping[str, Array]) -> dict[str, Any]:
    """From what the seat's observation shows, read off the state without building it:
    the drawn map's ids (``_map_codes``), the counters and the pack in one new buffer."""
    codes = _map_codes(state)
    pack = bytearray(PACK_SIZE)
    for letter, item in state.pack.items():
        pack[ord(letter) - ord("a")] = PACK_CODES[item[0]]
    counters = bytearray(
        COUNTERS.pack(
            state.x,
            state.y,
            state.dl / LEVELS,
            _unit(state.hp / state.max_hp),
            _unit(state.max_hp / HP_SCALE),
            state.xl / MAX_XL,
            _unit((armour_class(state) - AC_FLOOR) / AC_SPAN),
            _unit(state.gold / GOLD_SCALE),
            HUNGER_CODES[hunger_of(state.nutrition)] / (len(HUNGER_CODES) - 1),
            float(state.confused > 0),
            _unit(state.dungeon_turn / TURN_LIMIT),
            _unit(state.score / SCORE_SCALE),
            state.deepest / LEVELS,
            pack,
        )
    )
    return {
        "map": _ndarray(MAP_SHAPE, UINT8, codes),
        "position": _ndarray(POSITION_SHAPE, INT16, counters),
        "stats": _ndarray(STATS_SHAPE, FLOAT32, counters, STATS_AT),
        "pack": _ndarray(PACK_SHAPE, UINT8, counters, PACK_AT),
    }


def legal(state: CogState) -> list[int]:
    """The indices of ``legal_actions``, read off the rules' primitives (no JSON made)."""
    indices = ACTIONS.indices
    return [
        index
        for primitive in legal_primitives(state)
        for index in indices.get(
            (primitive.verb, primitive.dir if primitive.dir is not None else primitive.item), ()
        )
    ]


#: the index of ``up`` (leaving the dungeon from level 1)
UP = ACTIONS.indices[("up", None)][0]
_QUITS = (UP,)


def quits(state: CogState) -> tuple[int, ...]:
    """``up`` on level 1: it leaves the dungeon, ending the run at once."""
    return _QUITS if state.dl == 1 else ()


def _tile_colours() -> np.ndarray:
    """Each map category's colour: the palette's cell colour of its glyph, the monster
    colour for monsters, white for any other mark."""
    colours = read_palette(__package__)
    cells = colours["cells"]
    table = np.empty((MAP_CATEGORIES, 3), dtype=np.uint8)
    table[:] = rgb("#ebebeb")
    for index, glyph in enumerate(MAP_GLYPHS):
        if glyph in cells:
            table[index] = rgb(cells[glyph])
        elif index >= len(TERRAIN_GLYPHS):
            table[index] = rgb(colours["monster"])
    return table


TILE_COLOURS = _tile_colours()


def tiles(state: CogState) -> np.ndarray:
    return TILE_COLOURS[_ndarray(MAP_SHAPE, UINT8, _map_codes(state))]


def tile_grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return HEIGHT, WIDTH


def status(state: CogState) -> str:
    return (
        f"DL{state.dl} HP {state.hp}/{state.max_hp} gold {state.gold} "
        f"turn {state.turn} score {state.score}"
    )


def glyphs(state: CogState) -> list[str]:
    return drawn_map(state)


def grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return HEIGHT, WIDTH
