"""Cogcrawl's kernel, its Python side: the observation record and the state in and out
(the rules in C are ``playbench/kernels/cogcrawl.h``).

Cogcrawl has no level table: a run starts from its game seed (which makes the whole
dungeon), so a batch's ``starts`` hold seeds and its table is one empty row. An env's
``state`` row is the run's integers (:data:`FIELDS`), the messages of the last turn as
codes (``told``), the potion looks, the pack, then :data:`LEVEL_WIDTH` integers for each
of the ten levels (entered or not, its rooms, stairs and monsters); its ``cells`` are
:data:`LAYERS` planes of the 48 x 18 map per level (terrain, memory, room owner, item
category and index, hidden glyph, search count and lock, and the memory's map codes:
the observation's categories of it, kept by the kernel beside each glyph it remembers).
The observation record is the Gym door's ``dict`` observation
(``playbench.games.cogcrawl.learning``): ``map``, ``position``, ``stats`` and ``pack``.

A state put in with :func:`from_state` keeps its messages, ``last_plan``, notes and
``say`` as it had them (in the batch, by env) until the env's next step writes its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from playbench.core import Rng
from playbench.core.fields import takes_no_options
from playbench.games.cogcrawl import learning, told
from playbench.games.cogcrawl.dungeon import LEVELS, SIZE, WIDTH, Level, oracle_level
from playbench.games.cogcrawl.items import CATEGORIES, POTIONS
from playbench.games.cogcrawl.monsters import Monster
from playbench.games.cogcrawl.state import RUN_STATES, CogState, plan_copy

#: the kernel's name in the extension
KERNEL = "cogcrawl"
#: whether :func:`start` gives the seed itself for the options it takes (else what it
#: gives them is the same whatever the seed)
STARTS_ON_SEED = True
ACTIONS = len(learning.ACTIONS.actions)
#: the per-env integers, in the order of ``cogcrawl.h``'s CC_ enum
FIELDS = (
    "run",
    "seed",
    "rng",
    "turn",
    "dungeon_turn",
    "dl",
    "x",
    "y",
    "hp",
    "max_hp",
    "xl",
    "xp",
    "gold",
    "nutrition",
    "score",
    "deepest",
    "wielded",
    "worn",
    "confused",
    "oracle",
    "executed",
    "dropped",
    "why",
    "why_a",
    "why_code",
    "why_x",
    "why_y",
    "said",
)
AT = {name: index for index, name in enumerate(FIELDS)}
MESSAGES_AT = len(FIELDS)
APPEAR_AT = MESSAGES_AT + 3 * told.MAX_MESSAGES
IDENT_AT = APPEAR_AT + len(POTIONS)
PACK_AT = IDENT_AT + len(POTIONS)
PACK_SIZE = len(learning.PACK_LETTERS)
LEVELS_AT = PACK_AT + 2 * PACK_SIZE
MAX_ROOMS, MAX_MONSTERS, MONSTER_FIELDS = 9, 9, 5
#: a level's integers: entered, rooms, 9 rooms of 4, up, down (-1: none), monsters, 9 of 5
ROOMS_AT, UP_AT = 2, 2 + 4 * MAX_ROOMS
DOWN_AT, MONSTERS_AT = UP_AT + 1, UP_AT + 2
MONSTER_AT = MONSTERS_AT + 1
LEVEL_WIDTH = MONSTER_AT + MONSTER_FIELDS * MAX_MONSTERS
STATE_WIDTH = LEVELS_AT + LEVELS * LEVEL_WIDTH
#: a level's planes in its cells
TERRAIN, MEMORY, OWNER, ICAT, IIDX, HIDDEN, META, CODES = range(8)
LAYERS = 8
CELLS = LEVELS * LAYERS * SIZE
SEARCHES, LOCKED = 3, 4
STATUS = AT["run"]
#: the run state ``Batch.restart`` marks a run ended with
ENDED = RUN_STATES.index("left")
#: ``said`` of a run whose messages and last plan are the ones a set state had
KEPT = -1
MASK64 = (1 << 64) - 1
MAP_AT, POSITION_AT, STATS_AT, PACK_OBS_AT, SIZE_OF_RECORD = 0, SIZE, SIZE + 4, SIZE + 48, 944
MAX_INDEX = 255
#: the ``params`` entry that, set to 1, has the kernel leave ``up`` out of its mask on the
#: first level (the action ``learning.quits`` names: it ends the run at once), as a door
#: does unless asked
HIDE_AT = {"quits": 4}


def takes(options: Mapping[str, Any] | None) -> bool:
    """True for the options the rules take: none."""
    return takes_no_options(options, "cogcrawl")


def start(table_options: Any, seed: int, options: Mapping[str, Any] | None) -> int | None:
    """What a run on ``seed`` starts from in the kernel: the seed itself."""
    return seed if takes(options) else None


def origin(options: Mapping[str, Any] | None) -> int:
    """What a run's progress counts from: nothing beside its state."""
    return 0


