"""The three Hush: dormancy, spawning, moves, the muffle, collisions and shimmer."""

from itertools import pairwise

import pytest

from playbench.core import Rng
from playbench.games.chimestep.board import DISTANCE, index
from playbench.games.chimestep.hush import (
    MUFFLE,
    STALKER,
    TUMBLE,
    hush_cap,
    period,
    spawn_interval,
    spawn_tile,
    stalker_step,
)

from .helpers import GAME, hush_entry, levels, playing, run, types, wait, where


def _tile(state, kind_list="hushCells"):
    return [(h["row"], h["col"]) for h in GAME.observe(state)[kind_list]]


@pytest.mark.parametrize(
    ("stalker", "chick", "expected"),
    [
        ((3, 1), (5, 2), (4, 2)),  # downRight and downLeft both close in: downRight first
        ((2, 1), (0, 0), (1, 1)),  # upRight and upLeft both close in: upRight first
        ((4, 1), (6, 1), (5, 1)),  # only downLeft closes in
        ((4, 3), (2, 1), (3, 2)),  # only upLeft closes in
        ((3, 0), (6, 3), (4, 1)),  # straight down the right diagonal
    ],
)
def test_the_stalker_takes_the_first_closing_move_in_the_tie_order(stalker, chick, expected):
    assert stalker_step(index(*stalker), index(*chick)) == index(*expected)


def test_the_stalker_steps_every_fourteen_ticks_on_stage_one_and_never_faster_than_ten():
    assert period(STALKER, 1) == 14
    assert [period(STALKER, s) for s in (2, 5, 6, 40)] == [13, 10, 10, 10]
    assert min(period(STALKER, s) for s in range(1, 50)) / 4 >= 2.4
    state = playing(hush=[hush_entry("stalker", 6, 0, clock=14)], spawnClock=72)
    state, _, _ = run(state, "tick 13")
    assert _tile(state) == [(6, 0)]
    state, _, _ = run(state, "tick")
    assert _tile(state) == [(5, 0)]
    state, _, _ = run(state, "tick 14")
    assert _tile(state) == [(4, 0)]


def test_periods_and_schedule_grow_harder_by_stage():
    assert [period(TUMBLE, s) for s in (1, 2, 3, 4, 9)] == [7, 6, 5, 4, 4]
    assert [period(MUFFLE, s) for s in (1, 2, 5, 9)] == [10, 9, 6, 6]
    assert [spawn_interval(s) for s in (1, 2, 8, 20)] == [72, 66, 30, 30]
    assert [hush_cap(s) for s in (1, 2, 3, 4, 6, 30)] == [1, 2, 2, 3, 4, 4]


def test_the_first_spawn_is_a_dormant_tumble_near_the_apex_after_72_ticks():
    state = playing(3)
    state, events, _ = run(state, "tick 30", "tick 30", "tick 11")
    assert "spawn" not in types(events)
    state, events, _ = run(state, "tick")
    assert types(events) == ["spawn"] and events[0]["kind"] == "tumble"
    dormant = GAME.observe(state)["dormantHush"]
    assert len(dormant) == 1 and dormant[0]["dormantTicks"] == 12
    assert dormant[0]["row"] <= 1 and (dormant[0]["row"], dormant[0]["col"]) != where(state)
    assert GAME.observe(state)["hushCells"] == []


def test_spawn_places_follow_the_rules_for_every_chick_tile():
    rng = Rng.from_seed(4)
    for chick in range(28):
        for _ in range(6):
            assert spawn_tile(TUMBLE, chick, rng) in {0, 1, 2} - {chick}
            corner = spawn_tile(STALKER, chick, rng)
            assert corner in (index(6, 0), index(6, 6)) and DISTANCE[chick][corner] >= 3
            assert DISTANCE[chick][corner] == max(
                DISTANCE[chick][c] for c in (index(6, 0), index(6, 6))
            )
            muffle = spawn_tile(MUFFLE, chick, rng)
            assert muffle >= index(3, 0) and DISTANCE[chick][muffle] >= 2


@pytest.mark.parametrize(
    ("chick", "corner"), [((0, 0), (6, 0)), ((4, 2), (6, 0)), ((5, 1), (6, 6)), ((6, 5), (6, 0))]
)
def test_the_stalker_corner_is_the_farther_one_without_randomness(chick, corner):
    before = Rng.from_seed(9)
    rng = before.copy()
    assert spawn_tile(STALKER, index(*chick), rng) == index(*corner)
    assert rng == before


def test_the_board_holds_at_most_the_cap_and_the_next_spawn_waits_for_a_place():
    state = playing(hush=[hush_entry("stalker", 6, 6, clock=14)], spawnClock=1)
    state, events, _ = run(state, "tick 5")
    assert "spawn" not in types(events)
    assert GAME.to_json(state)["spawnClock"] == 0


def test_a_dormant_hush_neither_moves_nor_touches_the_chick():
    state = playing(hush=[hush_entry("stalker", 1, 0, dormant=12)], spawnClock=72)
    state, events, _ = run(state, "hop downLeft", "tick 11")
    assert "damped" not in types(events) and GAME.observe(state)["lives"] == 3
    assert GAME.observe(state)["dormantHush"] == [
        {"kind": "stalker", "row": 1, "col": 0, "dormantTicks": 1}
    ]
    state, events, _ = run(state, "tick")
    assert types(events) == ["damped", "lifeLost"]


def test_an_awake_hush_stepping_onto_the_chick_costs_a_life():
    state = playing(position={"row": 2, "col": 1}, hush=[hush_entry("stalker", 3, 1)])
    state, events, _ = run(state, "tick")
    assert types(events) == ["damped", "lifeLost"]
    assert events[0] == {"type": "damped", "kind": "stalker", "row": 2, "col": 1, "points": 0}


