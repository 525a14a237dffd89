"""What a player sees of a Gem Swap state: the JSON observation and the text board.

Neither shows the generator, so nothing tells which gems will drop in next.
"""

from __future__ import annotations

from playbench.core.game import JSON
from playbench.games.gemswap.board import CELL_NAMES, COLUMN_LETTERS, ROWS, rows_of, token
from playbench.games.gemswap.rules import best_swap
from playbench.games.gemswap.state import MOVES_PER_GAME, GemState

#: width of one cell in the text board: the longest gem token (``R-``)
CELL_WIDTH = 2


def observe(state: GemState) -> JSON:
    return {
        "board": rows_of(state.colors, state.kinds),
        "movesLeft": MOVES_PER_GAME - state.moves_made,
        "movesMade": state.moves_made,
        "score": state.score,
        "selected": None if state.selected is None else CELL_NAMES[state.selected],
        "gameOver": state.over,
        "hint": hint_of(state),
    }


def hint_of(state: GemState) -> JSON | None:
    """The answer of the hint bought on this board (``{"swap", "gems"}``), or None when
    none stands (none bought since the last swap)."""
    if not state.hinted:
        return None
    swap, gems = best_swap(state)
    return {"swap": swap, "gems": gems}


def render(state: GemState) -> str:
    """The board with column letters on top and row numbers on the left, then the status
    (and the selected cell, and the end, when there are)::

           A  B  C  D  E  F  G  H
         1 R  G  R  O  Y  W  W  Y
         2 B  P  R- B  G  @  Y  G
        ...
         8 G  G  R  G  B  B  W  G
        score 0   moves 0/30 (30 left)
        selected C4
    """
    colors, kinds = state.colors, state.kinds
    header = "   " + " ".join(letter.ljust(CELL_WIDTH) for letter in COLUMN_LETTERS)
    lines = [header.rstrip()]
    for number, row in enumerate(ROWS, start=1):
        gems = " ".join(token(colors[i], kinds[i]).ljust(CELL_WIDTH) for i in row)
        lines.append(f"{number:>2} {gems}".rstrip())
    status = (
        f"score {state.score}   moves {state.moves_made}/{MOVES_PER_GAME} "
        f"({MOVES_PER_GAME - state.moves_made} left)"
    )
    lines.append(status)
    if state.selected is not None:
        lines.append(f"selected {CELL_NAMES[state.selected]}")
    hint = hint_of(state)
    if hint is not None:
        lines.append(f"hint: {hint['swap']} lines up {hint['gems']} gems")
    if state.over:
        lines.append(f"game over: final score {state.score}")
    return "\n".join(lines)


#: the score that counts as a whole game's progress
PROGRESS_SCORE = 10_000


def progress(state: GemState) -> float:
    """The score over 10,000, between 0 and 1.

    Every run has the same 30 swaps, so only the points tell how well they were played:
    a better run scores more and shows more progress. 10,000 is above what strong play
    reaches (a search bot's runs score about 6,000), so 1 means an exceptional run; a
    score below 0 (hints bought before any points) counts as 0.
    """
    return min(1.0, max(0, state.score) / PROGRESS_SCORE)
