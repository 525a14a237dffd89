"""The Chimestep spec: goal, scoring, every rule with its numbers, grammar and views."""

from __future__ import annotations

from playbench.core import Command
from playbench.core.controls import PROMPT_MARK
from playbench.games.chimestep import hush, tables
from playbench.games.chimestep.board import DIRECTIONS, TIERS, TILE_COUNT
from playbench.games.chimestep.controls import CONTROLS, TICKS_PER_SECOND
from playbench.games.chimestep.view import PROGRESS_STAGES

_STALKER_FIRST, _STALKER_FLOOR = tables.STALKER_PERIOD
_TUMBLE_FIRST, _TUMBLE_FLOOR = tables.TUMBLE_PERIOD
_MUFFLE_FIRST, _MUFFLE_FLOOR = tables.MUFFLE_PERIOD
_QUEUE_NAMES = [", ".join(tables.KINDS[k] for k in queue) for queue in tables.SPAWN_QUEUES]

DESCRIPTION = (
    f"A real-time pyramid game: a wading bird chick hops along the diagonals of a fixed "
    f"{TIERS}-tier, {TILE_COUNT}-tile pyramid, ringing every tile up to the stage's target "
    f"level while three kinds of Hush roll, stalk and muffle on their own clocks."
)

GOAL = (
    f"Hop a chick around a pyramid of {TILE_COUNT} chime tiles and ring each one up to the "
    f"stage's colour to clear it, dodging the Hush; stages never end, and the run ends when "
    f"the last of {tables.START_LIVES} lives is gone. Score as much as you can."
)

SCORING = (
    f"Score only rises, by whole numbers; nothing subtracts (a life loss, being damped, a "
    f"wasted hop and a leap off the rim cost 0). A landing that raises a tile's level pays "
    f"{tables.RING_POINTS}, plus {tables.TARGET_POINTS} if it brought the tile to the target, plus "
    f"a chain bonus of {tables.CHAIN_POINTS} x chain (counted after the increment, capped at "
    f"{tables.CHAIN_CAP}: the first ring of a chain pays {tables.CHAIN_POINTS}, the tenth and "
    f"later {tables.CHAIN_POINTS * tables.CHAIN_CAP}). The chain resets to 0 on a landing that "
    f"raises nothing, on a committed leap and on a life loss, and persists across a stage "
    f"clear. Each Hush scattered by a toll pays {tables.SCATTER_POINTS}. A stage clear pays "
    f"{tables.CLEAR_POINTS_PER_STAGE} x stage, plus min({tables.EFFICIENCY_CAP}, "
    f"{tables.EFFICIENCY_POINTS_PER_HOP} x max(0, par + window - stageHops)) with window = "
    f"min({tables.WINDOW_CAP}, {tables.WINDOW_FIRST} + {tables.WINDOW_STEP} x (stage - 1)), plus "
    f"{tables.PAR_BONUS} when stageHops <= par + stageDamped, plus {tables.LIFE_POINTS} per life "
    f"held at that moment; this pays on every stage clear."
)

PROGRESS = (
    f"Progress (0 to 1, reported beside the score): (stages cleared + the current stage's "
    f"share of struck levels - the start's free share) / ({PROGRESS_STAGES} - the start's "
    f"free share), between 0 and 1. The share is the sum of the tile levels over "
    f"{TILE_COUNT} x target; the start's free share is the apex the arrival strikes before "
    f"the first action ({tables.APEX_START_LEVEL}/{TILE_COUNT}), so a run has progress 0 at "
    f"its start. Every ring raises progress, a muffle's lowering takes it back, a cleared "
    f"stage counts 1, and a run that reaches stage {PROGRESS_STAGES + 1} has progress 1."
)

#: how a key is named in the terminal keys text
KEY_NAMES = {
    " ": "space",
    ".": "full stop",
    "KEY_LEFT": "left arrow",
    "KEY_UP": "up arrow",
    "KEY_DOWN": "down arrow",
    "KEY_RIGHT": "right arrow",
}


