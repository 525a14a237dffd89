"""Dungeon levels of Cogcrawl: their data and their generation from the run seed.

A level is 48 x 18 cells held as flat bytearrays (index ``y * WIDTH + x``): ``terrain``
as it shows (a hidden door shows as wall, a hidden corridor cell as unseen rock, a
locked door as ``+``) and ``memory``, what the cog has seen of it. Hidden things keep
their true glyph and search count in small dicts; items lie in stacks keyed by cell.

Generation (``Rng.from_seed(seed, depth)``, so a seed always gives the same dungeon):
6-9 rooms in a 5 x 2 grid of slots, each room joined to the next slot's room and a few
more by corridors dug through rock; doors are open, closed, locked or hidden; some
corridor cells are hidden; ``<`` and ``>`` (on DL10 the Cogheart instead of ``>``) lie
in different rooms. Every room is reachable from ``<`` when hidden cells and locked
doors count as passable, and on every level ``<`` joins ``>`` (or the Cogheart) by a
path with no hidden cell and no locked door. Lava pools appear from DL4 inside rooms,
never cutting any walkable cell off.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from functools import lru_cache

from playbench.core import Rng
from playbench.games.cogcrawl.glyphs import (
    CORRIDOR,
    DIRECTIONS,
    DOOR_CLOSED,
    DOOR_OPEN,
    FLOOR,
    HEIGHT,
    LAVA,
    STAIRS_DOWN,
    STAIRS_UP,
    TERRAIN_WALKABLE,
    UNSEEN,
    WALL_H,
    WALL_V,
    WIDTH,
)
from playbench.games.cogcrawl.items import (
    ARMOUR_KIND,
    ARMOURS,
    COGHEART_ITEM,
    FOOD_KIND,
    GOLD_KIND,
    POTION_KIND,
    POTIONS,
    WEAPON_KIND,
    WEAPONS,
    Item,
)
from playbench.games.cogcrawl.monsters import (
    HIT_DIE,
    KINDS,
    LEVEL0_HP,
    ORACLE,
    Monster,
    kinds_for_depth,
)

SIZE = WIDTH * HEIGHT
LEVELS = 10
LAVA_DEPTH = 4
ORACLE_LEVELS = (2, 3, 4, 5)
#: the generator stream that places the Oracle (levels use streams 1..10)
ORACLE_STREAM = 0
#: a level from LAVA_DEPTH down tries MIN_LAVA..depth lava cells
MIN_LAVA = 2

FLOOR_B = ord(FLOOR)
CORRIDOR_B = ord(CORRIDOR)
DOOR_CLOSED_B = ord(DOOR_CLOSED)
DOOR_OPEN_B = ord(DOOR_OPEN)
STAIRS_UP_B = ord(STAIRS_UP)
STAIRS_DOWN_B = ord(STAIRS_DOWN)
LAVA_B = ord(LAVA)
ROCK_B = ord(UNSEEN)
WALL_H_B = ord(WALL_H)
WALL_V_B = ord(WALL_V)
WALKABLE_B = frozenset(ord(g) for g in TERRAIN_WALKABLE)
DOOR_B = frozenset({DOOR_CLOSED_B, DOOR_OPEN_B})

#: slot grid: column and row boundaries; a room keeps one cell clear inside its slot
COLUMN_BOUNDS = (0, 10, 19, 29, 38, 48)
ROW_BOUNDS = (0, 9, 18)
SLOT_ROWS = len(ROW_BOUNDS) - 1
SLOTS = (len(COLUMN_BOUNDS) - 1) * SLOT_ROWS
MIN_ROOMS, MAX_ROOMS = 6, 9
MIN_INNER_WIDTH, MIN_INNER_HEIGHT = 3, 2
EXTRA_CORRIDORS = (1, 3)
DOOR_TRIES = 4
#: door kinds out of 100: open below 35, closed below 70, locked below 85, else hidden
DOOR_OPEN_BELOW, DOOR_CLOSED_BELOW, DOOR_LOCKED_BELOW, PERCENT = 35, 70, 85, 100
#: one corridor in HIDDEN_CORRIDOR_ODDS gets one hidden cell
HIDDEN_CORRIDOR_ODDS = 5
MIN_HIDDEN_CORRIDOR = 3
GOLD_PILES = (1, 3)
GOLD_BASE, GOLD_PER_DEPTH = 5, 6
ITEM_COUNT = (2, 5)
#: item categories out of 100: food below 45, potion below 65, weapon below 80, else armour
#: (monsters leave no corpses, so food lies about more often than in NetHack)
FOOD_BELOW, POTION_BELOW, WEAPON_BELOW = 45, 65, 80
#: the food kinds a food item is drawn from, by index into ``items.FOODS``
FOOD_TABLE = (0, 0, 0, 0, 1, 1, 2, 3, 5)
MONSTER_COUNT_MIN = 2
PLACE_TRIES = 200

Rect = tuple[int, int, int, int]
#: how many room layouts :func:`room_map` keeps
ROOM_MAPS_KEPT = 512
Stack = tuple[Item, ...]


def cell_of(x: int, y: int) -> int:
    return y * WIDTH + x


def xy_of(cell: int) -> tuple[int, int]:
    return cell % WIDTH, cell // WIDTH


def _neighbour_table() -> tuple[tuple[tuple[str, int], ...], ...]:
    table = []
    for cell in range(SIZE):
        x, y = cell % WIDTH, cell // WIDTH
        table.append(
            tuple(
                (name, (y + dy) * WIDTH + x + dx)
                for name, (dx, dy) in DIRECTIONS.items()
                if 0 <= x + dx < WIDTH and 0 <= y + dy < HEIGHT
            )
        )
    return tuple(table)


#: per cell, (direction, cell) of its on-map neighbours in the fixed DIRECTIONS order
NEIGHBOURS = _neighbour_table()


#: per cell, the cell itself and its on-map neighbours: what the cog sees around it
AROUND = tuple((cell, *(c for _, c in row)) for cell, row in enumerate(NEIGHBOURS))


def neighbours(cell: int) -> tuple[tuple[str, int], ...]:
    """(direction, cell) of the on-map neighbours, in the fixed DIRECTIONS order."""
    return NEIGHBOURS[cell]


@lru_cache(maxsize=ROOM_MAPS_KEPT)
def room_map(rooms: tuple[Rect, ...]) -> bytes:
    """Per cell, 1 + the index of the room whose rectangle (walls included) holds it, or 0.

    Kept for the last :data:`ROOM_MAPS_KEPT` layouts: every state read from JSON rebuilds
    its levels, and a run's levels keep their rooms."""
    owner = bytearray(SIZE)
    for index, (x1, y1, x2, y2) in enumerate(rooms):
        for y in range(y1, y2 + 1):
            owner[y * WIDTH + x1 : y * WIDTH + x2 + 1] = bytes([index + 1]) * (x2 - x1 + 1)
    return bytes(owner)


