"""Views of a Chimestep state: the public observation, the text board and the JSON form."""

from __future__ import annotations

from typing import Any

from playbench.core import Rng, StateError
from playbench.games.chimestep import hush, rules
from playbench.games.chimestep.board import (
    CELLS,
    DIRECTION_INDEX,
    DIRECTIONS,
    TIERS,
    TILE_COUNT,
    index,
    on_pyramid,
)
from playbench.games.chimestep.state import (
    DONE,
    H_AWAKE,
    H_CLOCK,
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

GAME_TAG = "chimestep"
CHICK_MARK = "@"
EMPTY_MARK = "."
HUSH_MARKS = ("T", "S", "M")
CELL_GAP = " "
#: a tile is drawn as chick mark, level digit, Hush mark
CELL_WIDTH = 3
#: each phase that counts down, with the most ticks it can have left
PHASE_LENGTHS = {
    STAGE_INTRO: rules.INTRO_TICKS,
    RECOVERING: rules.RECOVER_TICKS,
    STAGE_CLEAR: rules.CLEAR_TICKS,
}


# -- observation -----------------------------------------------------------------------------
def _position(tile: int) -> dict[str, int]:
    row, col = CELLS[tile]
    return {"row": row, "col": col}


def _teeter(state: State) -> dict[str, Any] | None:
    if not state.teeter:
        return None
    return {"dir": DIRECTIONS[state.teeter_dir], "ticks": state.teeter}


def observe(state: State) -> dict[str, Any]:
    tiles = list(state.tiles)
    awake = []
    dormant = []
    found = state.hush
    for at in range(0, len(found), HUSH_FIELDS):
        row, col = CELLS[found[at + H_TILE]]
        entry = {"kind": hush.KINDS[found[at + H_KIND]], "row": row, "col": col}
        if found[at + H_DORMANT]:
            entry["dormantTicks"] = found[at + H_DORMANT]
            dormant.append(entry)
        else:
            awake.append(entry)
    return {
        "status": STATUSES[state.status],
        "stage": state.stage,
        "target": state.target,
        "tiles": [tiles[index(row, 0) : index(row, 0) + row + 1] for row in range(TIERS)],
        "remaining": state.remaining(),
        "position": _position(state.position),
        "hopCooldown": state.cooldown,
        "bufferedHop": None if state.buffered == NO_DIRECTION else DIRECTIONS[state.buffered],
        "teeter": _teeter(state),
        "lives": state.lives,
        "chain": state.chain,
        "tollCharges": state.charges,
        "tollCooldown": state.toll_cooldown,
        "shimmerTicks": state.shimmer,
        "hushCells": awake,
        "dormantHush": dormant,
        "stageHops": state.stage_hops,
        "stageDamped": state.stage_damped,
        "par": rules.par_for(state.target),
        "score": state.score,
        "tick": state.tick,
    }


# -- text board ----------------------------------------------------------------------------------
def render(state: State) -> str:
    marks = [EMPTY_MARK] * TILE_COUNT
    found = state.hush
    for at in range(0, len(found), HUSH_FIELDS):
        mark = HUSH_MARKS[found[at + H_KIND]]
        marks[found[at + H_TILE]] = mark if not found[at + H_DORMANT] else mark.lower()
    lines = [
        f"Chimestep  stage {state.stage}  target {state.target}  {STATUSES[state.status]}",
        "",
    ]
    for row in range(TIERS):
        cells = []
        for col in range(row + 1):
            tile = index(row, col)
            chick = CHICK_MARK if tile == state.position else EMPTY_MARK
            cells.append(f"{chick}{state.tiles[tile]}{marks[tile]}")
        indent = " " * ((TIERS - 1 - row) * (CELL_WIDTH + len(CELL_GAP)) // 2)
        lines.append(indent + CELL_GAP.join(cells))
    lines += ["", _status_line(state), _clock_line(state)]
    lines.append(
        "each tile: chick @, level, Hush (T tumble, S stalker, M muffle; lower case dormant)"
    )
    return "\n".join(lines)


def _status_line(state: State) -> str:
    par = rules.par_for(state.target)
    return (
        f"remaining {state.remaining()}  lives {state.lives}  score {state.score}  "
        f"chain {state.chain}  hops {state.stage_hops}/par {par}  damped {state.stage_damped}"
    )


def _clock_line(state: State) -> str:
    parts = [f"tick {state.tick}"]
    if state.status == WAITING:
        parts.append("send start to begin")
    elif state.status == DONE:
        parts.append("the run is over")
    elif state.status != PLAYING:
        parts.append(f"{STATUSES[state.status]} {state.phase_ticks} ticks")
    parts.append(f"hop ready in {state.cooldown}" if state.cooldown else "hop ready")
    if state.buffered != NO_DIRECTION:
        parts.append(f"buffered {DIRECTIONS[state.buffered]}")
    if state.teeter:
        parts.append(f"TEETER {DIRECTIONS[state.teeter_dir]} {state.teeter} (same hop leaps)")
    toll = "ready" if not state.toll_cooldown else f"in {state.toll_cooldown}"
    parts.append(f"toll {state.charges} charge(s), {toll}")
    if state.shimmer:
        parts.append(f"shimmer {state.shimmer}")
    return "  ".join(parts)


# -- JSON form ---------------------------------------------------------------------------------
def to_json(state: State) -> dict[str, Any]:
    found = state.hush
    return {
        "game": GAME_TAG,
        "status": STATUSES[state.status],
        "stage": state.stage,
        "target": state.target,
        "tiles": list(state.tiles),
        "position": _position(state.position),
        "hopCooldown": state.cooldown,
        "bufferedHop": None if state.buffered == NO_DIRECTION else DIRECTIONS[state.buffered],
        "teeter": _teeter(state),
        "lives": state.lives,
        "chain": state.chain,
        "rings": state.rings,
        "tollCharges": state.charges,
        "tollCooldown": state.toll_cooldown,
        "shimmerTicks": state.shimmer,
        "phaseTicks": state.phase_ticks,
        "hush": [
            {
                "kind": hush.KINDS[found[at + H_KIND]],
                **_position(found[at + H_TILE]),
                "dormantTicks": found[at + H_DORMANT],
                "clock": found[at + H_CLOCK],
                "awakeTicks": found[at + H_AWAKE],
            }
            for at in range(0, len(found), HUSH_FIELDS)
        ],
        "spawnClock": state.spawn_clock,
        "spawnIndex": state.spawn_index,
        "stageHops": state.stage_hops,
        "stageDamped": state.stage_damped,
        "score": state.score,
        "tick": state.tick,
        "freeLeap": state.free_leap,
        "rng": state.rng.to_json(),
    }


STATE_KEYS = frozenset(to_json(rules.new(0)))
HUSH_KEYS = frozenset(("kind", "row", "col", "dormantTicks", "clock", "awakeTicks"))


def _int(data: dict[str, Any], key: str, low: int, high: int | None = None) -> int:
    value = data[key]
    if type(value) is not int:
        raise StateError(f"{key} must be an integer, got {value!r}")
    if high is None and value < low:
        raise StateError(f"{key} must be at least {low}, got {value}")
    if high is not None and not low <= value <= high:
        raise StateError(f"{key} must be between {low} and {high}, got {value}")
    return value


def _tile(data: Any, key: str) -> int:
    if not isinstance(data, dict) or set(data) - {"row", "col", *HUSH_KEYS}:
        raise StateError(f"{key} must be an object with row and col")
    row, col = data.get("row"), data.get("col")
    if type(row) is not int or type(col) is not int or not on_pyramid(row, col):
        raise StateError(f"{key} must be a tile of the pyramid, got row {row!r} col {col!r}")
    return index(row, col)


def _direction(value: Any, key: str) -> int:
    if value is None:
        return NO_DIRECTION
    if not isinstance(value, str) or value not in DIRECTION_INDEX:
        raise StateError(f"{key} must be null or one of {', '.join(DIRECTIONS)}, got {value!r}")
    return DIRECTION_INDEX[value]


def from_json(data: Any) -> State:
    if not isinstance(data, dict):
        raise StateError(f"a chimestep state is a JSON object, got {type(data).__name__}")
    if data.get("game") != GAME_TAG:
        raise StateError(f"not a chimestep state (game is {data.get('game')!r})")
    missing = sorted(STATE_KEYS - set(data))
    extra = sorted(set(data) - STATE_KEYS)
    if missing or extra:
        raise StateError(f"state keys wrong: missing {missing}, unexpected {extra}")
    state = State()
    if data["status"] not in STATUSES:
        raise StateError(f"status must be one of {', '.join(STATUSES)}, got {data['status']!r}")
    state.status = STATUSES.index(data["status"])
    state.stage = _int(data, "stage", 1)
    state.target = _int(data, "target", rules.LOW_TARGET, rules.HIGH_TARGET)
    if state.target != rules.target_for(state.stage):
        raise StateError(f"stage {state.stage} has target {rules.target_for(state.stage)}")
    tiles = data["tiles"]
    if (
        not isinstance(tiles, list)
        or len(tiles) != TILE_COUNT
        or not all(type(t) is int and 0 <= t <= state.target for t in tiles)
    ):
        raise StateError(f"tiles must be {TILE_COUNT} integers between 0 and {state.target}")
    state.tiles = bytearray(tiles)
    state.position = _tile(data["position"], "position")
    state.cooldown = _int(data, "hopCooldown", 0, rules.HOP_COOLDOWN)
    state.buffered = _direction(data["bufferedHop"], "bufferedHop")
    _read_teeter(state, data["teeter"])
    state.lives = _int(data, "lives", 0, rules.START_LIVES)
    state.chain = _int(data, "chain", 0)
    state.rings = _int(data, "rings", 0)
    state.charges = _int(data, "tollCharges", 0, rules.MAX_CHARGES)
    state.toll_cooldown = _int(data, "tollCooldown", 0, rules.TOLL_COOLDOWN)
    state.shimmer = _int(data, "shimmerTicks", 0, rules.SHIMMER_TICKS)
    state.phase_ticks = _int(data, "phaseTicks", 0, PHASE_LENGTHS.get(state.status, 0))
    if state.status in PHASE_LENGTHS and not state.phase_ticks:
        raise StateError(f"phaseTicks must be positive while {data['status']}")
    state.hush = _read_hush(data["hush"], state.stage)
    state.spawn_clock = _int(data, "spawnClock", 0, hush.spawn_interval(state.stage))
    state.spawn_index = _int(data, "spawnIndex", 0, len(hush.spawn_queue(state.stage)) - 1)
    state.stage_hops = _int(data, "stageHops", 0)
    state.stage_damped = _int(data, "stageDamped", 0)
    state.score = _int(data, "score", 0)
    state.tick = _int(data, "tick", 0)
    if type(data["freeLeap"]) is not bool:
        raise StateError(f"freeLeap must be true or false, got {data['freeLeap']!r}")
    state.free_leap = data["freeLeap"]
    state.rng = Rng.from_json(data["rng"])
    if (state.status == DONE) != (state.lives == 0):
        raise StateError("status is done exactly when no lives are left")
    return state


def _read_teeter(state: State, teeter: Any) -> None:
    if teeter is None:
        state.teeter, state.teeter_dir = 0, NO_DIRECTION
        return
    if not isinstance(teeter, dict) or set(teeter) != {"dir", "ticks"}:
        raise StateError("teeter must be null or an object with dir and ticks")
    state.teeter_dir = _direction(teeter["dir"], "teeter dir")
    state.teeter = _int(teeter, "ticks", 1, rules.TEETER_TICKS)
    if state.teeter_dir == NO_DIRECTION:
        raise StateError("teeter dir must be a direction")


def _read_hush(entries: Any, stage: int) -> list[int]:
    if not isinstance(entries, list) or len(entries) > hush.HUSH_CAP_MAX:
        raise StateError(f"hush must be a list of at most {hush.HUSH_CAP_MAX} entries")
    flat: list[int] = []
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != HUSH_KEYS:
            raise StateError(f"each hush entry must have exactly {', '.join(sorted(HUSH_KEYS))}")
        kind = hush.KIND_INDEX.get(entry["kind"]) if isinstance(entry["kind"], str) else None
        if kind is None:
            raise StateError(f"hush kind must be one of {', '.join(hush.KINDS)}")
        tile = _tile(entry, "hush entry")
        dormant = _int(entry, "dormantTicks", 0, hush.DORMANT_TICKS)
        clock = _int(entry, "clock", 0, hush.period(kind, stage))
        lifetime = hush.MUFFLE_LIFETIME - 1 if kind == hush.MUFFLE else None
        awake = _int(entry, "awakeTicks", 0, lifetime)
        if not dormant and not clock:
            raise StateError("an awake hush must have a clock of at least 1")
        flat += (kind, tile, dormant, clock, awake)
    return flat


#: the stage a run must reach for progress 1: the bar a strong player sets
PROGRESS_STAGES = 30


def progress(state: State) -> float:
    """Stages cleared plus the current stage's share of tiles at target, over 30."""
    tiles = len(state.tiles)
    done = (tiles - state.remaining()) / tiles
    return min(1.0, (state.stage - 1 + done) / PROGRESS_STAGES)
