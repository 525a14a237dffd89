"""What a language-model seat is told about Delvewick: the play rules, short, and one
example reply; the board is the text render and the moves its legal commands (a plan's
later moves may be any of the five commands)."""

from __future__ import annotations

from typing import Any

from playbench.core.seat import SeatGuide

#: every command of the grammar: a plan may hold any of them after its first
COMMANDS = ("up", "down", "left", "right", "wait")

RULES = """\
You are the mole M digging through an underground level framed by bedrock #. Each \
level has a gem quota: collect that many gems * and the exit opens (X closed, E open); \
step onto E to clear the level. There are 8 levels.
- Moving into soil % digs it; into a gem collects it; into empty . or E enters. You \
can push a boulder O sideways into an empty cell. Bedrock, X and boulders above or \
below you stop you.
- After every move gravity acts: boulders O, gems * and geodes G fall into empty cells \
below and roll off other rounded objects. A boulder that is falling (shown o) and \
lands on you ends the run. One resting on your head stays put while you stay.
- Every move (wait too) costs 1 oil; at 0 oil the run ends. A refused move costs \
nothing.
- Score: +25 a gem, a chain bonus for gems collected within 4 ticks of each other, \
+100 and +5 per oil left for each level cleared, +250 for the last.
Commands: up, down, left, right, wait."""


class DelvewickSeat(SeatGuide):
    wait_move = "wait"

    def rules(self) -> str:
        return RULES

    def example(self) -> dict[str, Any]:
        return {"commands": ["right", "right", "down"], "notes": "gem two right, then down"}

    def plan_moves(self, view: dict[str, Any]) -> list[Any]:
        return list(COMMANDS)
