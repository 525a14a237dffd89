"""Gem Swap: the match-3 game of swapping gems into lines, cascades and specials."""

from playbench.core.game import FolderGame
from playbench.games.gemswap import commands, rules, spec, state, view
from playbench.games.gemswap.prompt import GemSwapSeat
from playbench.games.gemswap.state import SLUG


class GemSwap(FolderGame):
    """Gem Swap, a match-3 game on an 8x8 board.

    Description:
        Swap two neighbouring gems so that 3 or more of one colour line up in a row or
        column; they clear, the gems above fall and new ones drop in from the seeded
        generator, and new lines clear again in cascades. Matches of 4, L/T/+ shapes and
        straight 5s make line blasters, area bombs and colour bombs.

    Actions:
        ``{"command": text}`` with text ``swap C4 right`` (or ``up``/``down``/``left``),
        ``swap C4 D4``, ``hint``, ``moves``, ``select C4`` or ``deselect``. Legal
        actions are every accepted swap in the normal form ``swap A1 right`` /
        ``swap A1 down`` (board order, each pair once), then ``hint`` and ``moves``.

    Observation:
        ``board`` (8 rows of 8 gem tokens ``R``, ``R-``, ``R|``, ``R+``, ``@``),
        ``movesLeft``, ``movesMade``, ``score``, ``selected`` and ``gameOver``. The
        generator, and so every gem still to drop in, stays hidden.

    Scoring:
        10 a cleared gem; creating a line blaster / area bomb / colour bomb adds
        50 / 100 / 200, setting one off 50 / 80 / 150, two colour bombs 500; cascade
        step k counts k times. ``hint`` costs 50, even below a score of 50 (the score
        may go below 0). Progress is the score over 10,000, clamped to 0..1.

    Termination:
        After the 30th accepted swap.
    """

    slug = SLUG
    name = "Gem Swap"
    genre = "match-3"
    score_can_fall = True
    step_cap = 500
    bot = "playbench.bots.gemswap"
    seat = GemSwapSeat


GAME = GemSwap(state=state, rules=rules, view=view, commands=commands, spec=spec)
