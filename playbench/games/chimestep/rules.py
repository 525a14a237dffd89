"""The Chimestep rules core: a new run, the legal actions and the pure step.

A step copies the state once and then runs a chain of small systems on the copy: apply
the action (start, hop, toll), or run ``count`` single ticks, each of which counts the
phase down or, while playing, runs the toll cooldown, the chick's teeter or cooldown and
buffered hop, the Hush, collisions, the spawn clock and the shimmer, in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playbench.core import OptionsError, Outcome, PlaybenchError, Rng, check_seed
from playbench.core.fields import options_object
from playbench.games.chimestep import hush
from playbench.games.chimestep.board import (
    APEX,
    CELLS,
    DIRECTION_INDEX,
    DIRECTIONS,
    DISTANCE,
    NEIGHBOR,
    OFF,
    TILE_COUNT,
)
from playbench.games.chimestep.state import (
    DONE,
    H_DORMANT,
    H_KIND,
    H_TILE,
    HUSH_FIELDS,
    NO_DIRECTION,
    PLAYING,
    RECOVERING,
    STAGE_CLEAR,
    STAGE_INTRO,
    STATUSES,
    WAITING,
    State,
)
from playbench.games.chimestep.tables import (
    APEX_START_LEVEL,
    CHAIN_CAP,
    CHAIN_POINTS,
    CLEAR_POINTS_PER_STAGE,
    CLEAR_TICKS,
    EFFICIENCY_CAP,
    EFFICIENCY_POINTS_PER_HOP,
    HIGH_TARGET,
    HOP_COOLDOWN,
    INTRO_TICKS,
    KINDS,
    LIFE_POINTS,
    LOW_TARGET,
    MAX_CHARGES,
    MAX_TICK_COUNT,
    MIN_TICK_COUNT,
    PAR_BONUS,
    PAR_HOPS_PER_LEVEL,
    PAR_OFFSET,
    RECOVER_TICKS,
    RING_POINTS,
    RINGS_PER_CHARGE,
    SCATTER_POINTS,
    SHIMMER_TICKS,
    START_CHARGES,
    START_LIVES,
    TARGET_POINTS,
    TARGET_TWO_FROM_STAGE,
    TEETER_TICKS,
    TOLL_COOLDOWN,
    TOLL_RANGE,
    WINDOW_CAP,
    WINDOW_FIRST,
    WINDOW_STEP,
    par_for,
    spawn_interval,
    target_for,
    window_for,
)

#: the rule numbers live in ``tables``; the rules keep naming them
__all__ = [
    "ACTION_KEYS",
    "APEX_START_LEVEL",
    "CHAIN_CAP",
    "CHAIN_POINTS",
    "CLEAR_POINTS_PER_STAGE",
    "CLEAR_TICKS",
    "EFFICIENCY_CAP",
    "EFFICIENCY_POINTS_PER_HOP",
    "HIGH_TARGET",
    "HOP_COOLDOWN",
    "INTRO_TICKS",
    "KINDS",
    "LIFE_POINTS",
    "LOW_TARGET",
    "MAX_CHARGES",
    "MAX_TICK_COUNT",
    "MIN_TICK_COUNT",
    "PAR_BONUS",
    "PAR_HOPS_PER_LEVEL",
    "PAR_OFFSET",
    "RECOVER_TICKS",
    "RINGS_PER_CHARGE",
    "RING_POINTS",
    "SCATTER_POINTS",
    "SHIMMER_TICKS",
    "START_CHARGES",
    "START_LIVES",
    "TARGET_POINTS",
    "TARGET_TWO_FROM_STAGE",
    "TEETER_TICKS",
    "TICK_KEYS",
    "TOLL_COOLDOWN",
    "TOLL_RANGE",
    "WINDOW_CAP",
    "WINDOW_FIRST",
    "WINDOW_STEP",
    "ActionError",
    "ParsedAction",
    "legal_actions",
    "new",
    "par_for",
    "parse_action",
    "spawn_interval",
    "step",
    "target_for",
    "window_for",
]

ACTION_KEYS = {"start": ("type",), "hop": ("type", "dir"), "toll": ("type",)}
TICK_KEYS = ("type", "count")


class ActionError(PlaybenchError, ValueError):
    """A JSON action that is not one of Chimestep's four, or not well formed."""


