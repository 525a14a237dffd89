"""The Gem Swap board: cells, gems, lines, legal swaps, falling, refilling, reshuffling.

The board is two flat ``bytearray`` of 64 cells in row-major order (cell 0 is ``A1`` at
the top left, cell 63 is ``H8``): ``colors`` holds each gem's colour (0-6, or
:data:`NO_COLOR` for a colour bomb) and ``kinds`` what kind of gem it is. Both copy in a
fraction of a microsecond. Functions here take the two arrays and change them in place
where their names say so; the rules copy a state's arrays before calling them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from playbench.core.rng import Rng

SIZE = 8
CELLS = SIZE * SIZE
COLUMN_LETTERS = "ABCDEFGH"
#: gem colours in their fixed order; ties between colours are broken in this order
COLOR_LETTERS = "RGBYPOW"
NUM_COLORS = len(COLOR_LETTERS)
#: the "colour" of a colour bomb: matches nothing
NO_COLOR = NUM_COLORS
#: a cell with no gem: like a colour bomb it matches nothing (the board functions take it;
#: a step's cleared cells are handed to :func:`collapse` as a list, not marked)
EMPTY = 255
MIN_LINE = 3

PLAIN = 0
ROW_BLASTER = 1
COLUMN_BLASTER = 2
AREA_BOMB = 3
COLOR_BOMB = 4
#: token suffix of each coloured kind: ``R``, ``R-``, ``R|``, ``R+``
KIND_SUFFIX = ("", "-", "|", "+")
COLOR_BOMB_TOKEN = "@"

HORIZONTAL = 0
VERTICAL = 1

CELL_NAMES: tuple[str, ...] = tuple(
    f"{COLUMN_LETTERS[i % SIZE]}{i // SIZE + 1}" for i in range(CELLS)
)
CELL_INDEX: dict[str, int] = {name: i for i, name in enumerate(CELL_NAMES)}
COLUMN_OF: tuple[int, ...] = tuple(cell % SIZE for cell in range(CELLS))
ROWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(range(r * SIZE, (r + 1) * SIZE)) for r in range(SIZE)
)
COLUMNS: tuple[tuple[int, ...], ...] = tuple(tuple(range(c, CELLS, SIZE)) for c in range(SIZE))

#: how many times a reshuffle tries to lay the same gems out before dealing new ones
RESHUFFLE_TRIES = 200

_TOKEN_RE = re.compile(rf"([{COLOR_LETTERS}])([-|+]?)|{re.escape(COLOR_BOMB_TOKEN)}")


# -- gems and cells ----------------------------------------------------------------------
def token(color: int, kind: int) -> str:
    """The text of one gem: ``R``, ``R-``, ``R|``, ``R+`` or ``@``."""
    if kind == COLOR_BOMB:
        return COLOR_BOMB_TOKEN
    return COLOR_LETTERS[color] + KIND_SUFFIX[kind]


def parse_token(text: str) -> tuple[int, int] | None:
    """``(color, kind)`` of a gem token, or None when it is not one."""
    match = _TOKEN_RE.fullmatch(text)
    if match is None:
        return None
    if text == COLOR_BOMB_TOKEN:
        return NO_COLOR, COLOR_BOMB
    return COLOR_LETTERS.index(match.group(1)), KIND_SUFFIX.index(match.group(2))


def neighbors(cell: int) -> list[int]:
    """The cells sharing a side with ``cell``, in the order up, left, right, down."""
    row, col = divmod(cell, SIZE)
    found = []
    if row > 0:
        found.append(cell - SIZE)
    if col > 0:
        found.append(cell - 1)
    if col < SIZE - 1:
        found.append(cell + 1)
    if row < SIZE - 1:
        found.append(cell + SIZE)
    return found


NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(tuple(neighbors(i)) for i in range(CELLS))


def rows_of(colors: bytearray, kinds: bytearray) -> list[list[str]]:
    """The board as 8 rows of 8 gem tokens, top row first."""
    return [[token(colors[i], kinds[i]) for i in row] for row in ROWS]


def read_rows(rows: object) -> tuple[bytearray, bytearray]:
    """A board from 8 rows, each a string of 8 one-letter gems (``"RGBYPOWR"``, ``@`` for a
    colour bomb) or a list of 8 gem tokens (``["R", "R-", "@", ...]``).

    Raises ValueError naming the first problem: the size, an unknown gem, or a line of 3
    already on the board.
    """
    if not isinstance(rows, list) or len(rows) != SIZE:
        size = f"{len(rows)} rows" if isinstance(rows, list) else type(rows).__name__
        raise ValueError(f"the board must be a list of {SIZE} rows, got {size}")
    colors = bytearray(CELLS)
    kinds = bytearray(CELLS)
    for r, row in enumerate(rows):
        if isinstance(row, str):
            cells: list[object] = list(row.upper())
        elif isinstance(row, list):
            cells = row
        else:
            raise ValueError(
                f"board row {r + 1} must be a string of {SIZE} gem letters or a list of "
                f"{SIZE} gems, got {type(row).__name__}"
            )
        if len(cells) != SIZE:
            raise ValueError(f"board row {r + 1} must have {SIZE} cells, got {len(cells)}")
        for c, text in enumerate(cells):
            gem = parse_token(text) if isinstance(text, str) else None
            if gem is None:
                raise ValueError(
                    f"board cell {CELL_NAMES[r * SIZE + c]} holds {text!r}, not a gem: use "
                    f"{' '.join(COLOR_LETTERS)}, a special such as R-, R| or R+, or @"
                )
            colors[r * SIZE + c], kinds[r * SIZE + c] = gem
    runs = find_runs(colors)
    if runs:
        cells_text = "-".join(CELL_NAMES[cell] for cell in runs[0][1][:: len(runs[0][1]) - 1])
        color = COLOR_LETTERS[colors[runs[0][1][0]]]
        raise ValueError(f"the board already has a line of {color} at {cells_text}")
    return colors, kinds


# -- lines -------------------------------------------------------------------------------
# Lines and legal swaps are found on the whole board at once. The board is packed into one
# integer, a byte a cell holding the cell's colour one-hot (bit c for colour c; 0 for a
# colour bomb or an empty cell, which match nothing). Shifted by k bytes, it is the board
# seen k cells on: the AND of a few such views has a nonzero byte exactly at the cells x
# where all the cells it looks at (x + k for each view) hold one colour. Adding 0x7f to
# every byte then sets a byte's top bit, its "flag", exactly when the byte is not 0.
ONE_HOT = bytes(1 << value if value < NUM_COLORS else 0 for value in range(256))
#: 0x80 on a colour bomb's byte, 0 elsewhere
BOMB_FLAG = bytes(0x80 if value == NO_COLOR else 0 for value in range(256))
LANE_BITS = 8
LANE_FLAG = LANE_BITS - 1
_FLAGS = int.from_bytes(b"\x80" * CELLS, "little")
_TO_FLAG = int.from_bytes(b"\x7f" * CELLS, "little")


def _cells_where(fits: Callable[[int, int], bool], byte: int = 0xFF) -> int:
    """A mask with ``byte`` on each cell whose row and column ``fits``."""
    return int.from_bytes(
        bytes(byte if fits(*divmod(cell, SIZE)) else 0 for cell in range(CELLS)), "little"
    )


#: cells by column: from the third on, up to the sixth, the seventh, from the second to
#: the seventh, up to the fifth
_FROM_C3 = _cells_where(lambda row, col: col >= 2)
_UP_TO_C5 = _cells_where(lambda row, col: col <= SIZE - 4)
_UP_TO_C6 = _cells_where(lambda row, col: col <= SIZE - 3)
_UP_TO_C7 = _cells_where(lambda row, col: col <= SIZE - 2)
_INNER_C = _cells_where(lambda row, col: 1 <= col <= SIZE - 2)
#: the flags of the cells that have a right-hand / a lower neighbour
_RIGHT_FLAGS = _cells_where(lambda row, col: col < SIZE - 1, 0x80)
_LOWER_FLAGS = _cells_where(lambda row, col: row < SIZE - 1, 0x80)


_NONZERO = re.compile(b"[^\x00]")
_FLAGGED_BLOCK = re.compile(b"[^\x00]+")
#: by cell, by number of cells past the first two: the line from that cell to the right
#: / downward (cut short at the board's edge)
_ACROSS_FROM = tuple(
    tuple(ROWS[cell // SIZE][cell % SIZE : cell % SIZE + extra + 2] for extra in range(SIZE))
    for cell in range(CELLS)
)
_DOWN_FROM = tuple(
    tuple(COLUMNS[cell % SIZE][cell // SIZE : cell // SIZE + extra + 2] for extra in range(SIZE))
    for cell in range(CELLS)
)


def find_runs(colors: bytearray) -> list[tuple[int, tuple[int, ...]]]:
    """Every line of 3+ same-coloured gems on the board.

    Returns ``(orientation, cells)`` pairs: the horizontal lines first, by row then
    column, then the vertical lines, by column then row; each line's cells in order
    (left to right, top to bottom). Colour bombs and empty cells never line up.
    """
    hot = int.from_bytes(colors.translate(ONE_HOT), "little")
    across = hot & hot >> 8 & hot >> 16 & _UP_TO_C6
    down = hot & hot >> 64 & hot >> 128
    if not across and not down:
        return []
    runs: list[tuple[int, tuple[int, ...]]] = []
    if across:
        # a byte a cell that starts three of a colour to the right: each block of such
        # cells in a row is one line, two cells longer than the block
        starts = ((across + _TO_FLAG) & _FLAGS).to_bytes(CELLS, "little")
        for block in _FLAGGED_BLOCK.finditer(starts):
            first, last = block.span()
            runs.append((HORIZONTAL, _ACROSS_FROM[first][last - first]))
    if down:
        down = (down + _TO_FLAG) & _FLAGS
        starts = down.to_bytes(CELLS, "little")
        found = []
        for first in _NONZERO.finditer(
            (down & ~(down << SIZE * LANE_BITS)).to_bytes(CELLS, "little")
        ):
            top = bottom = first.start()
            while starts[bottom + SIZE]:
                bottom += SIZE
            found.append((VERTICAL, _DOWN_FROM[top][(bottom - top) // SIZE + 1]))
        if len(found) > 1:
            found.sort(key=lambda run: (run[1][0] % SIZE, run[1][0]))
        runs += found
    return runs


def runs_through(colors: bytearray, cells: Iterable[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Every line of 3+ through one of ``cells``, in the order of :func:`find_runs`.

    Equal to :func:`find_runs` on a board whose lines all pass through ``cells`` (a still
    board with two gems just swapped), looking only along those cells' rows and columns.
    """
    across: list[tuple[int, ...]] = []
    down: list[tuple[int, ...]] = []
    for cell in cells:
        color = colors[cell]
        if color >= NUM_COLORS:
            continue
        row, col = divmod(cell, SIZE)
        first = last = col
        base = row * SIZE
        while first > 0 and colors[base + first - 1] == color:
            first -= 1
        while last < SIZE - 1 and colors[base + last + 1] == color:
            last += 1
        if last - first >= MIN_LINE - 1 and (line := ROWS[row][first : last + 1]) not in across:
            across.append(line)
        first = last = row
        while first > 0 and colors[cell - (row - first + 1) * SIZE] == color:
            first -= 1
        while last < SIZE - 1 and colors[cell + (last - row + 1) * SIZE] == color:
            last += 1
        if last - first >= MIN_LINE - 1 and (line := COLUMNS[col][first : last + 1]) not in down:
            down.append(line)
    across.sort()
    down.sort(key=lambda line: (line[0] % SIZE, line[0]))
    return [(HORIZONTAL, line) for line in across] + [(VERTICAL, line) for line in down]


