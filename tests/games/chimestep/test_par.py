"""Fact 4: par. The bipartite board forces three re-landings at target 1; a 30-hop clear
exists and a 27-hop one never does."""

from hypothesis import given
from hypothesis import strategies as st

from playbench.games.chimestep.board import DIRECTIONS, NEIGHBOR, OFF, ROW_OF, TILE_COUNT, index

from .helpers import GAME, playing, run, types, where

ROUTE = (
    ["downLeft"] * 6
    + ["upRight", "downRight"]
    + ["upRight"] * 5
    + ["downRight"]
    + ["downLeft"] * 4
    + ["upRight", "downRight"]
    + ["upRight"] * 3
    + ["downRight", "downLeft", "downLeft", "upRight", "downRight", "upRight", "downRight"]
)


def test_the_board_is_bipartite_by_tier_parity_with_16_even_and_12_odd_tiles():
    even = [t for t in range(TILE_COUNT) if ROW_OF[t] % 2 == 0]
    assert (len(even), TILE_COUNT - len(even)) == (16, 12)
    for tile in range(TILE_COUNT):
        for target in NEIGHBOR[tile]:
            assert target == OFF or (ROW_OF[target] - ROW_OF[tile]) % 2 == 1


def _expected_ring_points(route):
    """Points of the landings of ``route`` from the apex at target 1, counted by hand."""
    tile, rung, chain, total, relandings = 0, {0}, 0, 0, 0
    for name in route:
        tile = NEIGHBOR[tile][("upLeft", "upRight", "downLeft", "downRight").index(name)]
        if tile in rung:
            chain, relandings = 0, relandings + 1
        else:
            rung.add(tile)
            chain += 1
            total += 10 + 25 + 2 * min(chain, 10)
    return total, relandings, len(rung)


def test_a_thirty_hop_clear_exists_with_exactly_three_relandings():
    assert len(ROUTE) == 30
    points, relandings, rung = _expected_ring_points(ROUTE)
    assert (relandings, rung) == (3, 28)
    state = playing(1)
    events = []
    for number, direction in enumerate(ROUTE, 1):
        state, new, _ = run(state, f"hop {direction}")
        events += new
        if number < len(ROUTE):
            state, new, _ = run(state, "tick 4")
            events += new
    kinds = types(events)
    assert kinds.count("ring") == 27 and kinds.count("land") == 3 and "damped" not in kinds
    assert kinds[-1] == "stageClear" and events[-1]["stageHops"] == 30
    assert events[-1]["points"] == 250 + 300 + 500 + 750
    assert GAME.score(state) == points + 1800
    assert GAME.observe(state)["status"] == "stageClear"


@given(st.lists(st.integers(min_value=0, max_value=3), min_size=27, max_size=27))
def test_no_walk_of_27_hops_clears_the_stage(choices):
    state = playing(1)
    for choice in choices:
        row, col = where(state)
        options = [d for d in range(4) if NEIGHBOR[index(row, col)][d] != OFF]
        hop = {"type": "hop", "dir": DIRECTIONS[options[choice % len(options)]]}
        state = GAME.step(state, hop).state
        state = GAME.step(state, {"type": "tick", "count": 4}).state
        if GAME.observe(state)["status"] == "recovering":
            state = GAME.step(state, {"type": "tick", "count": 24}).state
    view = GAME.observe(state)
    assert view["stageHops"] <= 27 and view["stage"] == 1
    assert view["status"] != "stageClear" and view["remaining"] > 0
    # the bound behind it: the apex plus at most 13 landings on even tiers
    rung_even = sum(
        level for row, tier in enumerate(view["tiles"]) if row % 2 == 0 for level in tier
    )
    assert rung_even <= 14


def test_par_is_30_at_target_one_and_62_at_target_two():
    assert GAME.observe(playing())["par"] == 30
    assert GAME.observe(playing(stage=3, target=2, spawnClock=60))["par"] == 62