@dataclass(frozen=True, slots=True)
class ParsedAction:
    """A well-formed action: its kind, and the direction of a hop or the clamped count of
    a tick (0 for start and toll)."""

    kind: str
    argument: int = 0


# -- a new run ---------------------------------------------------------------------------------
def new(seed: int, options: Mapping[str, Any] | None = None) -> State:
    check_seed(seed)
    options_object(options, OptionsError, "chimestep", ())
    state = State()
    state.status = WAITING
    state.lives = START_LIVES
    state.chain = 0
    state.rings = 0
    state.charges = START_CHARGES
    state.toll_cooldown = 0
    state.shimmer = 0
    state.phase_ticks = 0
    state.score = 0
    state.tick = 0
    state.free_leap = True
    state.rng = Rng.from_seed(seed)
    _set_up_stage(state, 1)
    return state


def _set_up_stage(state: State, stage: int) -> None:
    state.stage = stage
    state.target = target_for(stage)
    state.tiles = bytearray(TILE_COUNT)
    state.tiles[APEX] = APEX_START_LEVEL
    state.stage_hops = 0
    state.stage_damped = 0
    state.hush = []
    state.spawn_clock = spawn_interval(stage)
    state.spawn_index = 0
    _to_apex(state)
    # the arrival that strikes the apex is a landing: it sets the hop cooldown, which falls
    # only in play, so a stage's first hop resolves 4 ticks into play (30 hops: 120 ticks)
    state.cooldown = HOP_COOLDOWN


def _to_apex(state: State) -> None:
    state.position = APEX
    _drop_pending_moves(state)


def _drop_pending_moves(state: State) -> None:
    """No cooldown, no buffered hop, no teeter."""
    state.cooldown = 0
    state.buffered = NO_DIRECTION
    state.teeter = 0
    state.teeter_dir = NO_DIRECTION


# -- legal actions ---------------------------------------------------------------------------
def legal_actions(state: State) -> list[dict[str, Any]]:
    status = state.status
    if status == PLAYING:
        actions: list[dict[str, Any]] = [{"type": "hop", "dir": name} for name in DIRECTIONS]
        if state.charges and not state.toll_cooldown:
            actions.append({"type": "toll"})
        actions.append({"type": "tick"})
        return actions
    if status == WAITING:
        return [{"type": "start"}]
    if status == DONE:
        return []
    return [{"type": "tick"}]


def score(state: State) -> int:
    return state.score


def is_over(state: State) -> bool:
    """The run ends when the last life is lost; stages are endless, so it is never won."""
    return state.status == DONE


# -- the step ----------------------------------------------------------------------------------
def step(state: State, action: Any) -> Outcome[State]:
    try:
        parsed = parse_action(action)
    except ActionError as error:
        return Outcome.refused(state, str(error))
    kind, argument = parsed.kind, parsed.argument
    status = state.status
    events: list[dict[str, Any]] = []
    if kind == "tick":
        if status == WAITING:
            return Outcome.refused(state, "the clock does not run while waiting: send start")
        if status == DONE:
            return Outcome.refused(state, "the run is over: ticks change nothing")
        new_state = state.copy()
        for _ in range(argument):
            if new_state.status == DONE:
                break
            _tick(new_state, events)
    elif kind == "start":
        if status != WAITING:
            return Outcome.refused(
                state, f"start only acts while waiting; status is {STATUSES[status]}"
            )
        new_state = state.copy()
        new_state.status = STAGE_INTRO
        new_state.phase_ticks = INTRO_TICKS
        events.append({"type": "start", "stage": new_state.stage, "points": 0})
    elif status != PLAYING:
        return Outcome.refused(
            state, f"{kind} only acts while playing; status is {STATUSES[status]}"
        )
    elif kind == "hop":
        new_state = state.copy()
        _hop(new_state, argument, events)
    else:
        if not state.charges:
            return Outcome.refused(state, "toll needs a charge and there is none")
        if state.toll_cooldown:
            return Outcome.refused(
                state, f"toll is cooling down for {state.toll_cooldown} more ticks"
            )
        new_state = state.copy()
        _toll(new_state, events)
    return Outcome(state=new_state, reward=new_state.score - state.score, events=events)


