"""The three Hush: where they appear, when, how fast they move and what they do.

Every Hush lies dormant for ``DORMANT_TICKS`` after it appears: it neither moves nor
touches the chick. Awake, it steps once every ``period`` ticks along the same four
diagonals as the chick. A tumble rolls one tier down, left or right at random, and leaves
off the base; a stalker takes the first move in ``STALKER_ORDER`` that brings it closer;
a muffle wanders at random, lowers every tile it lands on that is above 0, and disperses
after ``MUFFLE_LIFETIME`` ticks awake.
"""

from __future__ import annotations

from playbench.core import Rng
from playbench.games.chimestep.board import (
    ADJACENT,
    BASE_CORNERS,
    BASE_ROW,
    CELLS,
    DISTANCE,
    DOWN_LEFT,
    DOWN_RIGHT,
    NEIGHBOR,
    OFF,
    ROW_OF,
    TILE_COUNT,
    UP_LEFT,
    UP_RIGHT,
)
from playbench.games.chimestep.state import (
    H_AWAKE,
    H_CLOCK,
    H_DORMANT,
    H_KIND,
    H_TILE,
    HUSH_FIELDS,
    State,
)
from playbench.games.chimestep.tables import (
    DORMANT_TICKS,
    KINDS,
    MUFFLE,
    MUFFLE_LIFETIME,
    STALKER,
    TUMBLE,
    hush_cap,
    period,
    spawn_interval,
    spawn_queue,
)

#: tiles a tumble may appear on: tiers 0 and 1, never the chick's own tile
TUMBLE_SPAWN_TILES = (0, 1, 2)
#: a tumble rolls down-left or down-right with even odds
TUMBLE_ROLLS = (DOWN_LEFT, DOWN_RIGHT)
STALKER_MIN_STEPS = 3
MUFFLE_MIN_STEPS = 2
MUFFLE_MIN_ROW = 3
#: a stalker's tie order among moves that bring it equally close
STALKER_ORDER = (DOWN_RIGHT, DOWN_LEFT, UP_RIGHT, UP_LEFT)
#: the kind a Hush is marked with inside ``advance`` once it has left the board
GONE = -1


def spawn_tile(kind: int, chick: int, rng: Rng) -> int:
    """Where a new Hush of ``kind`` appears, given the chick's tile."""
    if kind == TUMBLE:
        choices = [t for t in TUMBLE_SPAWN_TILES if t != chick]
    elif kind == STALKER:
        return stalker_corner(chick)
    else:
        choices = [
            t
            for t in range(TILE_COUNT)
            if ROW_OF[t] >= MUFFLE_MIN_ROW and DISTANCE[chick][t] >= MUFFLE_MIN_STEPS
        ]
    return rng.choice(choices)


def stalker_corner(chick: int) -> int:
    """The base corner farther from the chick (the left one on a tie): never random, and
    always at least ``STALKER_MIN_STEPS`` away, since the corners are 6 steps apart."""
    left, right = BASE_CORNERS
    return right if DISTANCE[chick][right] > DISTANCE[chick][left] else left


def stalker_step(tile: int, chick: int) -> int:
    """The stalker's next tile: the first move of ``STALKER_ORDER`` that closes in."""
    here = DISTANCE[tile][chick]
    for direction in STALKER_ORDER:
        target = NEIGHBOR[tile][direction]
        if target != OFF and DISTANCE[target][chick] < here:
            return target
    return tile


def run_spawn_clock(state: State, events: list) -> None:
    """One tick of the spawn clock: when it has run out and the board has room, the next
    Hush appears and the clock restarts."""
    if state.spawn_clock:
        state.spawn_clock -= 1
    if not state.spawn_clock and len(state.hush) < HUSH_FIELDS * hush_cap(state.stage):
        spawn_next(state, events)
        state.spawn_clock = spawn_interval(state.stage)


def spawn_next(state: State, events: list) -> None:
    """Put the next Hush of the stage's queue on the board, dormant."""
    queue = spawn_queue(state.stage)
    kind = queue[state.spawn_index]
    state.spawn_index = (state.spawn_index + 1) % len(queue)
    tile = spawn_tile(kind, state.position, state.rng)
    state.hush += (kind, tile, DORMANT_TICKS, 0, 0)
    row, col = CELLS[tile]
    events.append({"type": "spawn", "kind": KINDS[kind], "row": row, "col": col, "points": 0})


def advance(state: State, events: list) -> None:
    """One tick of every Hush: dormancy, steps, muffling, leaving the board."""
    hush = state.hush
    removed = False
    for at in range(0, len(hush), HUSH_FIELDS):
        kind = hush[at + H_KIND]
        if hush[at + H_DORMANT]:
            hush[at + H_DORMANT] -= 1
            if not hush[at + H_DORMANT]:
                hush[at + H_CLOCK] = period(kind, state.stage)
            continue
        hush[at + H_AWAKE] += 1
        if kind == MUFFLE and hush[at + H_AWAKE] >= MUFFLE_LIFETIME:
            hush[at + H_KIND] = GONE
            removed = True
            row, col = CELLS[hush[at + H_TILE]]
            events.append(
                {"type": "disperse", "kind": "muffle", "row": row, "col": col, "points": 0}
            )
            continue
        hush[at + H_CLOCK] -= 1
        if hush[at + H_CLOCK]:
            continue
        hush[at + H_CLOCK] = period(kind, state.stage)
        tile = hush[at + H_TILE]
        if kind == TUMBLE:
            if ROW_OF[tile] == BASE_ROW:
                hush[at + H_KIND] = GONE
                removed = True
                row, col = CELLS[tile]
                events.append(
                    {"type": "rollOff", "kind": "tumble", "row": row, "col": col, "points": 0}
                )
                continue
            hush[at + H_TILE] = NEIGHBOR[tile][state.rng.choice(TUMBLE_ROLLS)]
        elif kind == STALKER:
            hush[at + H_TILE] = stalker_step(tile, state.position)
        else:
            target = state.rng.choice(ADJACENT[tile])
            hush[at + H_TILE] = target
            level = state.tiles[target]
            if level:
                state.tiles[target] = level - 1
                row, col = CELLS[target]
                events.append(
                    {"type": "muffle", "row": row, "col": col, "level": level - 1, "points": 0}
                )
    if removed:
        state.hush = [
            value
            for at in range(0, len(hush), HUSH_FIELDS)
            if hush[at + H_KIND] != GONE
            for value in hush[at : at + HUSH_FIELDS]
        ]


def awake_at(state: State, tile: int) -> int | None:
    """The kind of an awake Hush on ``tile``, or None."""
    hush = state.hush
    for at in range(0, len(hush), HUSH_FIELDS):
        if hush[at + H_TILE] == tile and not hush[at + H_DORMANT]:
            return hush[at + H_KIND]
    return None