class Level:
    """One dungeon level as the run knows it."""

    __slots__ = (
        "depth",
        "down",
        "hidden",
        "items",
        "locked",
        "memory",
        "monsters",
        "owner",
        "rooms",
        "searches",
        "terrain",
        "up",
    )

    def __init__(
        self,
        depth: int,
        terrain: bytearray,
        memory: bytearray,
        rooms: tuple[Rect, ...],
        up: int,
        down: int | None,
        hidden: dict[int, int],
        searches: dict[int, int],
        locked: set[int],
        items: dict[int, Stack],
        monsters: list[Monster],
        owner: bytes | None = None,
    ) -> None:
        self.depth = depth
        self.terrain = terrain
        self.memory = memory
        self.rooms = rooms
        self.up = up
        self.down = down
        self.hidden = hidden
        self.searches = searches
        self.locked = locked
        self.items = items
        self.monsters = monsters
        self.owner = owner if owner is not None else room_map(rooms)

    def copy(self) -> Level:
        return Level(
            self.depth,
            bytearray(self.terrain),
            bytearray(self.memory),
            self.rooms,
            self.up,
            self.down,
            dict(self.hidden),
            dict(self.searches),
            set(self.locked),
            dict(self.items),
            [m.copy() for m in self.monsters],
            self.owner,
        )

    def monster_at(self, cell: int) -> Monster | None:
        x, y = cell % WIDTH, cell // WIDTH
        for monster in self.monsters:
            if monster.x == x and monster.y == y:
                return monster
        return None

    def to_json(self) -> dict:
        return {
            "terrain": self.terrain.decode("ascii"),
            "memory": self.memory.decode("ascii"),
            "rooms": [list(r) for r in self.rooms],
            "up": self.up,
            "down": self.down,
            "hidden": [
                [c, chr(g), self.searches.get(c, 0)] for c, g in sorted(self.hidden.items())
            ],
            "locked": sorted(self.locked),
            "items": [[c, [list(i) for i in s]] for c, s in sorted(self.items.items())],
            "monsters": [m.to_json() for m in self.monsters],
        }