def test_shimmer_protects_until_it_runs_out():
    state = playing(shimmerTicks=2, hush=[hush_entry("stalker", 1, 0, clock=14)])
    state, events, _ = run(state, "hop downLeft")
    assert types(events) == ["ring"] and GAME.observe(state)["lives"] == 3
    state, events, _ = run(state, "tick")
    assert "damped" not in types(events) and GAME.observe(state)["shimmerTicks"] == 1
    state, events, _ = run(state, "tick")
    assert types(events) == ["damped", "lifeLost"]


def test_a_hush_still_on_your_tile_when_the_shimmer_runs_out_costs_a_life():
    # the tumble would roll away on the next tick: it must not get the chance
    tumble = hush_entry("tumble", 1, 0, clock=2)
    state = playing(position={"row": 1, "col": 0}, shimmerTicks=1, hush=[tumble])
    state, events, _ = run(state, "tick")
    assert types(events) == ["damped", "lifeLost"]
    assert events[0] == {"type": "damped", "kind": "tumble", "row": 1, "col": 0, "points": 0}
    view = GAME.observe(state)
    assert (view["lives"], view["status"], view["hushCells"]) == (2, "recovering", [])


def test_a_life_loss_sweeps_the_board_keeps_levels_and_the_last_one_ends_the_run():
    tiles = levels(at={(0, 0): 1, (1, 1): 1, (2, 2): 1})
    hush = [hush_entry("stalker", 2, 1), hush_entry("muffle", 5, 3), hush_entry("tumble", 0, 0, 3)]
    state = playing(tiles=tiles, hush=hush, position={"row": 1, "col": 1}, lives=2)
    state, _, _ = run(state, "hop downLeft")
    view = GAME.observe(state)
    assert view["hushCells"] == [] and view["dormantHush"] == []
    assert where(state) == (0, 0) and view["lives"] == 1
    assert view["tiles"][:3] == [[1], [0, 1], [0, 1, 1]]
    state, _, _ = wait(state, 24)
    assert GAME.observe(state)["shimmerTicks"] == 36
    stalker = hush_entry("stalker", 1, 1, clock=14)
    state = GAME.from_json({**GAME.to_json(state), "hush": [stalker], "shimmerTicks": 0})
    state, events, _ = run(state, "hop downRight")
    assert types(events)[-1] == "gameOver" and GAME.observe(state)["status"] == "done"


def test_a_tumble_rolls_one_tier_per_step_and_leaves_off_the_base():
    state = playing(position={"row": 6, "col": 6}, hush=[hush_entry("tumble", 0, 0, clock=7)])
    path = []
    for _ in range(6):
        state, _, _ = run(state, "tick 7")
        path += _tile(state)
    assert [row for row, _ in path] == [1, 2, 3, 4, 5, 6]
    assert all(b - a in (0, 1) for (_, a), (_, b) in pairwise(path))
    state, events, _ = run(state, "tick 7")
    assert types(events) == ["rollOff"] and GAME.observe(state)["lives"] == 3


def test_a_tumble_at_the_base_rolls_off():
    state = playing(hush=[hush_entry("tumble", 6, 3, clock=1)])
    state, events, _ = run(state, "tick")
    assert types(events) == ["rollOff"] and GAME.observe(state)["hushCells"] == []


def test_a_muffle_lowers_the_tile_it_lands_on_and_remaining_rises():
    tiles = levels(fill=1, at={(6, 0): 0})
    state = playing(tiles=tiles, hush=[hush_entry("muffle", 6, 0, clock=1)])
    assert GAME.observe(state)["remaining"] == 1
    state, events, _ = run(state, "tick")
    # from the base corner the only move is upRight to (5, 0)
    assert events == [{"type": "muffle", "row": 5, "col": 0, "level": 0, "points": 0}]
    view = GAME.observe(state)
    assert view["remaining"] == 2 and view["tiles"][5][0] == 0


def test_a_muffle_landing_on_level_zero_changes_nothing():
    state = playing(hush=[hush_entry("muffle", 6, 0, clock=1)])
    state, events, _ = run(state, "tick")
    assert events == [] and GAME.observe(state)["remaining"] == 27


def test_a_muffle_at_target_two_lowers_by_one():
    tiles = levels(fill=2)
    state = playing(
        stage=3,
        target=2,
        tiles=tiles,
        spawnClock=60,
        hush=[hush_entry("muffle", 6, 6, clock=1)],
    )
    state, _, _ = run(state, "tick")
    view = GAME.observe(state)
    assert view["tiles"][5][5] == 1 and view["remaining"] == 1


def test_a_muffle_disperses_after_168_ticks_awake():
    state = playing(hush=[hush_entry("muffle", 6, 0, clock=10, awake=160)], spawnClock=72)
    state, events, _ = run(state, "tick 7")
    assert "disperse" not in types(events) and len(GAME.observe(state)["hushCells"]) == 1
    state, events, _ = run(state, "tick")
    assert "disperse" in types(events) and GAME.observe(state)["hushCells"] == []


def test_the_spawn_queue_cycles_tumble_tumble_stalker_on_stage_one():
    state = playing(5, spawnClock=1, hush=[])
    kinds = []
    for _ in range(3):
        state, events, _ = run(state, "tick")
        kinds += [e["kind"] for e in events if e["type"] == "spawn"]
        state = GAME.from_json({**GAME.to_json(state), "hush": [], "spawnClock": 1})
    assert kinds == ["tumble", "tumble", "stalker"]
