"""The Delvewick spec: goal, scoring, rules (with the readings chosen where the seed is
silent), action grammar, commands, observation and options."""

from __future__ import annotations

from playbench.games.delvewick import commands
from playbench.games.delvewick.levels import (
    LEVELS,
    MAX_HEIGHT,
    MAX_NAME,
    MAX_OIL,
    MAX_QUOTA,
    MAX_WIDTH,
    MIN_SIDE,
)

#: the text grammar, as the commands module lists it
COMMANDS = commands.COMMANDS
DESCRIPTION = (
    "Guide a mole prospector through 8 handcrafted underground levels framed in bedrock: "
    "dig through soil, gather gems until the quota opens the exit, then step onto it to "
    "bank the clear bonus and descend. Every accepted action advances the world one tick; "
    "between actions everything is frozen, even mid-fall. There is no randomness: a run is "
    "a pure function of its action list (the seed changes nothing)."
)

GOAL = "Clear all 8 levels (gem quota, then the open exit) with as many points as you can."

SCORING = (
    "Gem collected (walked into or caught falling on your head): +25, quota or extra. Chain "
    "bonus: +0, +10, +20 for the 1st, 2nd, 3rd gem of a chain and +30 for every later one; "
    "a gem collected at most 4 ticks after the previous one continues the chain, 5 or more "
    "ticks start a new chain, and a level change resets it. Geode cracked: +10. Level clear: "
    "+100 plus +5 per unit of oil left before the step onto the exit. Finale: +250 for "
    "clearing level 8. The score never decreases."
)

PROGRESS = (
    "Progress (reported beside the score, 0 to 1): levels cleared since the run's start plus "
    "the current level's gem share (gems collected on it, capped at its quota, over the "
    "quota), over the levels from the start level to 8 (8 from level 1, 1 from startLevel "
    "8); 0 at the start whatever the start level, 1 once won. The levels below startLevel "
    "were not played and earn nothing. A custom level counts as a run of one level. It "
    "never falls while you play: the share reaches 1 before the exit opens, and the next "
    "level starts at 0."
)

LEVEL_LIST = "; ".join(
    f"level {lv.number} {lv.name!r} quota {lv.quota} oil {lv.oil}" for lv in LEVELS
)

RULES = [
    "Cells: # bedrock, % soil, . empty, O boulder, * gem, G geode, X closed exit, E open "
    "exit, M you. Boulders, gems and geodes are movable and rounded; falling ones show "
    "lowercase (o, v, g). Soil, bedrock and exits are flat.",
    "Actions: {type: move, dir: up|down|left|right} and {type: wait}. Every accepted "
    "action costs 1 oil (refilled each level) and advances the world one tick.",
    "Refused actions cost nothing (no tick, no oil): moving off the grid, into bedrock, "
    "into the closed exit, up or down into a boulder or geode, sideways into a boulder or "
    "geode that is falling or whose next cell is not empty, any action after the run "
    "ended, and anything that is not an action of the grammar (extra keys included). "
    "Wait is always accepted while playing.",
    "Moving: into soil digs it and enters; into a gem (at rest or falling) collects it and "
    "enters; into empty or the open exit enters; sideways into a boulder or geode at rest "
    "with an empty cell beyond pushes it one cell (still at rest) and you take its place.",
    "Tick order: 1) your action; 2) on the open exit the level completes at once (+100, "
    "+5 per oil left before that step, no gravity, no oil cost) and the next level loads "
    "fresh, or the run is won after level 8 (+250); 3) one gravity pass; 4) the exit opens "
    "the moment this level's gems reach the quota, and never closes; 5) chain bookkeeping "
    "(the chain shows 0 once 4 ticks passed without a gem); 6) oil falls by 1, at 0 the run "
    "ends (outOfOil); 7) if the board is fully settled and all four moves are refused, the "
    "run ends (boxedIn).",
    "Gravity, one pass per accepted action, rows bottom to top, columns left to right, each "
    "movable at most once: a) empty below: it moves down one and is falling; b) you below: "
    "an object at rest stays put (you hold it up indefinitely), a falling boulder or geode "
    "moves into your cell and the run ends (crushed), a falling gem moves into your cell "
    "and is caught (+25 with chain); c) on a rounded object it rolls left when the left "
    "and down-left cells are empty, else right when the right and down-right cells are "
    "empty (your cell never counts as empty); d) a falling object that neither falls nor "
    "rolls comes to rest. Movables never enter an exit cell.",
    "A roll moves the object one cell sideways into the free side cell; it is then falling "
    "and drops on a later pass.",
    "Any falling geode that comes to rest (after a fall or a roll) cracks into a gem at "
    "rest (+10); that gem counts toward the quota when collected.",
    "Fully settled means nothing is falling and a gravity pass would move nothing.",
    "When a falling rock reaches you, the rest of that gravity pass still runs and the "
    "action's oil is still spent; the ending is crushed.",
    "tick counts accepted actions over the whole run (the step onto the exit included); "
    "gems collected and the chain are per level. A won run keeps its last board with you "
    "on the exit.",
    f"Levels: {LEVEL_LIST}. The run ends won, crushed, outOfOil or boxedIn and keeps its "
    "full score.",
    PROGRESS,
]

ACTION_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "type": {"const": "move"},
                "dir": {"enum": ["up", "down", "left", "right"]},
            },
            "required": ["type", "dir"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"type": {"const": "wait"}},
            "required": ["type"],
            "additionalProperties": False,
        },
    ]
}

OBSERVATION = {
    "board": "list of row strings, top row first, in the glyphs above; falling objects lowercase",
    "level": "level number 1-8 (1 for a custom level)",
    "levelName": "the level's name",
    "quota": "gems needed to open this level's exit",
    "gemsCollected": "gems collected on this level",
    "exitOpen": "true once the quota was reached on this level",
    "oil": "actions left on this level",
    "tick": "accepted actions so far in the run",
    "chain": "length of the live gem chain (0 when none)",
    "score": "points banked so far",
    "status": "playing, won, crushed, outOfOil or boxedIn",
}

OPTIONS = {
    "startLevel": "integer 1-8: practise from that level on (clearing level 8 still wins)",
    "level": (
        "a custom single-level run {name, quota, oil, rows}: rows are equal-length strings "
        "in the layout glyphs #%.O*GXM, framed in bedrock, with exactly one M and one X, "
        f"{MIN_SIDE}..{MAX_WIDTH} wide and {MIN_SIDE}..{MAX_HEIGHT} high; quota 1..{MAX_QUOTA}, "
        f"oil 1..{MAX_OIL}, a name of 1..{MAX_NAME} characters; clearing it wins (no finale). "
        "Anything else is refused with an error naming the problem"
    ),
}