def parse_action(action: Any) -> ParsedAction:
    """The kind and argument of a well-formed action; :class:`ActionError` says what is
    wrong with any other."""
    if not isinstance(action, dict):
        raise ActionError(f"an action is a JSON object with a type, got {type(action).__name__}")
    kind = action.get("type")
    if kind == "tick":
        extra = [key for key in action if key not in TICK_KEYS]
        if extra:
            raise ActionError(f"tick takes only type and count, got {', '.join(map(str, extra))}")
        count = action.get("count", MIN_TICK_COUNT)
        if type(count) is not int:
            raise ActionError(f"tick count must be an integer, got {count!r}")
        return ParsedAction(kind, min(MAX_TICK_COUNT, max(MIN_TICK_COUNT, count)))
    keys = ACTION_KEYS.get(kind) if isinstance(kind, str) else None
    if keys is None:
        raise ActionError(f"action type must be one of start, hop, toll, tick; got {kind!r}")
    extra = [key for key in action if key not in keys]
    if extra:
        raise ActionError(
            f"{kind} takes only {' and '.join(keys)}, got {', '.join(map(str, extra))}"
        )
    if kind != "hop":
        return ParsedAction(kind)
    direction = action.get("dir")
    if not isinstance(direction, str) or direction not in DIRECTION_INDEX:
        raise ActionError(f"hop dir must be one of {', '.join(DIRECTIONS)}; got {direction!r}")
    return ParsedAction(kind, DIRECTION_INDEX[direction])


# -- actions -------------------------------------------------------------------------------------
def _hop(state: State, direction: int, events: list) -> None:
    if state.teeter:
        if direction == state.teeter_dir:
            _leap(state, events)
            return
        _clear_teeter(state, events)
    if state.cooldown:
        state.buffered = direction
        events.append({"type": "buffer", "dir": DIRECTIONS[direction], "points": 0})
        return
    _resolve_hop(state, direction, events)


def _resolve_hop(state: State, direction: int, events: list) -> None:
    target = NEIGHBOR[state.position][direction]
    if target == OFF:
        state.teeter = TEETER_TICKS
        state.teeter_dir = direction
        events.append({"type": "teeter", "dir": DIRECTIONS[direction], "points": 0})
        return
    state.position = target
    state.cooldown = HOP_COOLDOWN
    state.stage_hops += 1
    _land(state, target, direction, events)


def _land(state: State, tile: int, direction: int, events: list) -> None:
    level = state.tiles[tile]
    target = state.target
    row, col = CELLS[tile]
    if level < target:
        level += 1
        state.tiles[tile] = level
        state.chain += 1
        points = RING_POINTS + CHAIN_POINTS * min(state.chain, CHAIN_CAP)
        if level == target:
            points += TARGET_POINTS
        state.score += points
        state.rings += 1
        events.append(
            {
                "type": "ring",
                "dir": DIRECTIONS[direction],
                "row": row,
                "col": col,
                "level": level,
                "chain": state.chain,
                "points": points,
            }
        )
        if not state.rings % RINGS_PER_CHARGE and state.charges < MAX_CHARGES:
            state.charges += 1
            events.append({"type": "charge", "charges": state.charges, "points": 0})
        if level == target and not state.remaining():
            _clear_stage(state, events)
            return
    else:
        state.chain = 0
        events.append(
            {"type": "land", "dir": DIRECTIONS[direction], "row": row, "col": col, "points": 0}
        )
    _check_collision(state, events)


def _leap(state: State, events: list) -> None:
    free = state.free_leap
    state.free_leap = False
    state.chain = 0
    events.append({"type": "leap", "dir": DIRECTIONS[state.teeter_dir], "free": free, "points": 0})
    _back_to_apex(state, events, costs_life=not free)


def _clear_teeter(state: State, events: list) -> None:
    events.append({"type": "teeterClear", "dir": DIRECTIONS[state.teeter_dir], "points": 0})
    state.teeter = 0
    state.teeter_dir = NO_DIRECTION


def _toll(state: State, events: list) -> None:
    if state.teeter:
        _clear_teeter(state, events)
    state.charges -= 1
    state.toll_cooldown = TOLL_COOLDOWN
    near = DISTANCE[state.position]
    kept: list[int] = []
    scattered = []
    found = state.hush
    for at in range(0, len(found), HUSH_FIELDS):
        entry = found[at : at + HUSH_FIELDS]
        if not entry[H_DORMANT] and near[entry[H_TILE]] <= TOLL_RANGE:
            scattered.append(entry)
        else:
            kept += entry
    state.hush = kept
    points = SCATTER_POINTS * len(scattered)
    state.score += points
    events.append({"type": "toll", "scattered": len(scattered), "points": 0})
    for entry in scattered:
        row, col = CELLS[entry[H_TILE]]
        events.append(
            {
                "type": "scatter",
                "kind": KINDS[entry[H_KIND]],
                "row": row,
                "col": col,
                "points": SCATTER_POINTS,
            }
        )


