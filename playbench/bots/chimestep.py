"""Chimestep bots: the greedy baseline and the lookahead planner.

Both play from a :meth:`Match.view` dict alone (its observation, its board text and its
legal actions) and their own memory; neither ever sees the state's generator, spawn
clock or Hush clocks.

The planner keeps a *model* of the game: a :class:`State` rebuilt from every view, whose
hidden parts are carried forward by stepping the previous model with the rules and the
bot's own generator (the Hush clocks, the muffles' time awake, the spawn clock and queue
position are all set by visible events, so a bot that watches every tick knows them
exactly), while every visible part (tiles, chick, Hush tiles, lives, phase) is copied
from the view. Only the random choices stay unknown: where a tumble rolls, where a muffle
wanders, where the next Hush appears. The planner treats them as chances: it spreads
each tumble and muffle over the tiles it may reach tick by tick, simulates the stalkers
exactly (they are deterministic), and searches every sequence of a few hops and waits
for the one with the best rings against the chance of being damped. Around that search:
it tolls as soon as a Hush that could reach it next step (or any muffle) is in range,
ticks one at a time while playing so it sees every move, and spends the free leap off
the rim when every plan is likely to cost a life.

Strength and speed (``benchmarks/strength_chimestep.py``, seeds 0-19, runs stopped at
stage 31): every seed reached stage 31, so the median stage is at least 31, against the
greedy baseline's 7. A move (one ``act`` and one ``play``) took 13.6 ms on average on 2
busy cores (load average 11), 5-6 ms when the machine was quieter: a planned hop costs a
search of about a thousand nodes, the four ticks between hops cost a rebuild each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playbench.core import Rng
from playbench.games.chimestep import rules
from playbench.games.chimestep.board import (
    ADJACENT,
    BASE_ROW,
    DIRECTION_INDEX,
    DIRECTIONS,
    DISTANCE,
    DOWN_LEFT,
    DOWN_RIGHT,
    NEIGHBOR,
    OFF,
    ROW_OF,
    TILE_COUNT,
    index,
)
from playbench.games.chimestep.hush import stalker_step
from playbench.games.chimestep.state import (
    H_AWAKE,
    H_CLOCK,
    H_DORMANT,
    H_KIND,
    H_TILE,
    HUSH_FIELDS,
    NO_DIRECTION,
    PLAYING,
    STATUSES,
    State,
)
from playbench.games.chimestep.tables import (
    DORMANT_TICKS,
    HOP_COOLDOWN,
    KIND_INDEX,
    MAX_CHARGES,
    MUFFLE,
    MUFFLE_LIFETIME,
    RINGS_PER_CHARGE,
    STALKER,
    TOLL_COOLDOWN,
    TUMBLE,
    period,
    spawn_interval,
    spawn_queue,
)

START = {"type": "start"}
TOLL = {"type": "toll"}
TICK = {"type": "tick"}
#: how many ticks a waiting phase may be skipped in one action
MAX_TICK_COUNT = 30


def _tile(position: dict[str, int]) -> int:
    return index(position["row"], position["col"])


def _levels(observation: dict[str, Any]) -> list[int]:
    return [level for tier in observation["tiles"] for level in tier]


def _hop(direction: int) -> dict[str, str]:
    return {"type": "hop", "dir": DIRECTIONS[direction]}


def _wait_out_phase(view: dict[str, Any]) -> dict[str, Any]:
    """Outside play: start, or skip the phase in as few ticks as the board says."""
    observation = view["observation"]
    if observation["status"] == "waiting":
        return START
    count = min(MAX_TICK_COUNT, observation["phaseTicks"]) or 1
    return {"type": "tick", "count": count} if count > 1 else TICK


# -- the greedy baseline ---------------------------------------------------------------------
def greedy_action(view: dict[str, Any]) -> dict[str, Any]:
    """A simple player: toll when an awake Hush is next to it, else hop towards the nearest
    tile below the target (avoiding awake Hush), else let 4 ticks pass."""
    observation = view["observation"]
    if observation["status"] != "playing":
        return START if observation["status"] == "waiting" else {"type": "tick", "count": 4}
    here = _tile(observation["position"])
    danger = {index(h["row"], h["col"]) for h in observation["hushCells"]}
    if danger & {here, *ADJACENT[here]} and TOLL in view["legalActions"]:
        return TOLL
    if observation["hopCooldown"] or observation["bufferedHop"]:
        return {"type": "tick", "count": max(1, observation["hopCooldown"])}
    levels = _levels(observation)
    first_step: dict[int, int | None] = {here: None}
    frontier = [here]
    while frontier:
        following = []
        for tile in frontier:
            for direction, target in enumerate(NEIGHBOR[tile]):
                if target == OFF or target in first_step or target in danger:
                    continue
                step = first_step[tile]
                first_step[target] = step if step is not None else direction
                if levels[target] < observation["target"]:
                    return _hop(first_step[target])
                following.append(target)
        frontier = following
    return {"type": "tick", "count": 4}


class GreedyBot:
    """The simple baseline: :func:`greedy_action` on every view."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        return greedy_action(view)


