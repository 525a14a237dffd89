"""A screen of text fitted to a terminal window: the header, the board (its lines drawn
in colour, never wrapped), the footer and the latest messages, wrapped and cropped to the
window's rows and columns, or one line saying how large a terminal it needs. No curses:
the terminal door (:mod:`playbench.terminal`) draws what this returns."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

#: a board cropped to fit keeps at least this many of its rows
FEWEST_BOARD_ROWS = 7
#: a line of the screen and the colour name of each of its characters
Line = tuple[str, list[str | None]]


@dataclass(frozen=True, slots=True)
class Screen:
    """The parts of a screen before they are fitted to a window."""

    header: list[str]
    board: list[Line]
    footer: list[str]
    messages: list[str]
    #: the glyph a board too tall is cropped around ('' : keep its top)
    focus: str = ""


class TooSmall(Exception):
    """A screen cannot fit the window; carries the size it needs."""

    def __init__(self, rows: int, cols: int) -> None:
        super().__init__(f"needs {cols}x{rows}")
        self.rows = rows
        self.cols = cols


def fit(screen: Screen, rows: int | None, cols: int | None) -> list[Line]:
    """The screen in ``rows`` x ``cols`` (a terminal one larger each way: its last row is
    the prompt's, its last column unwritten): header, board, a blank line, footer, messages.

    Prose wraps to the width; board lines (coloured ones) never wrap, so the widest sets
    the least width. When the lines are too many, all but the newest message go first,
    then the blank line, the board's blank edge rows, the header, and board rows away
    from the focus glyph (down to :data:`FEWEST_BOARD_ROWS`). A window smaller
    than all that gets one line saying how large a terminal the screen needs."""
    if rows is None or cols is None:
        return [
            *plain(screen.header),
            *screen.board,
            ("", []),
            *plain(screen.footer),
            *plain(screen.messages),
        ]
    try:
        return _fitted(screen, rows, cols)
    except TooSmall as small:
        need = (
            f"This screen needs a terminal of at least {small.cols + 1} columns and "
            f"{small.rows + 1} rows; this one has {cols + 1} and {rows + 1}: make it larger."
        )
        return plain(_wrap([need], cols))[:rows]


def _fitted(screen: Screen, rows: int, cols: int) -> list[Line]:
    board_lines = [line for line, colors in screen.board if colors]
    widest = max((len(line) for line in board_lines), default=0)
    if widest > cols:
        raise TooSmall(rows, widest)
    board = [
        part
        for line, colors in screen.board
        for part in ([(line, colors)] if colors else plain(_wrap([line], cols)))
    ]
    footer = plain(_wrap(screen.footer, cols))
    messages = [plain(_wrap([m], cols)) for m in screen.messages if m]
    header = plain(_wrap(screen.header, cols))
    blank: list[Line] = [("", [])]
    newest = messages[-1:]

    def total(*parts: list[Any]) -> int:
        return sum(len(part) for part in parts)

    kept = list(messages)
    while kept and total(header, board, blank, footer, *kept) > rows and len(kept) > 1:
        kept.pop(0)
    if total(header, board, blank, footer, *kept) > rows:
        blank = []
    if total(header, board, blank, footer, *kept) > rows:
        room = rows - total(header, blank, footer, *kept)
        board = _crop(board, room, screen.focus, around_focus=False)
    if total(header, board, blank, footer, *kept) > rows:
        header = []
    spare = rows - total(header, blank, footer, *newest)
    if len(board) > spare:
        if _rows(board) - (len(board) - spare) < FEWEST_BOARD_ROWS:
            least = total(footer, *newest) + FEWEST_BOARD_ROWS + len(board) - _rows(board)
            raise TooSmall(max(least, rows + 1), max(widest, cols))
        board = _crop(board, spare, screen.focus)
        kept = newest
    return [*header, *board, *blank, *footer, *[line for m in kept for line in m]]


def _rows(board: list[Line]) -> int:
    return sum(1 for _, colors in board if colors)


def _crop(board: list[Line], room: int, focus: str, around_focus: bool = True) -> list[Line]:
    """The board in ``room`` lines: its prose kept, its rows cut from the blank edges, then
    (``around_focus``) around the row that holds ``focus``."""
    rows = [i for i, (_, colors) in enumerate(board) if colors]
    keep = set(rows)
    excess = len(board) - room
    for end in (rows, rows[::-1]):
        for i in end:
            if excess <= 0 or board[i][0].strip():
                break
            keep.discard(i)
            excess -= 1
    shown = [i for i in rows if i in keep]
    if excess > 0 and around_focus:
        at = next((k for k, i in enumerate(shown) if focus and focus in board[i][0]), 0)
        size = len(shown) - excess
        start = min(max(0, at - size // 2), len(shown) - size)
        keep = set(shown[start : start + size])
    return [line for i, line in enumerate(board) if i in keep or i not in rows]


def plain(lines: list[str]) -> list[Line]:
    return [(line, []) for line in lines]


def _wrap(lines: list[str], cols: int) -> list[str]:
    return [part for line in lines for part in (textwrap.wrap(line, cols) or [""])]


def fit_text(lines: list[str], rows: int | None, cols: int | None) -> list[Line]:
    """A panel's lines, wrapped to the width and cut to the height (its last line, how to
    close it, kept)."""
    if rows is None or cols is None:
        return plain(lines)
    wrapped = _wrap(lines, cols)
    if len(wrapped) > rows:
        wrapped = [*wrapped[: rows - 1], wrapped[-1]]
    return plain(wrapped)