# -- paths -----------------------------------------------------------------------------


def step_allowed(terrain: bytearray, here: int, there: int) -> bool:
    """No diagonal step into or out of a doorway (open, closed or still hidden)."""
    if abs(here - there) in (1, WIDTH):
        return True
    return terrain[here] not in DOOR_B and terrain[there] not in DOOR_B


BYTE_VALUES = 256


def _table(cells: frozenset[int]) -> bytes:
    return bytes(1 if b in cells else 0 for b in range(BYTE_VALUES))


#: byte translation tables: terrain glyph -> 1 where the mask holds
WALK_TABLE = _table(WALKABLE_B)
WALK_OR_DOOR_TABLE = _table(WALKABLE_B | {DOOR_CLOSED_B})
DOORWAY_TABLE = _table(DOOR_B)
#: per cell, (neighbour, is the step diagonal) in the fixed DIRECTIONS order
STEPS = tuple(tuple((cell, len(name) == 2) for name, cell in row) for row in NEIGHBOURS)


def reachable(level: Level, start: int, passable: bytes | bytearray) -> dict[int, int]:
    """Breadth-first parents of every cell reachable from ``start`` over cells whose
    ``passable`` mask byte is set, never stepping diagonally into or out of a doorway."""
    doorway = level.terrain.translate(DOORWAY_TABLE)
    for cell, glyph in level.hidden.items():
        if glyph == DOOR_CLOSED_B:
            doorway[cell] = 1
    parents = {start: start}
    frontier = [start]
    for here in frontier:
        door_here = doorway[here]
        for there, diagonal in STEPS[here]:
            if not passable[there] or there in parents:
                continue
            if diagonal and (door_here or doorway[there]):
                continue
            parents[there] = here
            frontier.append(there)
    return parents


def passable_now(level: Level) -> bytearray:
    """Mask of cells a cog or monster can stand on now."""
    return level.terrain.translate(WALK_TABLE)


def passable_with_hidden(level: Level, blocked: Iterable[int] = ()) -> bytearray:
    """Mask of cells walkable once hidden things are found and locked doors broken."""
    mask = level.terrain.translate(WALK_OR_DOOR_TABLE)
    for cell in level.hidden:
        mask[cell] = 1
    for cell in blocked:
        mask[cell] = 0
    return mask


def passable_plain(level: Level, blocked: Iterable[int] = ()) -> bytearray:
    """Mask of cells walkable now or through a closed (not locked) door: no search or kick."""
    mask = level.terrain.translate(WALK_OR_DOOR_TABLE)
    for cell in level.locked:
        mask[cell] = 0
    for cell in blocked:
        mask[cell] = 0
    return mask


def goal_of(level: Level) -> int:
    """The cell a run heads for on this level: ``>``, or the Cogheart on the last level."""
    if level.down is not None:
        return level.down
    for cell, stack in level.items.items():
        if COGHEART_ITEM in stack:
            return cell
    return level.up


# -- generation ------------------------------------------------------------------------


def oracle_level(seed: int) -> int:
    """The one level of DL2-5 holding the Oracle, fixed by the seed."""
    return Rng.from_seed(seed, ORACLE_STREAM).choice(ORACLE_LEVELS)