def makes_line(colors: bytearray, cell: int) -> bool:
    """Whether the gem at ``cell`` ends a line of 3 with the two cells left or above it.

    Used while laying a board out from the top left, when only those cells are placed.
    """
    color = colors[cell]
    if color >= NUM_COLORS:
        return False
    row, col = divmod(cell, SIZE)
    if col >= MIN_LINE - 1 and colors[cell - 1] == color == colors[cell - 2]:
        return True
    return row >= MIN_LINE - 1 and colors[cell - SIZE] == color == colors[cell - 2 * SIZE]


# -- legal swaps -------------------------------------------------------------------------
#: a swap of neighbours ``(a, b)`` with ``a < b``
Swap = tuple[int, int]


def _swap_flags(colors: bytearray) -> tuple[int, int]:
    """The legal swaps as two masks of flags: on cell x for the swap of x with its
    right-hand neighbour, and for the swap of x with the one below.

    After the swap of x and x+1, x holds the colour of x+1 and lines up with two cells
    left of it, above it, around it or below it; x+1 holds the colour of x and lines up
    with two cells right of it, above it, around it or below it. The same for the swap of
    x and x+8, along rows. A view that looks past the top or bottom of the board sees 0;
    one that would wrap round to another row is masked to the columns where it does not.
    Any swap with a colour bomb is legal.
    """
    hot = int.from_bytes(colors.translate(ONE_HOT), "little")
    on1, on2, on8, on9, on16 = hot >> 8, hot >> 16, hot >> 64, hot >> 72, hot >> 128
    back1, back2, back8, back16 = hot << 8, hot << 16, hot << 64, hot << 128
    across = (
        on1 & (back1 & back2 & _FROM_C3 | back8 & (back16 | on8) | on8 & on16)
        | hot & (on2 & hot >> 24 & _UP_TO_C5 | hot << 56 & (hot << 120 | on9) | on9 & hot >> 136)
    ) & _UP_TO_C7
    down = on8 & (
        back8 & back16 | back1 & (back2 & _FROM_C3 | on1 & _INNER_C) | on1 & on2 & _UP_TO_C6
    ) | hot & (
        on16 & hot >> 192
        | hot >> 56 & (hot >> 48 & _FROM_C3 | on9 & _INNER_C)
        | on9 & hot >> 80 & _UP_TO_C6
    )
    across = (across + _TO_FLAG) & _FLAGS
    down = (down + _TO_FLAG) & _FLAGS
    if NO_COLOR in colors:
        bombs = int.from_bytes(colors.translate(BOMB_FLAG), "little")
        across |= (bombs | bombs >> 8) & _RIGHT_FLAGS
        down |= (bombs | bombs >> 64) & _LOWER_FLAGS
    return across, down


