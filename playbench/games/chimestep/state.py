"""The Chimestep state, flat, slotted and cheap to copy, and its JSON codec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core import Rng, StateError
from playbench.core.fields import (
    MAX_COUNT,
    bool_field,
    int_field,
    list_field,
    need_keys,
    need_object,
)
from playbench.games.chimestep.board import (
    CELLS,
    DIRECTION_INDEX,
    DIRECTIONS,
    TILE_COUNT,
    index,
    on_pyramid,
)
from playbench.games.chimestep.tables import (
    CLEAR_TICKS,
    DORMANT_TICKS,
    HIGH_TARGET,
    HOP_COOLDOWN,
    HUSH_CAP_MAX,
    INTRO_TICKS,
    KIND_INDEX,
    KINDS,
    LOW_TARGET,
    MAX_CHARGES,
    MUFFLE,
    MUFFLE_LIFETIME,
    RECOVER_TICKS,
    SHIMMER_TICKS,
    START_LIVES,
    TEETER_TICKS,
    TOLL_COOLDOWN,
    period,
    spawn_interval,
    spawn_queue,
    target_for,
)

STATUSES = ("waiting", "stageIntro", "playing", "recovering", "stageClear", "done")
WAITING, STAGE_INTRO, PLAYING, RECOVERING, STAGE_CLEAR, DONE = range(len(STATUSES))
NO_DIRECTION = -1
STATUS_INDEX = {name: status for status, name in enumerate(STATUSES)}

#: a Hush is five consecutive ints in ``State.hush``: kind, tile, dormant ticks left,
#: ticks until its next step, ticks spent awake
HUSH_FIELDS = 5
H_KIND, H_TILE, H_DORMANT, H_CLOCK, H_AWAKE = range(HUSH_FIELDS)


class State:
    """One moment of a run. ``rules.step`` copies it and changes only the copy."""

    __slots__ = (
        "buffered",
        "chain",
        "charges",
        "cooldown",
        "free_leap",
        "hush",
        "lives",
        "phase_ticks",
        "position",
        "rings",
        "rng",
        "score",
        "shimmer",
        "spawn_clock",
        "spawn_index",
        "stage",
        "stage_damped",
        "stage_hops",
        "status",
        "target",
        "teeter",
        "teeter_dir",
        "tick",
        "tiles",
        "toll_cooldown",
    )

    status: int
    stage: int
    target: int
    tiles: bytearray
    position: int
    cooldown: int
    buffered: int
    teeter: int
    teeter_dir: int
    lives: int
    chain: int
    rings: int
    charges: int
    toll_cooldown: int
    shimmer: int
    phase_ticks: int
    hush: list[int]
    spawn_clock: int
    spawn_index: int
    stage_hops: int
    stage_damped: int
    score: int
    tick: int
    free_leap: bool
    rng: Rng

    def copy(self) -> State:
        other = State.__new__(State)
        other.status = self.status
        other.stage = self.stage
        other.target = self.target
        other.tiles = bytearray(self.tiles)
        other.position = self.position
        other.cooldown = self.cooldown
        other.buffered = self.buffered
        other.teeter = self.teeter
        other.teeter_dir = self.teeter_dir
        other.lives = self.lives
        other.chain = self.chain
        other.rings = self.rings
        other.charges = self.charges
        other.toll_cooldown = self.toll_cooldown
        other.shimmer = self.shimmer
        other.phase_ticks = self.phase_ticks
        other.hush = self.hush[:]
        other.spawn_clock = self.spawn_clock
        other.spawn_index = self.spawn_index
        other.stage_hops = self.stage_hops
        other.stage_damped = self.stage_damped
        other.score = self.score
        other.tick = self.tick
        other.free_leap = self.free_leap
        other.rng = Rng(self.rng.state)
        return other

    def remaining(self) -> int:
        """Tiles still below the stage's target level."""
        target = self.target
        return sum(1 for level in self.tiles if level < target)


# -- the JSON form -----------------------------------------------------------------------------
GAME_TAG = "chimestep"
WHAT = "chimestep state"
#: every key of the JSON form, in the order ``to_json`` writes them
STATE_KEYS = (
    "game",
    "status",
    "stage",
    "target",
    "tiles",
    "position",
    "hopCooldown",
    "bufferedHop",
    "teeter",
    "lives",
    "chain",
    "rings",
    "tollCharges",
    "tollCooldown",
    "shimmerTicks",
    "phaseTicks",
    "hush",
    "spawnClock",
    "spawnIndex",
    "stageHops",
    "stageDamped",
    "score",
    "tick",
    "freeLeap",
    "rng",
)
HUSH_KEYS = ("kind", "row", "col", "dormantTicks", "clock", "awakeTicks")
TILE_KEYS = ("row", "col")
TEETER_KEYS = ("dir", "ticks")
#: each phase that counts down, with the most ticks it can have left
PHASE_LENGTHS = {STAGE_INTRO: INTRO_TICKS, RECOVERING: RECOVER_TICKS, STAGE_CLEAR: CLEAR_TICKS}


