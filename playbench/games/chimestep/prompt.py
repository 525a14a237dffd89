"""What a language-model seat is told about Chimestep: the play rules, short, one example
reply, the text board, and as moves the legal commands with longer ticks beside ``tick``
and without the hops off the rim (the second such hop in a row costs a life); a plan's
later moves may be any hop, tick, ``toll`` or ``start``."""

from __future__ import annotations

from typing import Any

from playbench.core.seat import SeatGuide
from playbench.games.chimestep.board import DELTAS, DIRECTIONS, on_pyramid

RULES = """\
A real-time pyramid of 28 tiles in 7 tiers (tier 0 is the apex, tier 6 the base of 7 \
tiles). The chick @ hops along the diagonals; every landing rings its tile one level \
up to the stage's target. Ring every tile to the target to clear the stage; stages \
never end, the run ends when the last of 3 lives is lost.
- Time moves only when you tick: "tick" is one tick, "tick 4" four (up to 30). Send \
"start" first; the stage intro then lasts 24 ticks.
- "hop upLeft", "hop upRight", "hop downLeft", "hop downRight" (or ul ur dl dr). A hop \
resolves at once when the hop cooldown is 0 and sets it to 4 ticks; sent earlier it \
waits for the cooldown.
- Hush enemies (T tumble, S stalker, M muffle; lower case = still dormant) cost a life \
when they share your tile. "toll" spends a charge and scatters the awake Hush on and \
next to your tile.
- Hopping off the rim only teeters; the same hop again leaps off and costs a life, so \
the moves listed leave those hops out.
- Score: 10 a ringing landing, 25 more when the tile reaches the target, a chain bonus, \
150 a scattered Hush, and a stage-clear bonus."""
#: the longer ticks offered beside a single one: a hop's cooldown, and an intro's wait
LONG_TICKS = ("tick 4", "tick 24")


class ChimestepSeat(SeatGuide):
    wait_move = "tick"

    def rules(self) -> str:
        return RULES

    def example(self) -> dict[str, Any]:
        return {"commands": ["hop downLeft", "tick 4"], "notes": "ring tier 1, then the left edge"}

    def moves(self, view: dict[str, Any]) -> list[Any]:
        where = view["observation"]["position"]
        moves: list[Any] = []
        for command in view["commands"]:
            if command.startswith("hop "):
                d_row, d_col = DELTAS[DIRECTIONS.index(command.removeprefix("hop "))]
                if not on_pyramid(where["row"] + d_row, where["col"] + d_col):
                    continue
            moves.append(command)
            if command == "tick":
                moves.extend(LONG_TICKS)
        return moves

    def plan_moves(self, view: dict[str, Any]) -> list[Any]:
        return [*(f"hop {name}" for name in DIRECTIONS), "tick", *LONG_TICKS, "toll", "start"]