#: a swap's number: 2 x + 1 for the swap of cell x with its right-hand neighbour, 2 x + 2
#: with the one below; numbers in increasing order are the stable order of the board (None
#: for 0 and for the numbers of the cells with no such neighbour)
SWAP_OF_NUMBER: tuple[Swap | None, ...] = (
    None,
    *(
        pair
        for cell in range(CELLS)
        for pair in (
            (cell, cell + 1) if cell % SIZE < SIZE - 1 else None,
            (cell, cell + SIZE) if cell < CELLS - SIZE else None,
        )
    ),
)
#: the swaps' numbers where :func:`_swap_flags` puts their flags, the swaps down 64 bytes on
_NUMBERS = int.from_bytes(
    bytes(2 * cell + 1 for cell in range(CELLS)) + bytes(2 * cell + 2 for cell in range(CELLS)),
    "little",
)
_ZERO_BYTE = bytes(1)


def legal_swap_numbers(colors: bytearray) -> list[int]:
    """The numbers (see :data:`SWAP_OF_NUMBER`) of every swap that lines up 3+ or involves
    a colour bomb, in increasing order."""
    across, down = _swap_flags(colors)
    # each flag (0x80) made 0xff, then the swap's number in its place
    numbers = ((across | down << CELLS * LANE_BITS) >> LANE_FLAG) * 0xFF & _NUMBERS
    return sorted(numbers.to_bytes(2 * CELLS, "little").translate(None, _ZERO_BYTE))