def keys_text() -> str:
    """The terminal keys, read from ``CONTROLS``: where the board says "send start", a
    terminal player presses space or s."""
    by_command: dict[str, list[str]] = {}
    for key, command in CONTROLS.keys.items():
        by_command.setdefault(command, []).append(KEY_NAMES.get(key, key))
    parts = []
    for command, keys in by_command.items():
        shown = command.removesuffix(PROMPT_MARK).strip()
        asks = " (asks for the count)" if command.endswith(PROMPT_MARK) else ""
        parts.append(f"{' or '.join(keys)}: {shown}{asks}")
    return (
        f"Terminal keys: {'; '.join(parts)}; {CONTROLS.quit_key} quits. While no key is "
        f"pressed the terminal sends tick {TICKS_PER_SECOND} times a second."
    )


BASE_RULES = [
    # the board and the actions
    f"Board: tier 0 is 1 tile at the apex, tier {TIERS - 1} is {TIERS} tiles at the base, "
    f"0 <= col <= row; the same board every stage. Moves: upLeft (row-1, col-1), upRight "
    f"(row-1, col), downLeft (row+1, col), downRight (row+1, col+1).",
    f"Target level: {tables.LOW_TARGET} on stages 1 to {tables.TARGET_TWO_FROM_STAGE - 1}, "
    f"{tables.HIGH_TARGET} on stage {tables.TARGET_TWO_FROM_STAGE} and every later stage. "
    f"par = {tables.PAR_HOPS_PER_LEVEL} x target - {tables.PAR_OFFSET} hops "
    f"({tables.par_for(tables.LOW_TARGET)} at target 1, {tables.par_for(tables.HIGH_TARGET)} at "
    f"target 2). Every stage starts with all tiles at 0 except the apex, which the chick's "
    f"arrival strikes to level {tables.APEX_START_LEVEL} (this pays nothing and is not a hop); "
    f"that is why exactly 3 re-landings are forced at target 1 and a 27-hop clear is impossible. "
    f"Like every landing, that arrival sets hopCooldown to {tables.HOP_COOLDOWN}, which falls "
    f"only in play: a stage's first hop resolves {tables.HOP_COOLDOWN} ticks into play, so a "
    f"30-hop stage takes at least {tables.HOP_COOLDOWN * tables.par_for(tables.LOW_TARGET)} ticks.",
    "Every landing strikes its tile and raises its level by one up to the target; a landing on "
    "a tile already at the target does nothing but reset the chain. The stage clears the "
    "instant remaining = 0 (before any collision on that landing is checked). You never lower "
    "a tile; only a muffle can.",
    "Actions: {type:'start'}, {type:'hop', dir}, {type:'toll'}, {type:'tick', count}. An action "
    "the engine will not act on is a no-op: it is refused (ok false, the same state back, a "
    "reason) and is not among the legal actions. Keys other than those of the grammar are "
    "refused.",
    f"Phases: waiting -> (start) -> stageIntro ({tables.INTRO_TICKS} ticks) -> playing; a life "
    f"loss -> recovering ({tables.RECOVER_TICKS} ticks) -> playing with "
    f"{tables.SHIMMER_TICKS} shimmer ticks; a clear -> stageClear ({tables.CLEAR_TICKS} ticks) -> "
    f"stageIntro of the next stage; the last life lost -> done. start acts only in waiting.",
    "In waiting and done a tick is a total no-op: it is refused and the identical state comes "
    "back. In stageIntro, recovering and stageClear a tick only counts the phase down and "
    "advances the tick counter; nothing else moves. hop and toll act only while playing and "
    "are refused in every other phase (no hop is buffered outside play).",
    f"tick: count is optional (default 1); any integer is accepted and clamped to "
    f"{tables.MIN_TICK_COUNT}..{tables.MAX_TICK_COUNT} (0 -> 1, 99 -> 30); a count that is not an "
    f"integer is refused. A batched tick is exactly that many single ticks. The legal actions "
    f"list only {{type:'tick'}} (count 1).",
    # the four facts
    f"Hop cooldown: hopCooldown falls only on ticks. A hop resolves at once when it is 0 and "
    f"sets it to {tables.HOP_COOLDOWN}; a hop sent while it is above 0 is buffered, one deep, "
    f"overwriting any buffered hop, and resolves inside the tick where the cooldown reaches 0. "
    f"Thirty hops with no ticks between them resolve exactly one.",
    f"Teeter: a resolved hop whose destination is off the pyramid does not move you; it arms a "
    f"teeter for {tables.TEETER_TICKS} ticks and freezes the cooldown. The same direction sent "
    f"again within those ticks commits a leap off the rim (a life loss, except the first "
    f"committed leap of the run, which is free; either way you are swept back to the apex as "
    f"after a life loss). A hop in another direction, or a toll that acts, clears the teeter "
    f"and then acts as usual. Ticks count the teeter down; when it runs out it simply ends.",
    "Hops that move you count in stageHops; a teeter and a leap do not. stageDamped counts "
    "the times you were sent back to the apex in the stage (damped by a Hush or a committed "
    "leap, the free one included).",
    # the Hush
    f"Hush: every Hush appears dormant for {tables.DORMANT_TICKS} ticks (it neither moves nor "
    f"touches you) and then steps once every `period` ticks. Tumble period {_TUMBLE_FIRST} "
    f"ticks at stage 1, one less per stage, never below {_TUMBLE_FLOOR}; stalker "
    f"{_STALKER_FIRST}, one less per stage, never below {_STALKER_FLOOR} (the chick hops at most "
    f"every {tables.HOP_COOLDOWN}, so a stalker is always at least "
    f"{_STALKER_FLOOR / tables.HOP_COOLDOWN} times slower); muffle "
    f"{_MUFFLE_FIRST}, one less per stage, never below {_MUFFLE_FLOOR}.",
    "Tumble: appears on a random tile of tiers 0 and 1 other than yours, rolls one tier down "
    "per step (downLeft or downRight, even odds) and leaves the board on the step after the "
    "base.",
    f"Stalker: appears on the base corner farther from you (the left one, row 6 col 0, on a "
    f"tie), which is always at least {hush.STALKER_MIN_STEPS} steps away; each step takes the "
    f"first move in the order downRight, downLeft, upRight, upLeft that shortens its distance "
    f"to you; it uses no randomness at all.",
    f"Muffle: appears on a random tile of tier {hush.MUFFLE_MIN_ROW} or below at least "
    f"{hush.MUFFLE_MIN_STEPS} steps from you; each step goes to a random on-pyramid neighbour "
    f"and lowers that tile by one if it is above 0 (remaining rises again); it disperses after "
    f"{tables.MUFFLE_LIFETIME} ticks awake.",
    f"Spawns: while playing, a Hush appears every spawn interval: {tables.SPAWN_INTERVAL_FIRST} "
    f"ticks at stage 1, {tables.SPAWN_INTERVAL_STEP} fewer per stage, never below "
    f"{tables.SPAWN_INTERVAL_FLOOR}; the first one interval after the stage's play begins. At "
    f"most 1 + stage // 2 Hush (never more than {tables.HUSH_CAP_MAX}, dormant ones included) are "
    f"on the board; when full, the next one appears on the first tick a place frees up. The "
    f"kinds come in a cycling queue: stage 1 {_QUEUE_NAMES[0]}; stage 2 {_QUEUE_NAMES[1]}; "
    f"stage 3 and later {_QUEUE_NAMES[2]}. The queue restarts at each stage; a life loss "
    f"does not reset the spawn clock (it waits while recovering).",
    "Collisions: sharing a tile with an awake Hush, after your landing, after the Hush "
    "move or when the shimmer runs out, costs a life unless shimmerTicks is above 0.",
    f"Toll: spends one charge, needs tollCooldown 0, sets tollCooldown to {tables.TOLL_COOLDOWN} "
    f"ticks and removes every awake Hush on your tile or an on-pyramid neighbour (dormant ones "
    f"stay). You start with {tables.START_CHARGES} charge and hold at most "
    f"{tables.MAX_CHARGES}; every {tables.RINGS_PER_CHARGE}th raising landing of the run earns "
    f"one and every later stage start gives one (both wasted when full). It still spends the "
    f"charge with nothing in range, rings no tile and does not touch the spawn clock.",
    f"Lives: {tables.START_LIVES}. A life loss sweeps every Hush off the board, puts you on the "
    f"apex (without striking it), drops any buffered hop, teeter and cooldown, keeps every tile "
    f"level, and grants {tables.SHIMMER_TICKS} shimmer ticks when play resumes.",
    "Tick order while playing: the tick counter and toll cooldown, the teeter (or else the "
    "hop cooldown, resolving a buffered hop at 0) counts down, the Hush act in spawn order, "
    "collisions, the spawn clock, and last the shimmer falls; in the tick it reaches 0, an "
    "awake Hush still on your tile costs a life at once (so no state shows you on an awake "
    "Hush with shimmerTicks 0). A stage clear or a life loss ends the tick.",
    "A stage clear sweeps the Hush; the next stage begins with the chick on the apex, fresh "
    "tiles, the spawn queue restarted. One tick is 1/12 s. Everything is seeded: the same seed "
    "and the same actions give the same state.",
]

