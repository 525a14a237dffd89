"""The text grammar of Gem Swap: ``swap C4 right``, ``swap C4 D4``, ``hint``, ``moves``,
``select C4``, ``deselect``; case-insensitive, extra spaces allowed.

Every command has one normal form, which is what ``parse_command`` puts in the action:
a swap is always written from its upper or left cell, ``swap C4 right`` or
``swap C4 down`` (so ``swap D4 left`` and ``swap C4 D4`` both become ``swap C4 right``).
"""

from __future__ import annotations

from typing import NamedTuple

from playbench.core.errors import CommandError
from playbench.core.game import Action
from playbench.games.gemswap.board import CELL_INDEX, CELL_NAMES, CELLS, SIZE

SWAP = "swap"
HINT = "hint"
MOVES = "moves"
SELECT = "select"
DESELECT = "deselect"
VERBS = (SWAP, HINT, MOVES, SELECT, DESELECT)

#: direction word -> (row step, column step)
DIRECTIONS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
DIRECTION_NAMES = "up, down, left, right"


class Parsed(NamedTuple):
    """A command, checked: a swap holds its two cells in board order (``a < b``)."""

    verb: str
    a: int = -1
    b: int = -1

    @property
    def text(self) -> str:
        if self.verb == SWAP:
            direction = "right" if self.b == self.a + 1 else "down"
            return f"{SWAP} {CELL_NAMES[self.a]} {direction}"
        if self.verb == SELECT:
            return f"{SELECT} {CELL_NAMES[self.a]}"
        return self.verb


def _normal_swaps() -> tuple[dict[str, Parsed], dict[tuple[int, int], str]]:
    """Every swap of neighbours in normal form: by text, and the text by cell pair."""
    by_text: dict[str, Parsed] = {}
    by_pair: dict[tuple[int, int], str] = {}
    for cell in range(CELLS):
        row, col = divmod(cell, SIZE)
        for other, fits in ((cell + 1, col < SIZE - 1), (cell + SIZE, row < SIZE - 1)):
            if fits:
                parsed = Parsed(SWAP, cell, other)
                by_text[parsed.text] = parsed
                by_pair[cell, other] = parsed.text
    return by_text, by_pair


#: every normal-form swap, for a lookup without parsing, both ways
NORMAL_SWAPS, SWAP_TEXTS = _normal_swaps()


def swap_text(a: int, b: int) -> str:
    """The normal form of the swap of neighbours ``a < b``."""
    return SWAP_TEXTS[a, b]


def parse_action(action: object) -> Parsed:
    """Check a JSON action, ``{"command": text}``. Raises :class:`CommandError`."""
    if not isinstance(action, dict):
        raise CommandError(
            f'an action is an object like {{"command": "swap C4 right"}}, '
            f"got {type(action).__name__}"
        )
    if len(action) != 1 or "command" not in action:
        raise CommandError(
            f'an action has exactly one key, "command"; got {sorted(map(str, action))}'
        )
    return parse(action["command"])


def parse_command(text: object) -> Action:
    """The action of a command line, its text in normal form."""
    return {"command": parse(text).text}


def command_text(action: object) -> str:
    """The command line of an action, in normal form: ``parse_command`` inverts it."""
    return parse_action(action).text


def parse(text: object) -> Parsed:
    """Check a command line. Raises :class:`CommandError` saying what is wrong."""
    if not isinstance(text, str):
        raise CommandError(f"a command must be text, got {type(text).__name__}")
    known = NORMAL_SWAPS.get(text)
    if known is not None:
        return known
    words = text.lower().split()
    if not words:
        raise CommandError(f"empty command; commands: {', '.join(VERBS)}")
    verb, args = words[0], words[1:]
    if verb not in VERBS:
        raise CommandError(f"unknown command {words[0]!r}; commands: {', '.join(VERBS)}")
    if verb == SWAP:
        return _parse_swap(args)
    if verb == SELECT:
        if len(args) != 1:
            raise CommandError("select takes one cell, like 'select C4'")
        return Parsed(SELECT, _cell(args[0]))
    if args:
        raise CommandError(f"{verb} takes nothing after it, got {' '.join(args)!r}")
    return Parsed(verb)


def _parse_swap(args: list[str]) -> Parsed:
    if len(args) != 2:
        raise CommandError(
            "swap takes a cell and a direction or a second cell, like 'swap C4 right' "
            "or 'swap C4 D4'"
        )
    first = _cell(args[0])
    name = CELL_NAMES[first]
    if args[1] in DIRECTIONS:
        dr, dc = DIRECTIONS[args[1]]
        row, col = divmod(first, SIZE)
        row, col = row + dr, col + dc
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            raise CommandError(f"{name} has no neighbour {args[1]}: it is on the board's edge")
        second = row * SIZE + col
    elif args[1].upper() in CELL_INDEX:
        second = CELL_INDEX[args[1].upper()]
        row, col = divmod(first, SIZE)
        other_row, other_col = divmod(second, SIZE)
        if abs(row - other_row) + abs(col - other_col) != 1:
            raise CommandError(
                f"{name} and {CELL_NAMES[second]} are not neighbours: a swap needs two "
                "gems sharing a side"
            )
    else:
        raise CommandError(
            f"{args[1]!r} is neither a direction ({DIRECTION_NAMES}) nor a cell (A1-H8)"
        )
    return Parsed(SWAP, min(first, second), max(first, second))


def _cell(word: str) -> int:
    cell = CELL_INDEX.get(word.upper())
    if cell is None:
        raise CommandError(
            f"{word!r} is not a cell: a column A-H then a row 1-8 (row 1 at the top), like C4"
        )
    return cell