# -- time ----------------------------------------------------------------------------------------
def _tick(state: State, events: list) -> None:
    state.tick += 1
    if state.status != PLAYING:
        state.phase_ticks -= 1
        if not state.phase_ticks:
            _end_phase(state, events)
        return
    if state.toll_cooldown:
        state.toll_cooldown -= 1
    if state.teeter:
        state.teeter -= 1
        if not state.teeter:
            events.append({"type": "teeterEnd", "dir": DIRECTIONS[state.teeter_dir], "points": 0})
            state.teeter_dir = NO_DIRECTION
    elif state.cooldown:
        state.cooldown -= 1
        if not state.cooldown and state.buffered != NO_DIRECTION:
            direction = state.buffered
            state.buffered = NO_DIRECTION
            _resolve_hop(state, direction, events)
            if state.status != PLAYING:
                return
    if state.hush:
        hush.advance(state, events)
        _check_collision(state, events)
        if state.status != PLAYING:
            return
    hush.run_spawn_clock(state, events)
    if state.shimmer:
        state.shimmer -= 1
        if not state.shimmer:
            _check_collision(state, events)


def _end_phase(state: State, events: list) -> None:
    status = state.status
    if status == STAGE_CLEAR:
        _set_up_stage(state, state.stage + 1)
        state.status = STAGE_INTRO
        state.phase_ticks = INTRO_TICKS
        if state.charges < MAX_CHARGES:
            state.charges += 1
        events.append(
            {
                "type": "stageStart",
                "stage": state.stage,
                "target": state.target,
                "charges": state.charges,
                "points": 0,
            }
        )
        return
    state.status = PLAYING
    if status == RECOVERING:
        state.shimmer = SHIMMER_TICKS
    events.append({"type": "play", "shimmerTicks": state.shimmer, "points": 0})


# -- collisions, lives and stage clears ----------------------------------------------------------
def _check_collision(state: State, events: list) -> None:
    if state.shimmer:
        return
    kind = hush.awake_at(state, state.position)
    if kind is not None:
        row, col = CELLS[state.position]
        events.append({"type": "damped", "kind": KINDS[kind], "row": row, "col": col, "points": 0})
        _back_to_apex(state, events, costs_life=True)


def _back_to_apex(state: State, events: list, costs_life: bool) -> None:
    """A life loss (or the free first leap): sweep, back to the apex, recover."""
    state.chain = 0
    state.stage_damped += 1
    state.hush = []
    state.shimmer = 0
    _to_apex(state)
    if costs_life:
        state.lives -= 1
        events.append({"type": "lifeLost", "lives": state.lives, "points": 0})
    if not state.lives:
        state.status = DONE
        state.phase_ticks = 0
        events.append({"type": "gameOver", "score": state.score, "points": 0})
        return
    state.status = RECOVERING
    state.phase_ticks = RECOVER_TICKS


def _clear_stage(state: State, events: list) -> None:
    stage = state.stage
    par = par_for(state.target)
    hops = state.stage_hops
    stage_points = CLEAR_POINTS_PER_STAGE * stage
    efficiency = min(
        EFFICIENCY_CAP, EFFICIENCY_POINTS_PER_HOP * max(0, par + window_for(stage) - hops)
    )
    par_bonus = PAR_BONUS if hops <= par + state.stage_damped else 0
    life_points = LIFE_POINTS * state.lives
    points = stage_points + efficiency + par_bonus + life_points
    state.score += points
    events.append(
        {
            "type": "stageClear",
            "stage": stage,
            "stageHops": hops,
            "par": par,
            "stagePoints": stage_points,
            "efficiency": efficiency,
            "parBonus": par_bonus,
            "lifePoints": life_points,
            "points": points,
        }
    )
    state.hush = []
    state.shimmer = 0
    _drop_pending_moves(state)
    state.status = STAGE_CLEAR
    state.phase_ticks = CLEAR_TICKS