def swaps_of(numbers: Iterable[int]) -> list[Swap]:
    """The swaps ``(a, b)``, ``a < b``, of these swap numbers, in their order."""
    return list(map(SWAP_OF_NUMBER.__getitem__, numbers))


def legal_swaps(colors: bytearray) -> list[Swap]:
    """Every swap that lines up 3+ or involves a colour bomb, as ``(a, b)`` with ``a < b``.

    In the stable order of the board: by the first cell, the swap to the right before
    the swap down.
    """
    return swaps_of(legal_swap_numbers(colors))


def swap_number(a: int, b: int) -> int:
    """The number of the swap of neighbours ``a < b``."""
    return 2 * a + (1 if b == a + 1 else 2)


def has_legal_swap(colors: bytearray) -> bool:
    across, down = _swap_flags(colors)
    return bool(across or down)


def swap_makes_line(colors: bytearray, a: int, b: int) -> bool:
    """Whether swapping the gems at neighbours ``a`` and ``b`` lines up 3 or more."""
    work = colors[:]
    work[a], work[b] = work[b], work[a]
    return bool(find_runs(work))


# -- falling and refilling ---------------------------------------------------------------
def collapse(colors: bytearray, kinds: bytearray, holes: list[int], rng: Rng) -> list[int]:
    """Let the gems fall into the ``holes`` (the cells left empty, in increasing order);
    drop new gems in on top.

    Columns are filled left to right, each from its lowest empty cell upward (the new
    gems are drawn in that order in one call). Returns the cells the new gems landed on,
    in that order. The walk visits only the cells from each column's lowest hole up.
    """
    gems = rng.below_each(NUM_COLORS, len(holes))
    gaps = set(holes)
    dropped: list[int] = []
    # a column's last hole in board order is its lowest
    lowest = dict(zip(map(COLUMN_OF.__getitem__, holes), holes, strict=True))
    for _, start in sorted(lowest.items()):
        write = read = start
        while read >= 0:
            if read not in gaps:
                colors[write] = colors[read]
                kinds[write] = kinds[read]
                write -= SIZE
            read -= SIZE
        while write >= 0:
            colors[write] = gems[len(dropped)]
            kinds[write] = PLAIN
            dropped.append(write)
            write -= SIZE
    return dropped


