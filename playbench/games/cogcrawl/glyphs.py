"""Map glyphs of Cogcrawl and which of them a cog can walk on.

Shared by the dungeon, the rules, the seat protocol's ``travel`` and the delver, so a
cell means the same thing to all of them.
"""

from __future__ import annotations

WIDTH = 48
HEIGHT = 18

UNSEEN = " "
FLOOR = "."
CORRIDOR = "#"
WALL_V = "|"
WALL_H = "-"
DOOR_CLOSED = "+"
DOOR_OPEN = "'"
STAIRS_UP = "<"
STAIRS_DOWN = ">"
LAVA = "}"
GOLD = "$"
FOOD = "%"
POTION = "!"
WEAPON = ")"
ARMOUR = "["
COGHEART = '"'
COG = "@"

WALLS = frozenset({WALL_V, WALL_H})
DOORS = frozenset({DOOR_CLOSED, DOOR_OPEN})
ITEMS = frozenset({GOLD, FOOD, POTION, WEAPON, ARMOUR, COGHEART})
#: cells a cog may stand on and ``travel`` may path through (lava kills, so it is not here)
TERRAIN_WALKABLE = frozenset({FLOOR, CORRIDOR, DOOR_OPEN, STAIRS_UP, STAIRS_DOWN})
WALKABLE = TERRAIN_WALKABLE | ITEMS

DIRECTIONS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "s": (0, 1),
    "e": (1, 0),
    "w": (-1, 0),
    "ne": (1, -1),
    "nw": (-1, -1),
    "se": (1, 1),
    "sw": (-1, 1),
}
DIRECTION_OF: dict[tuple[int, int], str] = {delta: name for name, delta in DIRECTIONS.items()}