ACTION_SCHEMA = {
    "type": "object",
    "oneOf": [
        {
            "properties": {"type": {"const": "start"}},
            "required": ["type"],
            "additionalProperties": False,
        },
        {
            "properties": {"type": {"const": "hop"}, "dir": {"enum": list(DIRECTIONS)}},
            "required": ["type", "dir"],
            "additionalProperties": False,
        },
        {
            "properties": {"type": {"const": "toll"}},
            "required": ["type"],
            "additionalProperties": False,
        },
        {
            "properties": {
                "type": {"const": "tick"},
                "count": {
                    "type": "integer",
                    "description": "Optional, defaults to 1, clamped to 1..30. Defined as "
                    "exactly that many sequential single ticks.",
                },
            },
            "required": ["type"],
            "additionalProperties": False,
        },
    ],
}

COMMANDS = [
    Command("start", "begin the run (only while waiting; in the terminal, space or s)", "start"),
    Command(
        "hop upLeft|upRight|downLeft|downRight",
        "hop along a diagonal; ul, ur, dl, dr are short forms, alone or after hop",
        "hop upLeft",
    ),
    Command("ul | ur | dl | dr", "short for hop ul and the others", "dr"),
    Command("toll", "ring the toll: scatter awake Hush on your tile and its neighbours", "toll"),
    Command("tick [N]", "let N ticks pass (default 1, clamped to 1..30)", "tick 4"),
]