def table(options: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """No levels to choose: one empty row, and one row of cells for the dungeon's planes."""
    return np.zeros((1, 1), dtype=np.int64), np.zeros((1, CELLS), dtype=np.uint8)


def record(options: Mapping[str, Any] | None) -> np.dtype:
    return np.dtype(
        {
            "names": ["map", "position", "stats", "pack"],
            "formats": [
                (np.uint8, (18, WIDTH)),
                (np.int16, (2,)),
                (np.float32, (11,)),
                (np.uint8, (PACK_SIZE,)),
            ],
            "offsets": [MAP_AT, POSITION_AT, STATS_AT, PACK_OBS_AT],
            "itemsize": SIZE_OF_RECORD,
        }
    )


def params(options: Mapping[str, Any] | None) -> np.ndarray:
    return np.array([MAP_AT, POSITION_AT, STATS_AT, PACK_OBS_AT, 0], dtype=np.int64)


def _kept(batch: Any) -> dict[int, tuple[Any, ...]]:
    """What the states put into ``batch`` told their seats, by env."""
    if not hasattr(batch, "kept"):
        batch.kept = {}
    return batch.kept


def _level(depth: int, numbers: list[int], planes: np.ndarray) -> Level:
    rooms = tuple(
        tuple(numbers[ROOMS_AT + 4 * k : ROOMS_AT + 4 * k + 4]) for k in range(numbers[1])
    )
    hidden_cells = np.flatnonzero(planes[HIDDEN]).tolist()
    meta = planes[META]
    items = {
        cell: ((CATEGORIES[int(planes[ICAT, cell]) - 1], int(planes[IIDX, cell])),)
        for cell in np.flatnonzero(planes[ICAT]).tolist()
    }
    monsters = [
        Monster(*numbers[MONSTER_AT + MONSTER_FIELDS * k : MONSTER_AT + MONSTER_FIELDS * (k + 1)])
        for k in range(numbers[MONSTERS_AT])
    ]
    down = numbers[DOWN_AT]
    return Level(
        depth,
        bytearray(planes[TERRAIN].tobytes()),
        bytearray(planes[MEMORY].tobytes()),
        rooms,
        numbers[UP_AT],
        None if down < 0 else down,
        {cell: int(planes[HIDDEN, cell]) for cell in hidden_cells},
        {cell: int(meta[cell]) & SEARCHES for cell in hidden_cells if meta[cell] & SEARCHES},
        set(np.flatnonzero(meta & LOCKED).tolist()),
        items,
        monsters,
    )


def to_state(batch: Any, i: int) -> CogState:
    """Run ``i`` of ``batch`` as a :class:`CogState` of the rules."""
    row = batch.state[i].tolist()
    cells = batch.cells[i, :CELLS].reshape(LEVELS, LAYERS, SIZE)
    s = CogState()
    for name in ("seed", "turn", "dungeon_turn", "dl", "x", "y", "hp", "max_hp", "xl", "xp"):
        setattr(s, name, row[AT[name]])
    for name in ("gold", "nutrition", "score", "deepest", "confused"):
        setattr(s, name, row[AT[name]])
    s.rng = Rng(row[AT["rng"]] & MASK64)
    s.run = RUN_STATES[row[STATUS]]
    letters = learning.PACK_LETTERS
    s.pack = {
        letters[k]: (CATEGORIES[row[PACK_AT + 2 * k] - 1], row[PACK_AT + 2 * k + 1])
        for k in range(PACK_SIZE)
        if row[PACK_AT + 2 * k]
    }
    s.wielded = None if row[AT["wielded"]] < 0 else letters[row[AT["wielded"]]]
    s.worn = None if row[AT["worn"]] < 0 else letters[row[AT["worn"]]]
    s.appearances = row[APPEAR_AT:IDENT_AT]
    s.identified = [bool(v) for v in row[IDENT_AT:PACK_AT]]
    for depth in range(1, LEVELS + 1):
        numbers = row[LEVELS_AT + (depth - 1) * LEVEL_WIDTH : LEVELS_AT + depth * LEVEL_WIDTH]
        if numbers[0]:
            s.levels[depth] = _level(depth, numbers, cells[depth - 1])
    if row[AT["said"]] == KEPT:
        messages, plan, s.notes, s.say, s.fallback, s.retry = _kept(batch)[i]
        s.messages, s.last_plan = list(messages), plan_copy(plan)
        return s
    s.messages = told.messages(s, row[AT["said"]], row[MESSAGES_AT:APPEAR_AT])
    why = AT["why"]
    s.last_plan = told.last_plan(
        s, row[AT["executed"]], row[AT["dropped"]], row[why], row[why + 1 : AT["said"]]
    )
    return s


def from_state(batch: Any, i: int, state: CogState) -> None:
    """Make run ``i`` of ``batch`` the rules' ``state``."""
    row = np.zeros(STATE_WIDTH, dtype=np.int64)
    cells = np.zeros((LEVELS, LAYERS, SIZE), dtype=np.uint8)
    for name in FIELDS[: AT["executed"]]:
        if name == "rng":
            rng = state.rng.state
            row[AT[name]] = rng - (1 << 64) if rng >> 63 else rng
        elif name == "run":
            row[AT[name]] = RUN_STATES.index(state.run)
        elif name in ("wielded", "worn"):
            letter = getattr(state, name)
            row[AT[name]] = -1 if letter is None else ord(letter) - ord("a")
        elif name == "oracle":
            row[AT[name]] = oracle_level(state.seed)
        else:
            row[AT[name]] = getattr(state, name)
    row[AT["said"]] = KEPT
    row[APPEAR_AT:IDENT_AT] = state.appearances
    row[IDENT_AT:PACK_AT] = state.identified
    for letter, (category, index) in state.pack.items():
        k = ord(letter) - ord("a")
        row[PACK_AT + 2 * k : PACK_AT + 2 * k + 2] = (CATEGORIES.index(category) + 1, index)
    for depth, level in state.levels.items():
        numbers = row[LEVELS_AT + (depth - 1) * LEVEL_WIDTH : LEVELS_AT + depth * LEVEL_WIDTH]
        _put_level(level, numbers, cells[depth - 1])
    batch.state[i] = row
    batch.cells[i, :CELLS] = cells.reshape(-1)
    _kept(batch)[i] = (
        list(state.messages),
        plan_copy(state.last_plan),
        state.notes,
        state.say,
        state.fallback,
        state.retry,
    )


def _put_level(level: Level, numbers: np.ndarray, planes: np.ndarray) -> None:
    if len(level.rooms) > MAX_ROOMS or len(level.monsters) > MAX_MONSTERS:
        raise ValueError("the state holds more rooms or monsters on a level than the kernel keeps")
    numbers[0] = 1
    numbers[1] = len(level.rooms)
    for k, room in enumerate(level.rooms):
        numbers[ROOMS_AT + 4 * k : ROOMS_AT + 4 * k + 4] = room
    numbers[UP_AT] = level.up
    numbers[DOWN_AT] = -1 if level.down is None else level.down
    numbers[MONSTERS_AT] = len(level.monsters)
    for k, monster in enumerate(level.monsters):
        if not 0 <= monster.ident < 64:
            raise ValueError("the kernel keeps monster idents 0..63 only")
        at = MONSTER_AT + MONSTER_FIELDS * k
        numbers[at : at + MONSTER_FIELDS] = monster.to_json()
    planes[TERRAIN] = np.frombuffer(bytes(level.terrain), dtype=np.uint8)
    planes[MEMORY] = np.frombuffer(bytes(level.memory), dtype=np.uint8)
    planes[CODES] = learning.CATEGORY_OF[planes[MEMORY]]
    planes[OWNER] = np.frombuffer(level.owner, dtype=np.uint8)
    for cell, stack in level.items.items():
        if len(stack) != 1 or not 0 <= stack[0][1] <= MAX_INDEX:
            raise ValueError("the kernel keeps one item of index 0..255 a cell")
        planes[ICAT, cell] = CATEGORIES.index(stack[0][0]) + 1
        planes[IIDX, cell] = stack[0][1]
    for cell, glyph in level.hidden.items():
        planes[HIDDEN, cell] = glyph
        planes[META, cell] = level.searches.get(cell, 0)
    for cell in level.locked:
        planes[META, cell] |= LOCKED