def generate(seed: int, depth: int) -> Level:
    """The level ``depth`` (1..10) of the dungeon of ``seed``; memory starts blank."""
    rng = Rng.from_seed(seed, depth)
    rooms = _place_rooms(rng)
    terrain = bytearray(b" " * SIZE)
    for x1, y1, x2, y2 in rooms:
        _draw_room(terrain, x1, y1, x2, y2)
    owner = room_map(rooms)
    level = Level(
        depth, terrain, bytearray(b" " * SIZE), rooms, 0, None, {}, {}, set(), {}, [], owner
    )
    corridors = _dig_corridors(rng, level)
    _hide_and_lock(rng, level, corridors)
    up_room = rng.below(len(rooms))
    goal_room = (up_room + 1 + rng.below(len(rooms) - 1)) % len(rooms)
    level.up = _free_cell(rng, level, [up_room], set())
    terrain[level.up] = STAIRS_UP_B
    goal = _free_cell(rng, level, [goal_room], set())
    if depth < LEVELS:
        level.down = goal
        terrain[goal] = STAIRS_DOWN_B
    else:
        level.items[goal] = (COGHEART_ITEM,)
    _clear_main_path(level)
    blocked: set[int] = set()
    others = [i for i in range(len(rooms)) if i != up_room]
    if depth == oracle_level(seed):
        cell = _free_cell(rng, level, others, blocked, away_from_doors=True)
        blocked.add(cell)
        x, y = xy_of(cell)
        level.monsters.append(Monster(0, ORACLE, x, y, 1))
    if depth >= LAVA_DEPTH:
        _pour_lava(rng, level, blocked)
    _scatter_items(rng, level)
    _place_monsters(rng, level, others)
    return level


def _place_rooms(rng: Rng) -> tuple[Rect, ...]:
    slots = list(range(SLOTS))
    rng.shuffle(slots)
    rooms = []
    for slot in sorted(slots[: rng.randint(MIN_ROOMS, MAX_ROOMS)]):
        column, row = divmod(slot, SLOT_ROWS)
        left, right = COLUMN_BOUNDS[column] + 1, COLUMN_BOUNDS[column + 1] - 2
        top, bottom = ROW_BOUNDS[row] + 1, ROW_BOUNDS[row + 1] - 2
        inner_w = rng.randint(MIN_INNER_WIDTH, right - left - 1)
        inner_h = rng.randint(MIN_INNER_HEIGHT, bottom - top - 1)
        x1 = rng.randint(left, right - inner_w - 1)
        y1 = rng.randint(top, bottom - inner_h - 1)
        rooms.append((x1, y1, x1 + inner_w + 1, y1 + inner_h + 1))
    return tuple(rooms)


def _draw_room(terrain: bytearray, x1: int, y1: int, x2: int, y2: int) -> None:
    width = x2 - x1 + 1
    terrain[y1 * WIDTH + x1 : y1 * WIDTH + x2 + 1] = bytes([WALL_H_B]) * width
    terrain[y2 * WIDTH + x1 : y2 * WIDTH + x2 + 1] = bytes([WALL_H_B]) * width
    for y in range(y1 + 1, y2):
        row = y * WIDTH
        terrain[row + x1] = WALL_V_B
        terrain[row + x2] = WALL_V_B
        terrain[row + x1 + 1 : row + x2] = bytes([FLOOR_B]) * (width - 2)


def _dig_corridors(rng: Rng, level: Level) -> list[list[int]]:
    """Join room i to room i+1, plus a few extra pairs in neighbouring columns."""
    rooms = level.rooms
    pairs = [(i, i + 1) for i in range(len(rooms) - 1)]
    extra = rng.randint(*EXTRA_CORRIDORS)
    candidates = [
        (i, j)
        for i in range(len(rooms))
        for j in range(i + 2, len(rooms))
        if abs(rooms[i][0] - rooms[j][0]) <= COLUMN_BOUNDS[2]
    ]
    rng.shuffle(candidates)
    pairs.extend(candidates[:extra])
    doors: set[int] = set()
    corridors = []
    for a, b in pairs:
        door_a, out_a, door_b, out_b = _door_pair(rng, rooms[a], rooms[b], doors)
        path = _corridor_path(level, out_a, out_b)
        for cell in path:
            level.terrain[cell] = CORRIDOR_B
        for door in (door_a, door_b):
            level.terrain[door] = DOOR_OPEN_B
            doors.add(door)
        corridors.append(path)
    return corridors


