"""The Delvewick glyphs, the layout parser and the 8 handcrafted levels with their solutions.

A layout is a list of row strings, top row first, in the seed's glyphs. Inside the rules
the board is one flat ``bytearray`` stored BOTTOM ROW FIRST, so the gravity scan order
(rows bottom to top, columns left to right) is simply ascending index: cell ``(row, col)``
of an ``H``-row board lives at ``(H - 1 - row) * W + col``; ``+W`` is up, ``-W`` is down.

Each shipped level carries a solution in compact form, one letter per action:
``U``/``D``/``L``/``R`` move and ``W`` waits. Every solution clears its level within the
level's oil; tests play all 8 in one run to a win. The solutions are the ones the beam
search of ``playbench.bots.delvewick`` finds with its defaults
(``benchmarks/solve_delvewick.py`` re-solves the levels and compares).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playbench.core.errors import OptionsError, PlaybenchError
from playbench.core.fields import int_field, list_field, need, need_keys, need_object, str_field

BEDROCK = ord("#")
SOIL = ord("%")
EMPTY = ord(".")
BOULDER = ord("O")
GEM = ord("*")
GEODE = ord("G")
EXIT_CLOSED = ord("X")
EXIT_OPEN = ord("E")
MOLE = ord("M")
BOULDER_FALLING = ord("o")
GEM_FALLING = ord("v")
GEODE_FALLING = ord("g")

#: the movable objects, at rest and falling
MOVABLE_GLYPHS = bytes((BOULDER, GEM, GEODE, BOULDER_FALLING, GEM_FALLING, GEODE_FALLING))
#: glyphs a level layout may use (falling objects and the open exit appear only in play)
LAYOUT_GLYPHS = "#%.O*GXM"
#: glyphs a board in play may hold
BOARD_GLYPHS = LAYOUT_GLYPHS + "Eovg"

MIN_SIDE = 3
MAX_WIDTH = 64
MAX_HEIGHT = 40
MAX_NAME = 60
MAX_QUOTA = 999
MAX_OIL = 9999
#: the keys of a level object (a custom level in the options or inside a state)
LEVEL_KEYS = ("name", "quota", "oil", "rows")

#: compact solution letters -> action
SOLUTION_LETTERS = "UDLRW"


@dataclass(frozen=True, slots=True)
class Level:
    """One parsed layout. ``board`` is bottom row first (see the module docstring)."""

    number: int
    name: str
    quota: int
    oil: int
    rows: tuple[str, ...]
    width: int
    height: int
    board: bytes
    start: int
    exit: int
    #: flat index offsets of up, down, left, right
    steps: tuple[int, int, int, int]
    #: True for a layout given in the options (a single-level run), False for the 8
    custom: bool = True
    solution: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "quota": self.quota, "oil": self.oil, "rows": list(self.rows)}

    def cell(self, index: int) -> dict[str, int]:
        """The ``{"row", "col"}`` of a flat index."""
        return {"row": self.height - 1 - index // self.width, "col": index % self.width}

    def index(self, row: int, col: int) -> int:
        return (self.height - 1 - row) * self.width + col


def parse_level(
    data: Any,
    error: type[PlaybenchError] = OptionsError,
    what: str = "level",
    number: int = 1,
    solution: str | None = None,
) -> Level:
    """Check a level object ``{name, quota, oil, rows}`` and build a :class:`Level`.

    Raises ``error`` (:class:`OptionsError` for options, :class:`StateError` inside a
    state) with ``what`` naming the object and the first problem found. A shipped level
    comes with its ``solution``; a custom one has none.
    """
    data = need_object(data, error, what)
    need_keys(data, error, what, LEVEL_KEYS)
    name = str_field(data, "name", error, what)
    need(
        bool(name.strip()) and len(name) <= MAX_NAME,
        error,
        what,
        f"name must be a non-empty string of at most {MAX_NAME} characters",
    )
    quota = int_field(data, "quota", error, what, 1, MAX_QUOTA)
    oil = int_field(data, "oil", error, what, 1, MAX_OIL)
    rows = _layout_rows(data, error, what)
    board = "".join(reversed(rows)).encode()
    width = len(rows[0])
    return Level(
        number=number,
        name=name,
        quota=quota,
        oil=oil,
        rows=tuple(rows),
        width=width,
        height=len(rows),
        board=board,
        start=board.index(MOLE),
        exit=board.index(EXIT_CLOSED),
        steps=(width, -width, -1, 1),
        custom=solution is None,
        solution=solution or "",
    )


def _layout_rows(data: Mapping[str, Any], error: type[PlaybenchError], what: str) -> list[str]:
    """The ``rows`` of a level object: a rectangle of layout glyphs framed in bedrock,
    with exactly one mole and one exit."""
    rows = list_field(data, "rows", error, what)
    need(bool(rows), error, what, "rows must be a non-empty list of strings")
    need(all(isinstance(row, str) for row in rows), error, what, "rows must all be strings")
    height, width = len(rows), len(rows[0])
    lengths = sorted({len(row) for row in rows})
    need(len(lengths) == 1, error, what, f"rows are not rectangular: row lengths {lengths}")
    need(
        MIN_SIDE <= width <= MAX_WIDTH and MIN_SIDE <= height <= MAX_HEIGHT,
        error,
        what,
        f"a layout must be {MIN_SIDE}..{MAX_WIDTH} wide and {MIN_SIDE}..{MAX_HEIGHT} high, "
        f"got {width} x {height}",
    )
    for r, row in enumerate(rows):
        for c, glyph in enumerate(row):
            need(
                glyph in LAYOUT_GLYPHS,
                error,
                what,
                f"unknown glyph {glyph!r} at row {r}, col {c}; a layout uses {LAYOUT_GLYPHS}",
            )
    framed = (
        set(rows[0]) == {"#"}
        and set(rows[-1]) == {"#"}
        and all(row[0] == "#" and row[-1] == "#" for row in rows)
    )
    need(framed, error, what, "the layout is not framed in bedrock: every border cell must be '#'")
    text = "".join(rows)
    for glyph, role in (("M", "mole"), ("X", "exit")):
        count = text.count(glyph)
        need(count == 1, error, what, f"a layout needs exactly one {glyph} ({role}), found {count}")
    return rows


def _level(number: int, name: str, quota: int, oil: int, rows: str, solution: str) -> Level:
    data = {"name": name, "quota": quota, "oil": oil, "rows": rows.split()}
    return parse_level(data, number=number, solution=solution)


LEVELS: tuple[Level, ...] = (
    _level(
        1,
        "Topsoil",
        4,
        40,
        """
        ##################
        #M%%%%%%%O%%%%%%%#
        #%%%%%%%%*%%%%%%%#
        #%%*%%%%%%%%*%%%%#
        #%%%%%%..%%%%%%%%#
        #%*%%%%%%%%%%%*%X#
        ##################
        """,
        "DDRDDUURURRRRRRDRRRDDRRRR",
    ),
    _level(
        2,
        "Root Cellar",
        5,
        46,
        """
        ####################
        #%%%%%%%%%%%%%%%%%%#
        #%%%%%%%O%%%%%%%%%%#
        #%%%%%%%*%%%%O%%%%%#
        #%#######%%%%*%%%%%#
        #M%O.**#%%%%%%%%%%%#
        #%##.###%%%#####%%%#
        #%%#.#%%%%%#**.O%%%#
        #%%%###%%%%###.#%%X#
        ####################
        """,
        "RRRRRLLLLLUURRRRRRRRDRRRRDRRRDDLLLLRRRRDRR",
    ),
    _level(
        3,
        "Old Workings",
        6,
        52,
        """
        ######################
        #M%%%%%%%%%%%%%%%%%%%#
        #%%%%%%%%%%%%%%%%%%%%#
        #%%%%%%*%%%%%%*%%%%%%#
        #%%%%%%O%%%%%%O%%%%%%#
        #%%*%%%O%%%%%%O%%%%*%#
        #%%%%..%...*..%....%%#
        #%%%%%%%%%*%%%*%%%%%%#
        #%%%%%%%%%%%%%%%%%%%X#
        ######################
        """,
        "DDDDRRRRRDRRWLDRRRURRRRDLURURRRRRDDDR",
    ),
    _level(
        4,
        "Geode Hollow",
        7,
        58,
        """
        ######################
        #M%%%%%%%%%%%%%%%%%%%#
        #%%%%G.%%%%%%%%.G%%%%#
        #%%%%#.%%%%%%%%.#%%%%#
        #%%*%#.%%%*%%%%.#%*%%#
        #%%%%%%%%%%%%%%%%%%%%#
        #%%%%%%%%G%%O%%%%%%%%#
        #%*%%%%%%%%%%%%%%%*%%#
        #%%%%%%%%%%%%%%%%%%%X#
        ######################
        """,
        "DRRRRLDDDLLDDUURRRRURRRRRRRRRDRRRLUUULLDDDRRRDDDRR",
    ),
    _level(
        5,
        "Slate Gallery",
        9,
        64,
        """
        ########################
        #M%%%%%%%%%%%%%%%%%%%%%#
        #%%%%%%%%%%%%%%%%%%%%%%#
        #%####.#####%#####.###%#
        #%%%*%%O*%%%%%%%*O%%%%%#
        #%%%%%%%%%%%%%%%%%%%%%%#
        #%%G.%%%%*%%%%*%%%%.G%%#
        #%%###%%%%%%%%%%%%%###%#
        #%%*%%%%*%%%%%%*%%%%*%X#
        ########################
        """,
        "DDDRRRRRDRRDDLDLLLLRRRRRUURRRRRURRRDLLRDDURDWRRRRRR",
    ),
    _level(
        6,
        "The Underbrook",
        11,
        70,
        """
        ########################
        #M%%%%%%%%%%%%%%%%%%%%%#
        #%%%%%%%%%*O*%%%%%%%%%%#
        #%%%%%%%%%O*O%%%%%%%%%%#
        #%%*%%%%%%*O*%%%%%%%*%%#
        #%*%%%%%%%%%%%%%%%%%%*%#
        #%%......%%%%%%......%%#
        #%%G%%%%%%*%*%%%%%%G%%%#
        #%%%%%%%%%%%%%%%%%%%%%%#
        #%%*%%%%%%%%%%%%%%%*%%X#
        ########################
        """,
        "DDDDRURRRRRRRDRRWRULLDDDRRRRRRRRDRRUUURLDDDLDRRR",
    ),
    _level(
        7,
        "Deep Seam",
        12,
        76,
        """
        ##########################
        #M%%%%%%%%%#%%%%%%%%%%%%%#
        #%%%%%%%%%%#%%%%%#%%%%%%%#
        #%%OOOOOO%%#%%%%%#%%%%%%%#
        #%%******%%#%%G%%#%%%%%%%#
        #%%%%%%%%%%#%%%%%#%%%%%%%#
        #%%%%%%%%%%#%%.%%#%%%%%%%#
        #%%%O%%%%%%#%%.%%#%OOOOO%#
        #%%%*%%%%%%#%%%%%#%*****%#
        #%%%%%%%%%%%%%%%%#%%%%%%X#
        ##########################
        """,
        "DDDRRRRRRRDDDDDRRRRUUUURRDDLWRRRUUUUUURRDDDDDDDRRRRRDR",
    ),
    _level(
        8,
        "The Gemheart",
        13,
        80,
        """
        ############################
        #M%%%%%%%%%%%%%%%%%%%%%%%%%#
        #%%%%%%%%%%%%%%%%%%%%%%%%%%#
        #%%*%%%%%%#########%%%%%*%%#
        #%%*%%%%%%#*G*O*G*#%%%%%*%%#
        #%%O%%%%%%#O*G*G*O#%%%%%O%%#
        #%%%%%%%%%#%%%%%%%#%%%%%%%%#
        #%%%%%%%%%#%%%%%%%#%%%%%%%%#
        #%G.%%%%%%%%%%%%%%%%%%%%.G%#
        #%#.%%%%%%%%%%%%%%%%%%%%.#%#
        #%%%%%%%*%%%%%%%%%%%*%%%%%X#
        ############################
        """,
        "DDRRDRDDDDRRRRRRRURURRDWRULLLDURRRRDLRDDDWRRRRRRRRUUURUUURDDDDLWLDDRR",
    ),
)