def tile_json(tile: int) -> dict[str, int]:
    row, col = CELLS[tile]
    return {"row": row, "col": col}


def direction_json(direction: int) -> str | None:
    return None if direction == NO_DIRECTION else DIRECTIONS[direction]


def teeter_json(state: State) -> dict[str, Any] | None:
    if not state.teeter:
        return None
    return {"dir": DIRECTIONS[state.teeter_dir], "ticks": state.teeter}


def to_json(state: State) -> dict[str, Any]:
    found = state.hush
    return {
        "game": GAME_TAG,
        "status": STATUSES[state.status],
        "stage": state.stage,
        "target": state.target,
        "tiles": list(state.tiles),
        "position": tile_json(state.position),
        "hopCooldown": state.cooldown,
        "bufferedHop": direction_json(state.buffered),
        "teeter": teeter_json(state),
        "lives": state.lives,
        "chain": state.chain,
        "rings": state.rings,
        "tollCharges": state.charges,
        "tollCooldown": state.toll_cooldown,
        "shimmerTicks": state.shimmer,
        "phaseTicks": state.phase_ticks,
        "hush": [
            {
                "kind": KINDS[found[at + H_KIND]],
                **tile_json(found[at + H_TILE]),
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


def from_json(data: Any) -> State:
    """The state a JSON form describes; :class:`StateError` says what is wrong with it."""
    data = need_object(data, StateError, WHAT)
    if data.get("game") != GAME_TAG:
        raise StateError(f"not a chimestep state (game is {data.get('game')!r})")
    need_keys(data, StateError, WHAT, STATE_KEYS)
    state = State()
    state.status = _status(data)
    state.stage = int_field(data, "stage", StateError, WHAT, low=1)
    state.target = int_field(data, "target", StateError, WHAT, LOW_TARGET, HIGH_TARGET)
    if state.target != target_for(state.stage):
        raise StateError(f"{WHAT}: stage {state.stage} has target {target_for(state.stage)}")
    state.tiles = _tiles(data, state.target)
    state.position = _tile(data["position"], TILE_KEYS, "position")
    state.cooldown = int_field(data, "hopCooldown", StateError, WHAT, 0, HOP_COOLDOWN)
    state.buffered = _direction(data["bufferedHop"], "bufferedHop")
    _read_teeter(state, data["teeter"])
    state.lives = int_field(data, "lives", StateError, WHAT, 0, START_LIVES)
    state.chain = int_field(data, "chain", StateError, WHAT)
    state.rings = int_field(data, "rings", StateError, WHAT)
    state.charges = int_field(data, "tollCharges", StateError, WHAT, 0, MAX_CHARGES)
    state.toll_cooldown = int_field(data, "tollCooldown", StateError, WHAT, 0, TOLL_COOLDOWN)
    state.shimmer = int_field(data, "shimmerTicks", StateError, WHAT, 0, SHIMMER_TICKS)
    longest = PHASE_LENGTHS.get(state.status, 0)
    state.phase_ticks = int_field(data, "phaseTicks", StateError, WHAT, 0, longest)
    if state.status in PHASE_LENGTHS and not state.phase_ticks:
        raise StateError(f"{WHAT}: phaseTicks must be positive while {data['status']}")
    state.hush = _read_hush(list_field(data, "hush", StateError, WHAT), state.stage)
    interval = spawn_interval(state.stage)
    state.spawn_clock = int_field(data, "spawnClock", StateError, WHAT, 0, interval)
    last = len(spawn_queue(state.stage)) - 1
    state.spawn_index = int_field(data, "spawnIndex", StateError, WHAT, 0, last)
    state.stage_hops = int_field(data, "stageHops", StateError, WHAT)
    state.stage_damped = int_field(data, "stageDamped", StateError, WHAT)
    state.score = int_field(data, "score", StateError, WHAT)
    state.tick = int_field(data, "tick", StateError, WHAT)
    state.free_leap = bool_field(data, "freeLeap", StateError, WHAT)
    state.rng = Rng.from_json(data["rng"])
    if (state.status == DONE) != (state.lives == 0):
        raise StateError(f"{WHAT}: status is done exactly when no lives are left")
    return state


def from_trusted_json(data: Any) -> State:
    """The state of a JSON form that :func:`to_json` of this same code wrote and a seal
    has authenticated since (see :meth:`Game.from_trusted_json`): the same state as
    :func:`from_json` gives, built without checking any field. Anything else must go
    through :func:`from_json`."""
    state = State()
    state.status = STATUS_INDEX[data["status"]]
    state.stage = data["stage"]
    state.target = data["target"]
    state.tiles = bytearray(data["tiles"])
    position = data["position"]
    state.position = index(position["row"], position["col"])
    state.cooldown = data["hopCooldown"]
    buffered = data["bufferedHop"]
    state.buffered = NO_DIRECTION if buffered is None else DIRECTION_INDEX[buffered]
    teeter = data["teeter"]
    if teeter is None:
        state.teeter, state.teeter_dir = 0, NO_DIRECTION
    else:
        state.teeter, state.teeter_dir = teeter["ticks"], DIRECTION_INDEX[teeter["dir"]]
    state.lives = data["lives"]
    state.chain = data["chain"]
    state.rings = data["rings"]
    state.charges = data["tollCharges"]
    state.toll_cooldown = data["tollCooldown"]
    state.shimmer = data["shimmerTicks"]
    state.phase_ticks = data["phaseTicks"]
    hush: list[int] = []
    for entry in data["hush"]:
        hush += (
            KIND_INDEX[entry["kind"]],
            index(entry["row"], entry["col"]),
            entry["dormantTicks"],
            entry["clock"],
            entry["awakeTicks"],
        )
    state.hush = hush
    state.spawn_clock = data["spawnClock"]
    state.spawn_index = data["spawnIndex"]
    state.stage_hops = data["stageHops"]
    state.stage_damped = data["stageDamped"]
    state.score = data["score"]
    state.tick = data["tick"]
    state.free_leap = data["freeLeap"]
    state.rng = Rng.from_json(data["rng"])
    return state


def _status(data: Mapping[str, Any]) -> int:
    status = data["status"]
    if status not in STATUSES:
        raise StateError(f"{WHAT}: status must be one of {', '.join(STATUSES)}, got {status!r}")
    return STATUSES.index(status)


def _tiles(data: Mapping[str, Any], target: int) -> bytearray:
    tiles = list_field(data, "tiles", StateError, WHAT)
    if len(tiles) != TILE_COUNT or not all(type(t) is int and 0 <= t <= target for t in tiles):
        raise StateError(f"{WHAT}: tiles must be {TILE_COUNT} integers from 0 to {target}")
    return bytearray(tiles)


def _tile(data: Any, keys: tuple[str, ...], what: str) -> int:
    data = need_object(data, StateError, f"{WHAT} {what}")
    need_keys(data, StateError, f"{WHAT} {what}", keys)
    row, col = data["row"], data["col"]
    if type(row) is not int or type(col) is not int or not on_pyramid(row, col):
        raise StateError(
            f"{WHAT}: {what} must be a tile of the pyramid, got row {row!r} col {col!r}"
        )
    return index(row, col)


def _direction(value: Any, what: str) -> int:
    if value is None:
        return NO_DIRECTION
    if not isinstance(value, str) or value not in DIRECTION_INDEX:
        raise StateError(
            f"{WHAT}: {what} must be null or one of {', '.join(DIRECTIONS)}, got {value!r}"
        )
    return DIRECTION_INDEX[value]


def _read_teeter(state: State, teeter: Any) -> None:
    if teeter is None:
        state.teeter, state.teeter_dir = 0, NO_DIRECTION
        return
    what = f"{WHAT} teeter"
    teeter = need_object(teeter, StateError, what)
    need_keys(teeter, StateError, what, TEETER_KEYS)
    if teeter["dir"] is None:
        raise StateError(f"{what}: dir must be a direction")
    state.teeter_dir = _direction(teeter["dir"], "teeter dir")
    state.teeter = int_field(teeter, "ticks", StateError, what, 1, TEETER_TICKS)


def _read_hush(entries: list[Any], stage: int) -> list[int]:
    if len(entries) > HUSH_CAP_MAX:
        raise StateError(f"{WHAT}: hush must hold at most {HUSH_CAP_MAX} entries")
    flat: list[int] = []
    for number, entry in enumerate(entries):
        what = f"{WHAT} hush entry {number}"
        entry = need_object(entry, StateError, what)
        need_keys(entry, StateError, what, HUSH_KEYS)
        name = entry["kind"]
        kind = KIND_INDEX.get(name) if isinstance(name, str) else None
        if kind is None:
            raise StateError(f"{what}: kind must be one of {', '.join(KINDS)}, got {name!r}")
        tile = _tile({"row": entry["row"], "col": entry["col"]}, TILE_KEYS, what)
        dormant = int_field(entry, "dormantTicks", StateError, what, 0, DORMANT_TICKS)
        clock = int_field(entry, "clock", StateError, what, 0, period(kind, stage))
        lifetime = MUFFLE_LIFETIME - 1 if kind == MUFFLE else MAX_COUNT
        awake = int_field(entry, "awakeTicks", StateError, what, 0, lifetime)
        if not dormant and not clock:
            raise StateError(f"{what}: an awake hush must have a clock of at least 1")
        flat += (kind, tile, dormant, clock, awake)
    return flat
