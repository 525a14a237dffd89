"""What the cog sees: the cells next to it and the whole of a lit room it stands in.

``see`` copies what is in sight into the level's memory (the map a seat is shown); the
monsters in view are those on seen cells.
"""

from __future__ import annotations

from playbench.games.cogcrawl.dungeon import AROUND, WIDTH, Level
from playbench.games.cogcrawl.glyphs import HEIGHT, ITEMS
from playbench.games.cogcrawl.items import GLYPHS
from playbench.games.cogcrawl.monsters import Monster
from playbench.games.cogcrawl.state import CogState

#: item category -> the byte of its glyph on the map
ITEM_BYTES = {category: ord(glyph) for category, glyph in GLYPHS.items()}
ITEM_GLYPH_BYTES = frozenset(ord(g) for g in ITEMS)


def can_see(level: Level, cog: int, x: int, y: int) -> bool:
    """The cog sees a cell next to it, and the whole of a lit room it stands in."""
    cx, cy = cog % WIDTH, cog // WIDTH
    if abs(cx - x) <= 1 and abs(cy - y) <= 1:
        return True
    room = level.owner[cog]
    return room != 0 and level.owner[y * WIDTH + x] == room


def visible_monsters(state: CogState) -> list[Monster]:
    level, cog = state.level, state.cell
    return [m for m in level.monsters if can_see(level, cog, m.x, m.y)]


def see(state: CogState) -> None:
    """Copy what the cog sees now into the level's memory."""
    level, cog = state.level, state.cell
    memory, terrain, items = level.memory, level.terrain, level.items
    room = level.owner[cog]
    if room:
        x1, y1, x2, y2 = level.rooms[room - 1]
        for row in range(y1 * WIDTH, (y2 + 1) * WIDTH, WIDTH):
            memory[row + x1 : row + x2 + 1] = terrain[row + x1 : row + x2 + 1]
        for cell, stack in items.items():
            if level.owner[cell] == room:
                memory[cell] = ITEM_BYTES[stack[0][0]]
    for cell in AROUND[cog]:
        stack = items.get(cell)
        memory[cell] = ITEM_BYTES[stack[0][0]] if stack else terrain[cell]


def memory_rows(level: Level) -> list[str]:
    text = level.memory.decode("ascii")
    return [text[y * WIDTH : (y + 1) * WIDTH] for y in range(HEIGHT)]
