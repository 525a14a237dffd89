"""The Chimestep pyramid: 7 tiers, 28 tiles, four diagonal moves.

Tile ``(row, col)`` with ``0 <= col <= row <= 6`` has the flat index
``row * (row + 1) // 2 + col``. With ``a = col`` and ``b = row - col`` every move changes
exactly one of ``a`` and ``b`` by one, so the pyramid is a triangle of a square lattice and
the number of hops between two tiles is ``|da| + |db|``.
"""

from __future__ import annotations

TIERS = 7
TILE_COUNT = TIERS * (TIERS + 1) // 2
APEX = 0
BASE_ROW = TIERS - 1

#: direction names in the order the engine lists them; a direction is its index here
DIRECTIONS = ("upLeft", "upRight", "downLeft", "downRight")
UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = range(len(DIRECTIONS))
DIRECTION_INDEX = {name: index for index, name in enumerate(DIRECTIONS)}
#: (row change, col change) of each direction
DELTAS = ((-1, -1), (-1, 0), (1, 0), (1, 1))
OFF = -1


def index(row: int, col: int) -> int:
    return row * (row + 1) // 2 + col


def on_pyramid(row: int, col: int) -> bool:
    return 0 <= col <= row < TIERS


ROW_OF = tuple(row for row in range(TIERS) for _ in range(row + 1))
COL_OF = tuple(col for row in range(TIERS) for col in range(row + 1))
CELLS = tuple(zip(ROW_OF, COL_OF, strict=True))


def _target(tile: int, direction: int) -> int:
    row = ROW_OF[tile] + DELTAS[direction][0]
    col = COL_OF[tile] + DELTAS[direction][1]
    return index(row, col) if on_pyramid(row, col) else OFF


#: NEIGHBOR[tile][direction] is the tile a hop lands on, or OFF past the rim
NEIGHBOR = tuple(
    tuple(_target(tile, d) for d in range(len(DIRECTIONS))) for tile in range(TILE_COUNT)
)
#: the on-pyramid neighbours of each tile
ADJACENT = tuple(tuple(t for t in NEIGHBOR[tile] if t != OFF) for tile in range(TILE_COUNT))


def _distance(first: int, second: int) -> int:
    da = COL_OF[first] - COL_OF[second]
    db = (ROW_OF[first] - COL_OF[first]) - (ROW_OF[second] - COL_OF[second])
    return abs(da) + abs(db)


#: DISTANCE[a][b] is the fewest hops from tile a to tile b
DISTANCE = tuple(
    tuple(_distance(first, second) for second in range(TILE_COUNT)) for first in range(TILE_COUNT)
)
BASE_CORNERS = (index(BASE_ROW, 0), index(BASE_ROW, BASE_ROW))
