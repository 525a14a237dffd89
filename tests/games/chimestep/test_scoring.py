"""Every scoring line with exact numbers."""

import pytest

from .helpers import GAME, hush_entry, levels, playing, run, types, wait


def test_a_ring_to_the_target_pays_ten_plus_twenty_five_plus_chain():
    state, events, reward = run(playing(), "hop downLeft")
    assert reward == 10 + 25 + 2 == 37
    assert events[0] == {
        "type": "ring",
        "dir": "downLeft",
        "row": 1,
        "col": 0,
        "level": 1,
        "chain": 1,
        "points": 37,
    }
    assert GAME.score(state) == 37


def test_chain_bonus_grows_by_two_per_ring():
    _, events, reward = run(playing(), "hop downLeft", "tick 4", "hop downRight")
    assert [e["points"] for e in events if e["type"] == "ring"] == [37, 39]
    assert reward == 76


@pytest.mark.parametrize(
    ("chain_before", "points"), [(8, 10 + 25 + 18), (9, 55), (10, 55), (40, 55)]
)
def test_chain_bonus_is_capped_at_ten(chain_before, points):
    _, _, reward = run(playing(chain=chain_before), "hop downLeft")
    assert reward == points


def test_at_target_two_the_first_strike_pays_no_target_bonus():
    state = playing(stage=3, target=2, tiles=levels(at={(0, 0): 1}), spawnClock=60)
    state, _, reward = run(state, "hop downLeft")
    assert reward == 10 + 2
    state, _, reward = run(state, "tick 4", "hop upRight", "tick 4", "hop downLeft")
    # upRight lands on the apex (1 -> 2): 10 + 25 + 4; downLeft (1, 0) 1 -> 2: 10 + 25 + 6
    assert reward == 39 + 41
    assert GAME.observe(state)["tiles"][:2] == [[2], [2, 0]]


def test_a_landing_that_raises_nothing_pays_nothing_and_resets_the_chain():
    state, _, _ = run(playing(), "hop downLeft", "tick 4")
    state, events, reward = run(state, "hop upRight")
    assert reward == 0 and GAME.observe(state)["chain"] == 0
    assert events == [{"type": "land", "dir": "upRight", "row": 0, "col": 0, "points": 0}]
    _, _, reward = run(state, "tick 4", "hop downRight")
    assert reward == 37


def test_a_life_loss_resets_the_chain_and_costs_no_points():
    state = playing(chain=7, score=500, hush=[hush_entry("tumble", 1, 0)])
    state, events, reward = run(state, "hop downLeft")
    assert types(events) == ["ring", "damped", "lifeLost"]
    assert reward == 10 + 25 + 16
    assert GAME.observe(state)["chain"] == 0 and GAME.score(state) == 551


def test_the_chain_persists_across_a_stage_clear():
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}), chain=12, stageHops=29)
    state, _, _ = run(state, "hop downLeft")
    state, _, _ = wait(state, 36 + 24 + 4)
    assert GAME.observe(state)["chain"] == 13 and GAME.observe(state)["stage"] == 2
    _, events, _ = run(state, "hop downLeft")
    assert events[0]["chain"] == 14 and events[0]["points"] == 10 + 25 + 20


def _clear(stage, target, hops, damped, lives, chain=0):
    spawn = {1: 72, 2: 66, 3: 60, 4: 54, 5: 48, 6: 42, 7: 36, 8: 30}[stage]
    state = playing(
        stage=stage,
        target=target,
        tiles=levels(fill=target, at={(1, 0): target - 1}),
        stageHops=hops - 1,
        stageDamped=damped,
        lives=lives,
        chain=chain,
        spawnClock=spawn,
    )
    state, events, reward = run(state, "hop downLeft")
    assert types(events) == ["ring", "stageClear"]
    return events[1], reward - events[0]["points"]


def test_a_par_clear_on_stage_one_pays_every_line():
    clear, points = _clear(stage=1, target=1, hops=30, damped=0, lives=3)
    assert clear == {
        "type": "stageClear",
        "stage": 1,
        "stageHops": 30,
        "par": 30,
        "stagePoints": 250,
        "efficiency": 300,
        "parBonus": 500,
        "lifePoints": 750,
        "points": 1800,
    }
    assert points == 1800


def test_efficiency_uses_the_window_and_par_bonus_needs_par_plus_damped():
    # stage 4: par 62, window min(40, 15 + 15) = 30; 20 x (92 - 80) = 240; 80 > 63 so no 500
    clear, points = _clear(stage=4, target=2, hops=80, damped=1, lives=2)
    assert (clear["stagePoints"], clear["efficiency"], clear["parBonus"]) == (1000, 240, 0)
    assert clear["lifePoints"] == 500 and points == 1740


def test_par_bonus_counts_damped_hops():
    clear, _ = _clear(stage=3, target=2, hops=64, damped=2, lives=1)
    # window 25: 20 x (62 + 25 - 64) = 460 -> capped at 300
    assert (clear["efficiency"], clear["parBonus"], clear["lifePoints"]) == (300, 500, 250)
    clear, _ = _clear(stage=3, target=2, hops=65, damped=2, lives=1)
    assert clear["parBonus"] == 0


def test_efficiency_is_zero_far_over_par_and_the_window_caps_at_forty():
    clear, _ = _clear(stage=2, target=1, hops=51, damped=0, lives=3)
    # window 20: 30 + 20 - 51 < 0
    assert (clear["efficiency"], clear["stagePoints"], clear["points"]) == (0, 500, 1250)
    clear, _ = _clear(stage=6, target=2, hops=101, damped=0, lives=3)
    # window min(40, 40) = 40: 20 x (62 + 40 - 101) = 20
    assert clear["efficiency"] == 20 and clear["stagePoints"] == 1500
    # stage 8: window min(40, 15 + 35) = 40, not 50: 20 x (62 + 40 - 101) = 20
    clear, _ = _clear(stage=8, target=2, hops=101, damped=0, lives=3)
    assert clear["efficiency"] == 20 and clear["stagePoints"] == 2000


def test_the_clear_pays_even_when_the_landing_tile_holds_an_awake_hush():
    state = playing(
        tiles=levels(fill=1, at={(1, 0): 0}), stageHops=29, hush=[hush_entry("stalker", 1, 0)]
    )
    state, events, _ = run(state, "hop downLeft")
    assert types(events) == ["ring", "stageClear"]
    assert GAME.observe(state)["lives"] == 3 and GAME.observe(state)["hushCells"] == []