def _door_pair(rng: Rng, a: Rect, b: Rect, doors: set[int]) -> tuple[int, int, int, int]:
    if a[2] < b[0]:
        sides = ("e", "w")
    elif b[2] < a[0]:
        sides = ("w", "e")
    elif a[3] < b[1]:
        sides = ("s", "n")
    else:
        sides = ("n", "s")
    door_a, out_a = _door_on(rng, a, sides[0], doors)
    door_b, out_b = _door_on(rng, b, sides[1], doors)
    return door_a, out_a, door_b, out_b


def _door_on(rng: Rng, rect: Rect, side: str, doors: set[int]) -> tuple[int, int]:
    """A door cell on one wall of ``rect`` (not a corner) and the cell just outside it."""
    x1, y1, x2, y2 = rect
    dx, dy = DIRECTIONS[side]
    cell = 0
    for _ in range(DOOR_TRIES):
        if side in ("e", "w"):
            x, y = (x2 if side == "e" else x1), rng.randint(y1 + 1, y2 - 1)
            along = WIDTH
        else:
            x, y = rng.randint(x1 + 1, x2 - 1), (y2 if side == "s" else y1)
            along = 1
        cell = cell_of(x, y)
        if cell in doors or (cell - along not in doors and cell + along not in doors):
            break
    x, y = xy_of(cell)
    return cell, cell_of(x + dx, y + dy)


def _corridor_path(level: Level, start: int, goal: int) -> list[int]:
    """Shortest 4-connected path through cells outside every room (always exists)."""
    owner = level.owner
    parents = {start: start}
    frontier = deque([start])
    while frontier:
        here = frontier.popleft()
        if here == goal:
            break
        x, y = here % WIDTH, here // WIDTH
        for nx, ny in ((x, y - 1), (x, y + 1), (x + 1, y), (x - 1, y)):
            if 0 <= nx < WIDTH and 0 <= ny < HEIGHT:
                there = ny * WIDTH + nx
                if there not in parents and not owner[there]:
                    parents[there] = here
                    frontier.append(there)
    path = [goal]
    while path[-1] != start:
        path.append(parents[path[-1]])
    path.reverse()
    return path


def _hide_and_lock(rng: Rng, level: Level, corridors: list[list[int]]) -> None:
    terrain = level.terrain
    for cell in range(SIZE):
        if terrain[cell] != DOOR_OPEN_B:
            continue
        roll = rng.below(PERCENT)
        if roll < DOOR_OPEN_BELOW:
            continue
        terrain[cell] = DOOR_CLOSED_B
        if roll >= DOOR_CLOSED_BELOW and roll < DOOR_LOCKED_BELOW:
            level.locked.add(cell)
        elif roll >= DOOR_LOCKED_BELOW:
            level.hidden[cell] = DOOR_CLOSED_B
            x, _ = xy_of(cell)
            rect = level.rooms[level.owner[cell] - 1]
            terrain[cell] = WALL_V_B if x in (rect[0], rect[2]) else WALL_H_B
    for path in corridors:
        if len(path) >= MIN_HIDDEN_CORRIDOR and rng.below(HIDDEN_CORRIDOR_ODDS) == 0:
            cell = path[rng.randint(1, len(path) - 2)]
            if terrain[cell] == CORRIDOR_B:
                level.hidden[cell] = CORRIDOR_B
                terrain[cell] = ROCK_B


def reveal(level: Level, cell: int) -> None:
    level.terrain[cell] = level.hidden.pop(cell)
    level.searches.pop(cell, None)


def _clear_main_path(level: Level) -> None:
    """Unhide and unlock whatever lies on one shortest path from ``<`` to the goal."""
    goal = goal_of(level)
    parents = reachable(level, level.up, passable_with_hidden(level))
    cell = goal
    while cell != level.up:
        if cell in level.hidden:
            reveal(level, cell)
        level.locked.discard(cell)
        cell = parents[cell]


