"""Chimestep's numbers: the chick's clocks, the points, the phases, the stage tables and
the Hush tables. The rules, the state codec and the spec text all read them from here,
so a number is changed in one place."""

from __future__ import annotations

# -- the chick -------------------------------------------------------------------------------
HOP_COOLDOWN = 4
TEETER_TICKS = 12
START_LIVES = 3
START_CHARGES = 1
MAX_CHARGES = 2
RINGS_PER_CHARGE = 6
TOLL_COOLDOWN = 24
TOLL_RANGE = 1
SHIMMER_TICKS = 36
MIN_TICK_COUNT = 1
MAX_TICK_COUNT = 30
#: the chick's arrival on the apex at a stage start strikes it to this level
APEX_START_LEVEL = 1

# -- phases ----------------------------------------------------------------------------------
INTRO_TICKS = 24
RECOVER_TICKS = 24
CLEAR_TICKS = 36

# -- points ----------------------------------------------------------------------------------
RING_POINTS = 10
TARGET_POINTS = 25
CHAIN_POINTS = 2
CHAIN_CAP = 10
SCATTER_POINTS = 150
CLEAR_POINTS_PER_STAGE = 250
EFFICIENCY_POINTS_PER_HOP = 20
EFFICIENCY_CAP = 300
WINDOW_FIRST = 15
WINDOW_STEP = 5
WINDOW_CAP = 40
PAR_BONUS = 500
LIFE_POINTS = 250
PAR_HOPS_PER_LEVEL = 32
PAR_OFFSET = 2

# -- stages ----------------------------------------------------------------------------------
#: stages before this one have target level 1; this one and every later one, level 2
TARGET_TWO_FROM_STAGE = 3
LOW_TARGET = 1
HIGH_TARGET = 2


def target_for(stage: int) -> int:
    return HIGH_TARGET if stage >= TARGET_TWO_FROM_STAGE else LOW_TARGET


def par_for(target: int) -> int:
    return PAR_HOPS_PER_LEVEL * target - PAR_OFFSET


def window_for(stage: int) -> int:
    return min(WINDOW_CAP, WINDOW_FIRST + WINDOW_STEP * (stage - 1))


# -- the Hush --------------------------------------------------------------------------------
KINDS = ("tumble", "stalker", "muffle")
TUMBLE, STALKER, MUFFLE = range(len(KINDS))
KIND_INDEX = {name: kind for kind, name in enumerate(KINDS)}
DORMANT_TICKS = 12
MUFFLE_LIFETIME = 168

#: ticks between steps: the stage-1 value, falling by one per stage to a floor
TUMBLE_PERIOD = (7, 4)
STALKER_PERIOD = (14, 10)
MUFFLE_PERIOD = (10, 6)
PERIODS = (TUMBLE_PERIOD, STALKER_PERIOD, MUFFLE_PERIOD)

#: ticks of play between spawns: 72 at stage 1, 6 fewer per stage, never below 30
SPAWN_INTERVAL_FIRST = 72
SPAWN_INTERVAL_STEP = 6
SPAWN_INTERVAL_FLOOR = 30
#: most Hush on the board at once (dormant ones included): 1 + stage // 2, at most 4
HUSH_CAP_MAX = 4
#: the order Hush appear in, cycling; stage 3 and later use the last queue
SPAWN_QUEUES = (
    (TUMBLE, TUMBLE, STALKER),
    (TUMBLE, STALKER, TUMBLE, MUFFLE),
    (STALKER, TUMBLE, MUFFLE, TUMBLE),
)


def period(kind: int, stage: int) -> int:
    first, floor = PERIODS[kind]
    return max(floor, first - (stage - 1))


def spawn_interval(stage: int) -> int:
    return max(SPAWN_INTERVAL_FLOOR, SPAWN_INTERVAL_FIRST - SPAWN_INTERVAL_STEP * (stage - 1))


def hush_cap(stage: int) -> int:
    return min(HUSH_CAP_MAX, 1 + stage // 2)


def spawn_queue(stage: int) -> tuple[int, ...]:
    return SPAWN_QUEUES[min(stage, len(SPAWN_QUEUES)) - 1]