# -- the model: a state rebuilt from the view --------------------------------------------------
def _observed_hush(observation: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(kind, tile, dormant ticks) of every Hush in spawn order: the awake ones are older
    than every dormant one, so the awake list then the dormant list is that order."""
    found = [
        (KIND_INDEX[h["kind"]], index(h["row"], h["col"]), 0) for h in observation["hushCells"]
    ]
    found += [
        (KIND_INDEX[h["kind"]], index(h["row"], h["col"]), h["dormantTicks"])
        for h in observation["dormantHush"]
    ]
    return found


def rebuild(view: dict[str, Any], predicted: State | None, rng: Rng) -> State:
    """A state that shows exactly what ``view`` shows, its hidden parts taken from
    ``predicted`` (the previous model stepped by the rules) where they still fit."""
    observation = view["observation"]
    model = State()
    model.status = STATUSES.index(observation["status"])
    model.stage = observation["stage"]
    model.target = observation["target"]
    model.tiles = bytearray(_levels(observation))
    model.position = _tile(observation["position"])
    model.cooldown = observation["hopCooldown"]
    buffered = observation["bufferedHop"]
    model.buffered = NO_DIRECTION if buffered is None else DIRECTION_INDEX[buffered]
    teeter = observation["teeter"]
    model.teeter = 0 if teeter is None else teeter["ticks"]
    model.teeter_dir = NO_DIRECTION if teeter is None else DIRECTION_INDEX[teeter["dir"]]
    model.lives = observation["lives"]
    model.chain = observation["chain"]
    model.charges = observation["tollCharges"]
    model.toll_cooldown = observation["tollCooldown"]
    model.shimmer = observation["shimmerTicks"]
    model.phase_ticks = observation["phaseTicks"]
    model.stage_hops = observation["stageHops"]
    model.stage_damped = observation["stageDamped"]
    model.score = observation["score"]
    model.tick = observation["tick"]
    model.rng = rng
    same_stage = predicted is not None and predicted.stage == model.stage
    model.rings = predicted.rings if predicted is not None else 0
    model.free_leap = predicted.free_leap if predicted is not None else True
    model.spawn_clock = predicted.spawn_clock if same_stage else spawn_interval(model.stage)
    model.spawn_index = predicted.spawn_index if same_stage else 0
    model.hush = _match_hush(model, _observed_hush(observation), predicted if same_stage else None)
    return model


def _match_hush(
    model: State, seen: list[tuple[int, int, int]], predicted: State | None
) -> list[int]:
    """The Hush as seen, each with the clock and time awake of the predicted Hush it is
    (matched in spawn order by kind); a Hush the prediction lacks is a spawn it missed,
    which also sets the spawn clock and queue. A bot that sees every tick of play never
    needs the corrections: its prediction is exact but for the random tiles."""
    guessed = predicted.hush if predicted is not None else []
    flat: list[int] = []
    at = 0
    for kind, tile, dormant in seen:
        while at < len(guessed) and guessed[at + H_KIND] != kind:
            at += HUSH_FIELDS
        if at < len(guessed):
            clock, awake = guessed[at + H_CLOCK], guessed[at + H_AWAKE]
            every = period(kind, model.stage)
            fired = clock == every and awake > 0
            if dormant:
                clock = 0
            elif tile != guessed[at + H_TILE] and not fired:
                # it stepped when the prediction said it would not: its clock restarts
                clock = every
            elif not clock:
                # awake earlier than predicted: it may step on the very next tick
                clock = 1
            at += HUSH_FIELDS
        else:
            clock = 0 if dormant else 1
            awake = 0
            if dormant == DORMANT_TICKS:
                queue = spawn_queue(model.stage)
                model.spawn_clock = spawn_interval(model.stage)
                model.spawn_index = (queue.index(kind) + 1) % len(queue)
        flat += (kind, tile, dormant, clock, awake)
    return flat


# -- chances: where the tumbles and muffles may be -----------------------------------------------
@dataclass
class Chances:
    """For each tick ``t`` from now (0 = now): ``occupied[t][tile]``, the chance that an
    awake tumble or muffle stands on ``tile`` after the Hush move of tick ``t``, and
    ``arriving[t][tile]``, the chance that one steps onto it (or wakes on it) in tick
    ``t``; ``muffles[t]`` lists where each muffle may be."""

    occupied: list[list[float]]
    arriving: list[list[float]]
    muffles: list[list[dict[int, float]]] = field(default_factory=list)


def chances(model: State, horizon: int) -> Chances:
    occupied = [[0.0] * TILE_COUNT for _ in range(horizon + 1)]
    arriving = [[0.0] * TILE_COUNT for _ in range(horizon + 1)]
    muffles: list[list[dict[int, float]]] = [[] for _ in range(horizon + 1)]
    found = model.hush
    stage = model.stage
    for at in range(0, len(found), HUSH_FIELDS):
        kind = found[at + H_KIND]
        if kind == STALKER:
            continue
        spread = {found[at + H_TILE]: 1.0}
        dormant, clock, awake = found[at + H_DORMANT], found[at + H_CLOCK], found[at + H_AWAKE]
        every = period(kind, stage)
        for tick in range(horizon + 1):
            if tick:
                if dormant:
                    dormant -= 1
                    if dormant:
                        continue
                    clock = every
                    for tile, chance in spread.items():
                        arriving[tick][tile] += chance
                else:
                    awake += 1
                    if kind == MUFFLE and awake >= MUFFLE_LIFETIME:
                        break
                    clock -= 1
                    if not clock:
                        clock = every
                        spread = _spread(kind, spread)
                        for tile, chance in spread.items():
                            arriving[tick][tile] += chance
            elif dormant:
                continue
            for tile, chance in spread.items():
                occupied[tick][tile] += chance
            if kind == MUFFLE:
                muffles[tick].append(spread)
    return Chances(occupied, arriving, muffles)


def _spread(kind: int, spread: dict[int, float]) -> dict[int, float]:
    after: dict[int, float] = {}
    for tile, chance in spread.items():
        if kind == TUMBLE:
            if ROW_OF[tile] == BASE_ROW:
                continue
            targets = (NEIGHBOR[tile][DOWN_LEFT], NEIGHBOR[tile][DOWN_RIGHT])
        else:
            targets = ADJACENT[tile]
        share = chance / len(targets)
        for target in targets:
            after[target] = after.get(target, 0.0) + share
    return after


#: every tile's tiles, nearest first
BY_DISTANCE = tuple(
    tuple(sorted(range(TILE_COUNT), key=lambda other, tile=tile: DISTANCE[tile][other]))
    for tile in range(TILE_COUNT)
)


def _running_totals(arriving: list[list[float]]) -> list[list[float]]:
    """``totals[t][tile]``: the chances of arrival on ``tile`` summed over ticks 0..t."""
    totals = [list(arriving[0])]
    for row in arriving[1:]:
        totals.append([before + now for before, now in zip(totals[-1], row, strict=True)])
    return totals


# -- the planner ---------------------------------------------------------------------------------
#: hops planned ahead, and the ticks one planned wait lasts
DEPTH = 4
WAIT_TICKS = HOP_COOLDOWN
WAIT = -1
#: a wait as the plan's first move lasts one tick (the bot looks again after it) and
#: leaves the plan its full depth of hops
FIRST_WAIT_TICKS = 1
#: past the plan's last move, the ticks over which the chick's tile (or the safest
#: neighbour it could still hop to) is judged, and the weight of that last danger
BEYOND = 8
BEYOND_WEIGHT = 0.7
#: a ring is worth more than the longest way to the next tile costs (12 hops), so a
#: plan never leaves a tile unrung to stay near the others; rings further ahead count a
#: little less; a damping costs hundreds of rings
RING = 5.0
LATER = 0.95
DAMPED = 2000.0
#: the last plan's tile: each hop to the nearest tile still to ring costs this much
DISTANCE_WEIGHT = 0.35
#: with a toll in hand, each step towards a muffle is worth this much
HUNT_WEIGHT = 0.6
#: with the toll ready, this share of a tumble's or muffle's step onto the chick is not met
TOLL_MISS = 0.15
#: without the toll, a plan that ends within this many steps of a stalker pays this per step
CROWDED = 2
CROWD_WEIGHT = 1.0
#: below this chance of getting through the plan undamped, the free leap is taken
LEAP_BELOW = 0.3


class Planner:
    """The search over hops and waits for one decision.

    A plan is simulated tick by tick: the stalkers exactly, the tumbles and muffles as
    chances. The toll is part of the plan: whenever it is ready (a charge in hand, the
    cooldown run out) and a stalker stands next to the chick, the plan tolls it away (as
    the bot does), and a tumble or muffle stepping in is mostly met the same way, so
    with the toll ready that chance counts only ``TOLL_MISS`` of itself.
    """

    def __init__(self, model: State) -> None:
        self.model = model
        self.target = model.target
        self.levels = list(model.tiles)
        self.horizon = FIRST_WAIT_TICKS + DEPTH * HOP_COOLDOWN
        self.chances = chances(model, self.horizon + BEYOND)
        self.total = _running_totals(self.chances.arriving)
        self.shimmer = model.shimmer
        self.stalker_period = period(STALKER, model.stage)
        found = model.hush
        self.stalkers = tuple(
            (found[at + H_TILE], found[at + H_DORMANT], found[at + H_CLOCK])
            for at in range(0, len(found), HUSH_FIELDS)
            if found[at + H_KIND] == STALKER
        )
        self.hunting = bool(model.charges) and any(self.chances.muffles[0])
        self.muffle_distances: dict[tuple[int, int], float] = {}

    def best(self) -> tuple[int, float]:
        """The first move of the best plan (a direction, or WAIT) and that plan's chance of
        getting through undamped."""
        model = self.model
        toll = Toll(model.toll_cooldown, model.charges, model.rings)
        best_move, best_value, best_safe = WAIT, float("-inf"), 0.0
        for move in self._moves(model.position):
            value, safe = self._search(model.position, 0, self.stalkers, toll, (), move, 0, 1.0)
            if value > best_value:
                best_move, best_value, best_safe = move, value, safe
        return best_move, best_safe

    @staticmethod
    def _moves(tile: int) -> list[int]:
        return [d for d, target in enumerate(NEIGHBOR[tile]) if target != OFF] + [WAIT]

    def _search(
        self,
        tile: int,
        tick: int,
        stalkers: tuple,
        toll: Toll,
        rung: tuple[int, ...],
        move: int,
        depth: int,
        safe: float,
    ) -> tuple[float, float]:
        """(value, chance undamped) of ``move`` from ``tile`` at ``tick``, then the best
        continuation."""
        occupied, arriving = self.chances.occupied, self.chances.arriving
        gain = 0.0
        if move == WAIT:
            ticks = WAIT_TICKS if depth or tick else FIRST_WAIT_TICKS
        else:
            ticks = HOP_COOLDOWN
            tile = NEIGHBOR[tile][move]
            if tick >= self.shimmer:
                if any(s[0] == tile and not s[1] for s in stalkers):
                    return -DAMPED, 0.0
                safe *= 1.0 - min(1.0, occupied[tick][tile])
            if self.levels[tile] + rung.count(tile) < self.target:
                gain = RING * safe * LATER**depth
                rung = (*rung, tile)
                toll = toll.rung()
            if stalkers:
                stalkers, toll = self._toll(stalkers, toll, tile, tick)
        for _ in range(ticks):
            tick += 1
            hit = False
            if stalkers:
                stalkers, hit = self._stalkers_tick(stalkers, tile)
            if tick >= self.shimmer:
                if hit:
                    return gain - DAMPED, 0.0
                risk = arriving[tick][tile]
                if risk:
                    if toll.ready(tick):
                        risk *= TOLL_MISS
                    safe *= 1.0 - min(1.0, risk)
            if stalkers:
                stalkers, toll = self._toll(stalkers, toll, tile, tick)
        deeper = depth if move == WAIT and ticks == FIRST_WAIT_TICKS else depth + 1
        if deeper == DEPTH:
            leaf = self._leaf(tile, tick, rung, stalkers, toll)
            danger = BEYOND_WEIGHT * self._danger_beyond(tile, tick)
            return gain + safe * (leaf - DAMPED * danger) - DAMPED * (1.0 - safe), safe
        best, best_safe = float("-inf"), 0.0
        for following in self._moves(tile):
            value, end_safe = self._search(
                tile, tick, stalkers, toll, rung, following, deeper, safe
            )
            if value > best:
                best, best_safe = value, end_safe
        return gain + best, best_safe

    def _danger_beyond(self, tile: int, tick: int) -> float:
        """The chance of a tumble or muffle reaching the chick in the ``BEYOND`` ticks after
        the plan, staying put or hopping at once to the safest neighbour."""
        total, occupied = self.total, self.chances.occupied[tick]
        now, later = total[tick], total[tick + BEYOND]
        danger = later[tile] - now[tile]
        for near in ADJACENT[tile]:
            danger = min(danger, occupied[near] + later[near] - now[near])
        return min(1.0, danger)

    @staticmethod
    def _toll(stalkers: tuple, toll: Toll, chick: int, tick: int) -> tuple[tuple, Toll]:
        """The bot's toll at ``tick``: awake stalkers next to the chick are scattered."""
        near = DISTANCE[chick]
        if not toll.ready(tick) or not any(near[s[0]] <= 1 and not s[1] for s in stalkers):
            return stalkers, toll
        kept = tuple(s for s in stalkers if s[1] or near[s[0]] > 1)
        return kept, toll.spent(tick)

    def _stalkers_tick(self, stalkers: tuple, chick: int) -> tuple[tuple, bool]:
        moved = []
        hit = False
        for tile, dormant, clock in stalkers:
            if dormant:
                dormant -= 1
                if not dormant:
                    clock = self.stalker_period
            else:
                clock -= 1
                if not clock:
                    clock = self.stalker_period
                    tile = stalker_step(tile, chick)
            if not dormant and tile == chick:
                hit = True
            moved.append((tile, dormant, clock))
        return tuple(moved), hit

    def _leaf(
        self, tile: int, tick: int, rung: tuple[int, ...], stalkers: tuple, toll: Toll
    ) -> float:
        near = DISTANCE[tile]
        target = self.target
        levels = self.levels
        distance = 0
        for other in BY_DISTANCE[tile]:
            if levels[other] + rung.count(other) < target:
                distance = near[other]
                break
        value = -DISTANCE_WEIGHT * distance
        if not toll.ready(tick):
            for stalker, dormant, _ in stalkers:
                if not dormant and near[stalker] <= CROWDED:
                    value -= CROWD_WEIGHT * (CROWDED + 1 - near[stalker])
        if self.hunting:
            value -= HUNT_WEIGHT * self._muffle_distance(tile, tick)
        return value

    def _muffle_distance(self, tile: int, tick: int) -> float:
        """The expected hops from ``tile`` to the nearest muffle after ``tick``."""
        key = (tile, tick)
        known = self.muffle_distances.get(key)
        if known is None:
            near = DISTANCE[tile]
            spreads = self.chances.muffles[tick]
            known = min(
                (sum(chance * near[t] for t, chance in spread.items()) for spread in spreads),
                default=0.0,
            )
            self.muffle_distances[key] = known
        return known


@dataclass(frozen=True, slots=True)
class Toll:
    """The toll as a plan sees it: the tick it is ready from, the charges, the rings."""

    ready_at: int
    charges: int
    rings: int

    def ready(self, tick: int) -> bool:
        return self.charges > 0 and tick >= self.ready_at

    def rung(self) -> Toll:
        rings = self.rings + 1
        earned = not rings % RINGS_PER_CHARGE and self.charges < MAX_CHARGES
        return Toll(self.ready_at, self.charges + earned, rings)

    def spent(self, tick: int) -> Toll:
        return Toll(tick + TOLL_COOLDOWN, self.charges - 1, self.rings)


# -- the bot -------------------------------------------------------------------------------------
def _threatened(model: State) -> bool:
    """An awake Hush that could reach the chick's tile on its next step, or a muffle in
    toll range."""
    chick = model.position
    found = model.hush
    for at in range(0, len(found), HUSH_FIELDS):
        if found[at + H_DORMANT]:
            continue
        kind, tile = found[at + H_KIND], found[at + H_TILE]
        if DISTANCE[tile][chick] > 1:
            continue
        if kind != TUMBLE or tile == chick:
            return True
        if chick in (NEIGHBOR[tile][DOWN_LEFT], NEIGHBOR[tile][DOWN_RIGHT]):
            return True
    return False


class ChimestepBot:
    """The lookahead planner. ``act`` takes a view and returns one action."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng.from_seed(seed)
        self.model: State | None = None
        self.last: dict[str, Any] | None = None
        self.leap: int = NO_DIRECTION

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.model = rebuild(view, self._predicted(), self.rng)
        action = self._choose(view)
        self.last = action
        return action

    def _predicted(self) -> State | None:
        if self.model is None or self.last is None:
            return None
        outcome = rules.step(self.model, self.last)
        return outcome.state

    def _choose(self, view: dict[str, Any]) -> dict[str, Any]:
        model = self.model
        if model.status != PLAYING:
            self.leap = NO_DIRECTION
            return _wait_out_phase(view)
        if model.teeter and self.leap == model.teeter_dir:
            self.leap = NO_DIRECTION
            return _hop(model.teeter_dir)
        if TOLL in view["legalActions"] and _threatened(model):
            return TOLL
        if model.cooldown or model.buffered != NO_DIRECTION:
            return TICK
        move, safe = Planner(model).best()
        if safe < LEAP_BELOW and model.free_leap:
            edge = next((d for d, t in enumerate(NEIGHBOR[model.position]) if t == OFF), None)
            if edge is not None:
                self.leap = edge
                return _hop(edge)
        return TICK if move == WAIT else _hop(move)


def make_bot(seed: int) -> ChimestepBot:
    """The Chimestep bot of ``playbench run``: the lookahead planner."""
    return ChimestepBot(seed)
