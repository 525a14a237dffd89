"""What a language-model seat is told about Cogcrawl: the play rules, short, one example
reply, a compact screen made from the observation (messages, the explored part of the
map, status, pack, monsters, what the last reply did), and as moves the legal action
objects of the reply, with a travel to the down stairs once they are seen and without
``up`` on level 1 (which leaves the dungeon and ends the run). A plan's later actions may
be any action of the grammar at this board: a move, kick or chat in any direction, a
travel to any seen cell, each pack letter with each item verb, and the verbs without
arguments (``up`` only below level 1)."""

from __future__ import annotations

import json
from typing import Any

from playbench.core.seat import ACTIONS, SeatGuide
from playbench.games.cogcrawl.glyphs import STAIRS_DOWN
from playbench.games.cogcrawl.protocol import (
    DIR_VERBS,
    DIRECTIONS,
    DOWN,
    ITEM_VERBS,
    PICKUP,
    RAW_KEY,
    SEARCH,
    TRAVEL,
    UP,
    WAIT,
)

RULES = """\
A dungeon of 10 levels; the Cogheart lies on level 10. You are the cog @. Score comes \
from going deeper, gold, kills and the Cogheart.
- Each turn reply with up to 10 actions, run in order; the queue stops when one fails, \
you are hit or a new monster comes into view.
- Actions: {"do": "move", "dir": d} with d one of n s e w ne nw se sw (y grows \
downwards: n is up the screen); moving into a monster attacks it. {"do": "travel", \
"x": X, "y": Y} walks to a seen cell (up to 40 steps). {"do": "down"} on > goes one \
level deeper. {"do": "pickup"}, {"do": "search"}, {"do": "wait"}, {"do": "eat", \
"item": letter}, {"do": "quaff", "item": letter}, {"do": "wield", "item": letter}, \
{"do": "wear", "item": letter}, {"do": "kick", "dir": d} (opens locked doors), \
{"do": "chat", "dir": d}.
- Map: | - walls, + closed door, ' open door, # corridor, . floor, < up stairs, \
> down stairs, } lava, $ gold, % food, ! potion, ) weapon, [ armour, letters are \
monsters. Unseen cells are blank.
- {"do": "up"} on the < of level 1 leaves the dungeon and ends the run: it is never \
among the moves listed. Eat when Hungry; low HP: quaff a potion or walk away."""
DIRECTION_WORDS = "n s e w ne nw se sw"


class CogcrawlSeat(SeatGuide):
    reply_key = ACTIONS
    raw_key = RAW_KEY
    wait_move = "wait"
    own_fallback = "bot"

    def rules(self) -> str:
        return RULES

    def example(self) -> dict[str, Any]:
        return {
            "actions": [{"do": "travel", "x": 20, "y": 5}, {"do": "down"}],
            "notes": "down stairs at 20,5",
        }

    def board(self, view: dict[str, Any]) -> str:
        seen = view["observation"]
        rows = [row.rstrip() for row in seen["map"]]
        shown = [y for y, row in enumerate(rows) if row]
        top, bottom = (shown[0], shown[-1]) if shown else (0, 0)
        status = seen["status"]
        where = seen["position"]
        lines = [f"Messages: {' '.join(seen['messages'])}"]
        lines.append(f"Map rows y={top} to y={bottom}; x counts from 0 at the left edge:")
        lines.extend(rows[top : bottom + 1])
        lines.append(
            f"You @ at x={where['x']} y={where['y']}. Dlvl {status['dl']} HP "
            f"{status['hp']}/{status['max_hp']} AC {status['ac']} Xp {status['xl']} "
            f"gold {status['gold']} {status['hunger']}. Turn {seen['turn']}."
        )
        pack = ", ".join(_pack_entry(entry) for entry in seen["pack"])
        lines.append(f"Pack: {pack or 'empty'}")
        if seen["monsters"]:
            monsters = ", ".join(
                f"{m['glyph']} {m['name']} at x={m['x']} y={m['y']}"
                + (" (peaceful)" if m.get("peaceful") else "")
                for m in seen["monsters"]
            )
            lines.append(f"Monsters in view: {monsters}")
        if seen["underfoot"]:
            lines.append(f"Here: {', '.join(item['name'] for item in seen['underfoot'])}")
        lines.append(_last_plan(seen["last_plan"]))
        return "\n".join(lines)

    def moves(self, view: dict[str, Any]) -> list[Any]:
        seen = view["observation"]
        moves: list[Any] = []
        for action in view["legalActions"]:
            for entry in action["actions"]:
                if entry["do"] == UP and seen["status"]["dl"] == 1:
                    continue
                moves.append(entry)
        stairs = _find(seen["map"], STAIRS_DOWN)
        here = (seen["position"]["x"], seen["position"]["y"])
        if stairs is not None and stairs != here:
            moves.append({"do": TRAVEL, "x": stairs[0], "y": stairs[1]})
        return moves

    def plan_moves(self, view: dict[str, Any]) -> list[Any]:
        seen = view["observation"]
        plan: list[Any] = [
            {"do": verb, "dir": direction} for verb in sorted(DIR_VERBS) for direction in DIRECTIONS
        ]
        cells = [(x, y) for y, row in enumerate(seen["map"]) for x, c in enumerate(row) if c != " "]
        if cells:
            xs = sorted({x for x, _y in cells})
            ys = sorted({y for _x, y in cells})
            plan.append({"do": TRAVEL, "x": xs, "y": ys})
        letters = [entry["letter"] for entry in seen["pack"]]
        plan.extend(
            {"do": verb, "item": letter} for verb in sorted(ITEM_VERBS) for letter in letters
        )
        plan.extend({"do": verb} for verb in (DOWN, PICKUP, SEARCH, WAIT))
        if seen["status"]["dl"] > 1:
            plan.append({"do": UP})
        return plan

    def fell_back(self, view: dict[str, Any]) -> bool:
        return bool(view["observation"]["fallback"])


def _runs(executed: list[dict[str, str]]) -> str:
    """The actions a turn ran, repeats folded: ``move e x3, search``."""
    runs: list[tuple[str, int]] = []
    for entry in executed:
        words = " ".join(entry.values())
        if runs and runs[-1][0] == words:
            runs[-1] = (words, runs[-1][1] + 1)
        else:
            runs.append((words, 1))
    return ", ".join(words if count == 1 else f"{words} x{count}" for words, count in runs)


def _find(rows: list[str], glyph: str) -> tuple[int, int] | None:
    for y, row in enumerate(rows):
        x = row.find(glyph)
        if x >= 0:
            return x, y
    return None


def _pack_entry(entry: dict[str, Any]) -> str:
    worn = " (wielded)" if entry.get("wielded") else " (worn)" if entry.get("worn") else ""
    return f"{entry['letter']} {entry['name']}{worn}"


def _last_plan(plan: dict[str, Any]) -> str:
    parts = [f"Last turn ran: {_runs(plan['executed']) or 'nothing'}"]
    if plan["interrupted"]:
        parts.append(f"stopped: {plan['interrupted']}")
    for entry in plan["dropped"]:
        parts.append(f"action {entry['index']} dropped: {entry['reason']}")
    if plan["unreachable"]:
        parts.append(f"unreachable travel: {json.dumps(plan['unreachable'])}")
    return "; ".join(parts)