# -- whole boards ------------------------------------------------------------------------
#: each cell, and whether it has two cells left of it / above it
_DEALT_CELLS = tuple(
    (cell, cell % SIZE >= MIN_LINE - 1, cell >= (MIN_LINE - 1) * SIZE) for cell in range(CELLS)
)
#: the largest 64-bit number :meth:`Rng.below` takes for a colour (it draws again above)
_COLOR_LIMIT = (1 << 64) - (1 << 64) % NUM_COLORS


def deal(rng: Rng) -> tuple[bytearray, bytearray]:
    """A fresh random board of plain gems with no line and at least one legal swap.

    Cell by cell from the top left, each a colour drawn with ``rng.below``, drawn again
    while it would end a line with the two cells left of it or above it. The generator's
    numbers are taken in batches (:meth:`Rng.next_each`) of as many as cells remain, since
    each cell takes at least one: the same numbers and the same state after as ``below``
    one at a time.
    """
    while True:
        colors = bytearray(CELLS)
        numbers = rng.next_each(CELLS)
        used = 0
        for cell, has_left, has_above in _DEALT_CELLS:
            left = colors[cell - 1]
            if not has_left or colors[cell - 2] != left:
                left = NO_COLOR
            above = colors[cell - SIZE]
            if not has_above or colors[cell - 2 * SIZE] != above:
                above = NO_COLOR
            color = NO_COLOR
            while color in (NO_COLOR, left, above):
                if used == len(numbers):
                    numbers += rng.next_each(CELLS - cell)
                number = numbers[used]
                used += 1
                if number < _COLOR_LIMIT:
                    color = number % NUM_COLORS
            colors[cell] = color
        if has_legal_swap(colors):
            return colors, bytearray(CELLS)


def _lay_out(gems: list[tuple[int, int]]) -> tuple[bytearray, bytearray] | None:
    """Place ``gems`` from the top left, each cell taking the first remaining gem that makes
    no line there; None when some cell cannot be filled."""
    colors = bytearray(CELLS)
    kinds = bytearray(CELLS)
    for cell in range(CELLS):
        for pick in range(cell, CELLS):
            colors[cell] = gems[pick][0]
            if not makes_line(colors, cell):
                gems[cell], gems[pick] = gems[pick], gems[cell]
                kinds[cell] = gems[cell][1]
                break
        else:
            return None
    return colors, kinds


def reshuffle(colors: bytearray, kinds: bytearray, rng: Rng) -> tuple[bytearray, bytearray]:
    """The same gems (specials included) laid out anew with no line and a legal swap.

    Tries :data:`RESHUFFLE_TRIES` random orders; if none works (a board of too few
    colours), deals a fresh random board instead.
    """
    gems = list(zip(colors, kinds, strict=True))
    for _ in range(RESHUFFLE_TRIES):
        rng.shuffle(gems)
        laid = _lay_out(gems)
        if laid is not None and has_legal_swap(laid[0]):
            return laid
    return deal(rng)


def color_counts(colors: Sequence[int]) -> list[int]:
    """How many gems of each colour the board holds (colour bombs not counted)."""
    counts = [0] * NUM_COLORS
    for color in colors:
        if color < NUM_COLORS:
            counts[color] += 1
    return counts
