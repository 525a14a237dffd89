"""What a language-model seat is told about Gem Swap: the play rules, short, one example
reply, the text board, and as moves the legal swaps only (``hint`` costs points and
``moves`` only counts them); a plan's later swaps may be any swap on the board."""

from __future__ import annotations

from typing import Any

from playbench.core.seat import SeatGuide
from playbench.games.gemswap.commands import NORMAL_SWAPS

RULES = """\
An 8x8 match-3 board. Columns are A-H left to right, rows 1-8 top to bottom (A1 top \
left; up is toward row 1). Gems: R red, G green, B blue, Y yellow, P purple, O orange, \
W white; specials R- R| (line blasters), R+ (area bomb), @ (colour bomb).
- Swap two neighbouring gems with "swap C4 right" (or up, down, left). A swap must \
line up 3 or more gems of one colour in a row or column; other swaps are refused and \
cost nothing. The legal moves listed are exactly the swaps that work now.
- Lined-up gems clear, the gems above fall, new gems drop in, and new lines clear again \
(cascades). Lines of 4 make a line blaster, L or T shapes an area bomb, 5 in a row a \
colour bomb; a cleared special blasts its row, column, square or colour.
- 30 swaps, then the game ends.
- Score: 10 a cleared gem, bonuses for specials, cascade step k counts k times."""


class GemSwapSeat(SeatGuide):
    def rules(self) -> str:
        return RULES

    def example(self) -> dict[str, Any]:
        return {"commands": ["swap C4 right"], "notes": "C4 right lines up three reds in row 4"}

    def moves(self, view: dict[str, Any]) -> list[Any]:
        return [command for command in view["commands"] if command.startswith("swap ")]

    def plan_moves(self, view: dict[str, Any]) -> list[Any]:
        return list(NORMAL_SWAPS)