def _interior(rect: Rect) -> list[int]:
    x1, y1, x2, y2 = rect
    return [cell_of(x, y) for y in range(y1 + 1, y2) for x in range(x1 + 1, x2)]


def next_to_door(level: Level, cell: int) -> bool:
    x, y = xy_of(cell)
    for nx, ny in ((x, y - 1), (x, y + 1), (x + 1, y), (x - 1, y)):
        other = cell_of(nx, ny)
        if level.terrain[other] in DOOR_B or other in level.hidden:
            return True
    return False


def _is_free(level: Level, cell: int, blocked: set[int]) -> bool:
    return (
        level.terrain[cell] == FLOOR_B
        and cell not in level.items
        and cell not in blocked
        and level.monster_at(cell) is None
    )


def _free_cell(
    rng: Rng, level: Level, rooms: list[int], blocked: set[int], away_from_doors: bool = False
) -> int:
    """A floor cell with nothing on it in one of ``rooms`` (random, seeded)."""
    for _ in range(PLACE_TRIES):
        cell = rng.choice(_interior(level.rooms[rng.choice(rooms)]))
        if _is_free(level, cell, blocked) and not (away_from_doors and next_to_door(level, cell)):
            return cell
    for index in rooms:
        for cell in _interior(level.rooms[index]):
            if _is_free(level, cell, blocked):
                return cell
    raise RuntimeError("no free floor cell in the chosen rooms")


def _pour_lava(rng: Rng, level: Level, blocked: set[int]) -> None:
    """Lava cells in rooms, each kept only if it cuts no walkable cell off."""
    goal = goal_of(level)
    count = len(reachable(level, level.up, passable_with_hidden(level, blocked)))
    everything = list(range(len(level.rooms)))
    for _ in range(rng.randint(MIN_LAVA, level.depth)):
        cell = _free_cell(rng, level, everything, blocked, away_from_doors=True)
        level.terrain[cell] = LAVA_B
        plain = reachable(level, level.up, passable_plain(level, blocked))
        if (
            goal in plain
            and len(reachable(level, level.up, passable_with_hidden(level, blocked))) == count - 1
        ):
            count -= 1
        else:
            level.terrain[cell] = FLOOR_B


def _scatter_items(rng: Rng, level: Level) -> None:
    everything = list(range(len(level.rooms)))
    depth = level.depth
    for _ in range(rng.randint(*GOLD_PILES)):
        amount = rng.randint(GOLD_BASE, GOLD_BASE + GOLD_PER_DEPTH * depth)
        level.items[_free_cell(rng, level, everything, set())] = ((GOLD_KIND, amount),)
    weapons = [i for i, w in enumerate(WEAPONS) if w.depth <= depth]
    armours = [i for i, a in enumerate(ARMOURS) if a.depth <= depth]
    for _ in range(rng.randint(*ITEM_COUNT)):
        roll = rng.below(PERCENT)
        if roll < FOOD_BELOW:
            item = (FOOD_KIND, rng.choice(FOOD_TABLE))
        elif roll < POTION_BELOW:
            item = (POTION_KIND, rng.below(len(POTIONS)))
        elif roll < WEAPON_BELOW:
            item = (WEAPON_KIND, rng.choice(weapons))
        else:
            item = (ARMOUR_KIND, rng.choice(armours))
        level.items[_free_cell(rng, level, everything, set())] = (item,)


def _place_monsters(rng: Rng, level: Level, rooms: list[int]) -> None:
    kinds = kinds_for_depth(level.depth)
    ident = len(level.monsters)
    for _ in range(rng.randint(MONSTER_COUNT_MIN, MONSTER_COUNT_MIN + 1 + level.depth // 2)):
        kind = rng.choice(kinds)
        x, y = xy_of(_free_cell(rng, level, rooms, set()))
        level.monsters.append(Monster(ident, kind, x, y, roll_hp(rng, kind)))
        ident += 1


def roll_hp(rng: Rng, kind: int) -> int:
    level = KINDS[kind].level
    if level == 0:
        return rng.randint(1, LEVEL0_HP)
    return sum(rng.randint(1, HIT_DIE) for _ in range(level))
