"""The Gem Swap board: cells, gems, lines, legal swaps, falling, refilling, reshuffling.

The board is two flat ``bytearray`` of 64 cells in row-major order (cell 0 is ``A1`` at
the top left, cell 63 is ``H8``): ``colors`` holds each gem's colour (0-6, or
:data:`NO_COLOR` for a colour bomb) and ``kinds`` what kind of gem it is. Both copy in a
fraction of a microsecond. Functions here take the two arrays and change them in place
where their names say so; the rules copy a state's arrays before calling them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from playbench.core.rng import Rng

SIZE = 8
CELLS = SIZE * SIZE
COLUMN_LETTERS = "ABCDEFGH"
#: gem colours in their fixed order; ties between colours are broken in this order
COLOR_LETTERS = "RGBYPOW"
NUM_COLORS = len(COLOR_LETTERS)
#: the "colour" of a colour bomb: matches nothing
NO_COLOR = NUM_COLORS
#: a cleared cell waiting to be filled (only while a step resolves)
EMPTY = 255
_EMPTY_BYTE = bytes([EMPTY])
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
# Lines are found on the whole board at once: the board packed into one integer, a byte a
# cell, and each byte's top bit used as that cell's flag in a "lane mask".
LANE_BITS = 8
LANE_FLAG = LANE_BITS - 1
_LOW_SEVEN = int.from_bytes(b"\x7f" * CELLS, "little")
_LANE_FLAGS = int.from_bytes(b"\x80" * CELLS, "little")
#: added to each cell's low seven bits, sets its flag exactly when the byte is not a gem
#: colour (a colour bomb, or an empty cell's 255 whose low bits are 127)
_NOT_A_GEM = int.from_bytes(bytes([0x80 - NUM_COLORS]) * CELLS, "little")


def _lanes(cells: Iterable[int]) -> int:
    """The lane mask with the flag of each of ``cells``."""
    mask = 0
    for cell in cells:
        mask |= 1 << (cell * LANE_BITS + LANE_FLAG)
    return mask


#: the cells a horizontal / vertical line of 3 can start on
_ROW_STARTS = _lanes(c for c in range(CELLS) if c % SIZE <= SIZE - MIN_LINE)
_COLUMN_STARTS = _lanes(c for c in range(CELLS) if c // SIZE <= SIZE - MIN_LINE)


def _same_as(packed: int, same: dict[int, int], offsets: Iterable[int], still: bool) -> None:
    """Put in ``same``, for each offset k, the lane mask of the cells x whose byte equals
    the byte at ``x + k`` (meaningless where ``x + k`` is off the board: callers mask
    those out).

    On a ``still`` board every byte is below 8 (a colour or a colour bomb), so two bytes'
    difference is below 8 and adding 127 sets the flag exactly when it is not 0; a board
    with empty cells needs the low seven bits and the top bit looked at apart.
    """
    for offset in offsets:
        other = packed >> (offset * LANE_BITS) if offset > 0 else packed << (-offset * LANE_BITS)
        diff = packed ^ other
        if still:
            same[offset] = (diff + _LOW_SEVEN) & _LANE_FLAGS ^ _LANE_FLAGS
        else:
            same[offset] = ~(((diff & _LOW_SEVEN) + _LOW_SEVEN) | diff) & _LANE_FLAGS


def _flagged_cells(mask: int) -> list[int]:
    """The cells whose flag is set in a lane mask, lowest first."""
    cells = []
    while mask:
        lowest = mask & -mask
        cells.append(lowest.bit_length() // LANE_BITS - 1)
        mask ^= lowest
    return cells


#: the offsets of the cells of a line of 3 from its first cell
_LINE_OFFSETS = (1, 2, SIZE, 2 * SIZE)


def find_runs(
    colors: bytearray, same: dict[int, int] | None = None
) -> list[tuple[int, tuple[int, ...]]]:
    """Every line of 3+ same-coloured gems on the board.

    Returns ``(orientation, cells)`` pairs: the horizontal lines first, by row then
    column, then the vertical lines, by column then row; each line's cells in order
    (left to right, top to bottom). Colour bombs and empty cells never line up.
    ``same``, when given, collects the board's lane masks by offset, so that
    :func:`legal_swaps` of the same board need not compute them again.
    """
    packed = int.from_bytes(colors, "little")
    if same is None:
        same = {}
    still = EMPTY not in colors
    _same_as(packed, same, _LINE_OFFSETS, still)
    if still:
        gems = (packed + _NOT_A_GEM) & _LANE_FLAGS ^ _LANE_FLAGS
    else:
        gems = ~((packed & _LOW_SEVEN) + _NOT_A_GEM) & _LANE_FLAGS
    across = _ROW_STARTS & gems & same[1] & same[2]
    down = _COLUMN_STARTS & gems & same[SIZE] & same[2 * SIZE]
    if not across and not down:
        return []
    runs: list[tuple[int, tuple[int, ...]]] = []
    lane, column_lane = 1 << LANE_BITS, 1 << (SIZE * LANE_BITS)
    for start in _flagged_cells(across & ~(across << LANE_BITS)):
        flag, length = 1 << (start * LANE_BITS + LANE_FLAG), MIN_LINE
        while across & (flag * lane):
            flag, length = flag * lane, length + 1
        row, col = divmod(start, SIZE)
        runs.append((HORIZONTAL, ROWS[row][col : col + length]))
    starts = _flagged_cells(down & ~(down << (SIZE * LANE_BITS)))
    for start in sorted(starts, key=lambda cell: (cell % SIZE, cell)):
        flag, length = 1 << (start * LANE_BITS + LANE_FLAG), MIN_LINE
        while down & (flag * column_lane):
            flag, length = flag * column_lane, length + 1
        row, col = divmod(start, SIZE)
        runs.append((VERTICAL, COLUMNS[col][row : row + length]))
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
#: a pattern move: (the swap, the cell whose gem must match)
Move = tuple[Swap, int]


def _swap_patterns() -> tuple[tuple[int, tuple[tuple[Move, ...] | None, ...]], ...]:
    """Where two same-coloured gems are one swap away from a line.

    For each offset between two cells of a line (1 and 2 along a row, 8 and 16 down a
    column), a table by first cell ``x``: None where ``x`` and ``x + offset`` are not on
    one line, else the moves that complete the line when both gems share a colour: a gem
    of that colour at ``source`` swapped into the third cell of the line.
    """

    def at(row: int, col: int) -> int | None:
        return row * SIZE + col if 0 <= row < SIZE and 0 <= col < SIZE else None

    def move(target: int, source: int) -> Move:
        return (min(target, source), max(target, source)), source

    tables = []
    for dr, dc in ((0, 1), (1, 0)):
        pr, pc = dc, dr
        adjacent: list[tuple[Move, ...] | None] = [None] * CELLS
        gapped: list[tuple[Move, ...] | None] = [None] * CELLS
        for row in range(SIZE):
            for col in range(SIZE):
                x = row * SIZE + col
                # two in a row: complete either end from its sides or from beyond it
                if at(row + dr, col + dc) is not None:
                    moves = []
                    for end, step in ((2, 1), (-1, -1)):
                        er, ec = row + end * dr, col + end * dc
                        target = at(er, ec)
                        if target is None:
                            continue
                        sources = (
                            at(er + pr, ec + pc),
                            at(er - pr, ec - pc),
                            at(er + step * dr, ec + step * dc),
                        )
                        moves += [move(target, s) for s in sources if s is not None]
                    adjacent[x] = tuple(moves)
                # two with a gap: fill the gap from either side
                if at(row + 2 * dr, col + 2 * dc) is not None:
                    gr, gc = row + dr, col + dc
                    sources = (at(gr + pr, gc + pc), at(gr - pr, gc - pc))
                    gapped[x] = tuple(move(gr * SIZE + gc, s) for s in sources if s is not None)
        step_size = dr * SIZE + dc
        tables += [(step_size, tuple(adjacent)), (2 * step_size, tuple(gapped))]
    return tuple(tables)


SWAP_PATTERNS = _swap_patterns()

# The legal swaps are found on the whole board at once, with the lane masks of the lines.


def _move_masks() -> tuple[tuple[int, ...], tuple[tuple[int, int, int, int, int], ...]]:
    """:data:`SWAP_PATTERNS` regrouped by shape: ``(pair offset, source offset, lane mask
    of the cells x where that shape fits on the board, direction, shift)``, offsets
    relative to x. The direction is :data:`HORIZONTAL` for a swap with the right-hand
    neighbour and :data:`VERTICAL` with the one below; the shift (in bits) moves x's flag
    onto the flag of the swap's first cell. Returns the distinct offsets to compare and
    the shapes."""
    shapes: dict[tuple[int, int, int], int] = {}
    for offset, table in SWAP_PATTERNS:
        for x, moves in enumerate(table):
            for (a, b), source in moves or ():
                target = a if source == b else b
                key = (offset, source - x, target - x)
                shapes[key] = shapes.get(key, 0) | 1 << (x * LANE_BITS + LANE_FLAG)
    offsets = sorted({k[0] for k in shapes} | {k[1] for k in shapes})
    regrouped = []
    for (pair, source, target), fits in sorted(shapes.items()):
        first, second = sorted((source, target))
        direction = HORIZONTAL if second - first == 1 else VERTICAL
        regrouped.append((pair, source, fits, direction, first * LANE_BITS))
    return tuple(offsets), tuple(regrouped)


SAME_OFFSETS, MOVE_SHAPES = _move_masks()
#: a negative offset -k whose lanes are those of k moved k cells on (x and x - k hold the
#: same colour exactly when x - k and x do); the other offsets are computed
_SAME_MIRRORED = tuple(k for k in SAME_OFFSETS if k < 0 and -k in SAME_OFFSETS)
_SAME_COMPUTED = tuple(k for k in SAME_OFFSETS if k not in _SAME_MIRRORED)
#: :data:`MOVE_SHAPES` split by direction and by which way their flags move: for each,
#: ``(pair offset, source offset, fits, shift)`` with a shift of 0 or more bits
_SHAPES_BY_WAY = tuple(
    tuple(
        (pair, source, fits, abs(shift))
        for pair, source, fits, direction, shift in MOVE_SHAPES
        if direction == way and (shift >= 0) == onward
    )
    for way in (HORIZONTAL, VERTICAL)
    for onward in (True, False)
)


_NONZERO = re.compile(b"[^\x00]")
#: by cell, by code (bit 0: the swap to the right, bit 1: the swap down): its swaps
_SWAPS_OF_CODE = tuple(
    ((), ((cell, cell + 1),), ((cell, cell + SIZE),), ((cell, cell + 1), (cell, cell + SIZE)))
    for cell in range(CELLS)
)


def legal_swaps(colors: bytearray, same: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """Every swap that lines up 3+ or involves a colour bomb, as ``(a, b)`` with ``a < b``.

    In the stable order of the board: by the first cell, the swap to the right before
    the swap down. A shape whose three gems are colour bombs counts too: it is a swap
    with a colour bomb. ``same`` holds lane masks of this board already computed (see
    :func:`find_runs`); it is filled in with the others.
    """
    packed = int.from_bytes(colors, "little")
    if same is None:
        same = {}
    missing = [offset for offset in _SAME_COMPUTED if offset not in same]
    _same_as(packed, same, missing, EMPTY not in colors)
    for offset in _SAME_MIRRORED:
        same[offset] = same[-offset] << (-offset * LANE_BITS)
    across_on, across_back, down_on, down_back = _SHAPES_BY_WAY
    across = down = 0
    for pair, source, fits, shift in across_on:
        across |= (fits & same[pair] & same[source]) << shift
    for pair, source, fits, shift in across_back:
        across |= (fits & same[pair] & same[source]) >> shift
    for pair, source, fits, shift in down_on:
        down |= (fits & same[pair] & same[source]) << shift
    for pair, source, fits, shift in down_back:
        down |= (fits & same[pair] & same[source]) >> shift
    starts = [across, down]
    if NO_COLOR in colors:
        _add_color_bomb_swaps(colors, starts)
    across, down = starts
    # a byte a cell: bit 0 for the swap to the right, bit 1 for the swap down
    codes = ((across >> LANE_FLAG) | (down >> (LANE_FLAG - 1))).to_bytes(CELLS, "little")
    swaps: list[tuple[int, int]] = []
    for found in _NONZERO.finditer(codes):
        cell = found.start()
        swaps += _SWAPS_OF_CODE[cell][codes[cell]]
    return swaps


def _add_color_bomb_swaps(colors: bytearray, starts: list[int]) -> None:
    """Flag every swap of a colour bomb with a neighbour in ``starts`` (across, down)."""
    for cell in range(CELLS):
        if colors[cell] == NO_COLOR:
            for other in NEIGHBORS[cell]:
                first = min(cell, other)
                direction = HORIZONTAL if abs(other - cell) == 1 else VERTICAL
                starts[direction] |= 1 << (first * LANE_BITS + LANE_FLAG)


def has_legal_swap(colors: bytearray) -> bool:
    return bool(legal_swaps(colors))


def swap_makes_line(colors: bytearray, a: int, b: int) -> bool:
    """Whether swapping the gems at neighbours ``a`` and ``b`` lines up 3 or more."""
    work = colors[:]
    work[a], work[b] = work[b], work[a]
    return bool(find_runs(work))


# -- falling and refilling ---------------------------------------------------------------
def collapse(colors: bytearray, kinds: bytearray, columns: Iterable[int], rng: Rng) -> list[int]:
    """Let the gems of ``columns`` fall onto the empty cells; drop new gems in on top.

    ``columns`` must name every column with an empty cell. Columns are filled left to
    right, each from its lowest empty cell upward (the new gems are drawn in that order
    in one call). Returns the cells the new gems landed on, in that order.
    """
    dropped: list[int] = []
    new = rng.below_each(NUM_COLORS, colors.count(EMPTY))
    for col in columns:
        column = colors[col::SIZE]
        kept = column.translate(None, _EMPTY_BYTE)
        missing = SIZE - len(kept)
        if not missing:
            continue
        column_kinds = kinds[col::SIZE]
        if any(column_kinds):
            kept_kinds = bytes(k for c, k in zip(column, column_kinds, strict=True) if c != EMPTY)
            kinds[col::SIZE] = bytes(missing) + kept_kinds
        fallen = new[len(dropped) : len(dropped) + missing]
        fallen.reverse()
        colors[col::SIZE] = bytes(fallen) + kept
        dropped += range(col + (missing - 1) * SIZE, col - 1, -SIZE)
    return dropped


# -- whole boards ------------------------------------------------------------------------
def deal(rng: Rng) -> tuple[bytearray, bytearray]:
    """A fresh random board of plain gems with no line and at least one legal swap."""
    below = rng.below
    while True:
        colors = bytearray(CELLS)
        for cell in range(CELLS):
            colors[cell] = below(NUM_COLORS)
            while makes_line(colors, cell):
                colors[cell] = below(NUM_COLORS)
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