OBSERVATION = {
    "status": "waiting, stageIntro, playing, recovering, stageClear or done",
    "phaseTicks": "ticks left in stageIntro, recovering or stageClear before play (0 otherwise); "
    "hop and toll act only once it has run out",
    "stage": "stage number, from 1",
    "target": "the level every tile must reach this stage (1 or 2)",
    "tiles": "tile levels tier by tier: tiles[row][col]",
    "remaining": "tiles still below the target; 0 clears the stage",
    "position": "the chick's tile {row, col}",
    "hopCooldown": "ticks until a hop resolves at once (0 = now)",
    "bufferedHop": "the direction waiting for the cooldown, or null",
    "teeter": "null, or {dir, ticks}: the same dir again within ticks leaps off the rim",
    "lives": "lives left",
    "chain": "rings in a row without a wasted landing",
    "tollCharges": "toll charges held (at most 2)",
    "tollCooldown": "ticks until the toll can ring again",
    "shimmerTicks": "ticks of protection left after a life loss",
    "hushCells": "awake Hush only: [{kind, row, col}]",
    "dormantHush": "dormant Hush: [{kind, row, col, dormantTicks}]",
    "stageHops": "hops that moved you this stage",
    "stageDamped": "times you were sent back to the apex this stage",
    "par": "the fewest hops that can clear this stage (32 x target - 2)",
    "score": "points so far",
    "tick": "ticks that have passed since start",
}


RULES = [*BASE_RULES, PROGRESS, keys_text()]
