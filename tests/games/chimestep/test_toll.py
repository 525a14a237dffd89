"""The toll: range, charges, cooldown and what it costs."""

from .helpers import GAME, hush_entry, levels, playing, run, types, wait

NEAR = [
    hush_entry("stalker", 2, 1),  # own tile
    hush_entry("tumble", 1, 0),  # upLeft neighbour
    hush_entry("muffle", 3, 2),  # downRight neighbour
]
FAR = hush_entry("muffle", 4, 2)  # two steps away


def test_the_toll_scatters_awake_hush_on_own_tile_and_neighbours_for_150_each():
    state = playing(position={"row": 2, "col": 1}, hush=[*NEAR, FAR], shimmerTicks=5)
    state, events, reward = run(state, "toll")
    assert reward == 450
    assert types(events) == ["toll", "scatter", "scatter", "scatter"]
    assert [e["kind"] for e in events[1:]] == ["stalker", "tumble", "muffle"]
    view = GAME.observe(state)
    assert view["hushCells"] == [{"kind": "muffle", "row": 4, "col": 2}]
    assert (view["tollCharges"], view["tollCooldown"]) == (0, 24)


def test_dormant_hush_are_not_scattered():
    dormant = hush_entry("tumble", 1, 1, dormant=4)
    state, _, reward = run(playing(hush=[dormant]), "toll")
    assert reward == 0
    assert GAME.observe(state)["dormantHush"] == [
        {"kind": "tumble", "row": 1, "col": 1, "dormantTicks": 4}
    ]


def test_a_toll_with_nothing_in_range_still_spends_the_charge():
    state, events, reward = run(playing(tollCharges=2), "toll")
    assert reward == 0 and events == [{"type": "toll", "scattered": 0, "points": 0}]
    assert GAME.observe(state)["tollCharges"] == 1


def test_no_toll_without_a_charge_or_while_cooling_down():
    for changes, word in (({"tollCharges": 0}, "charge"), ({"tollCooldown": 1}, "cooling")):
        state = playing(**changes)
        outcome = GAME.step(state, {"type": "toll"})
        assert not outcome.ok and outcome.state is state and word in outcome.reason
        assert {"type": "toll"} not in GAME.legal_actions(state)


def test_the_toll_cooldown_falls_only_on_ticks_and_lasts_24():
    state, _, _ = run(playing(tollCharges=2), "toll", "hop downLeft", "tick 23")
    assert GAME.observe(state)["tollCooldown"] == 1
    assert {"type": "toll"} not in GAME.legal_actions(state)
    state, _, _ = run(state, "tick")
    assert {"type": "toll"} in GAME.legal_actions(state)


def test_the_toll_does_not_ring_a_tile_or_touch_the_chain_or_the_spawn_clock():
    state = playing(chain=3, spawnClock=40)
    after, _, _ = run(state, "toll")
    data_before, data_after = GAME.to_json(state), GAME.to_json(after)
    assert data_after["tiles"] == data_before["tiles"]
    assert data_after["chain"] == 3 and data_after["spawnClock"] == 40


def test_a_charge_every_six_rings_up_to_two():
    state = playing(tollCharges=0, rings=4)
    state, events, _ = run(state, "hop downLeft")
    assert "charge" not in types(events)
    state, events, _ = run(state, "tick 4", "hop downRight")
    assert types(events) == ["ring", "charge"]
    assert GAME.observe(state)["tollCharges"] == 1
    full = playing(tollCharges=2, rings=5)
    full, events, _ = run(full, "hop downLeft")
    assert types(events) == ["ring"] and GAME.observe(full)["tollCharges"] == 2


def test_one_charge_at_the_start_and_one_more_at_every_later_stage_start():
    assert GAME.observe(GAME.new(1))["tollCharges"] == 1
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}), tollCharges=0)
    state, _, _ = run(state, "hop downLeft")
    state, events, _ = wait(state, 36)
    assert events[-1]["type"] == "stageStart" and GAME.observe(state)["tollCharges"] == 1
    full = playing(tiles=levels(fill=1, at={(1, 0): 0}), tollCharges=2)
    full, _, _ = run(full, "hop downLeft")
    full, _, _ = wait(full, 36)
    assert GAME.observe(full)["tollCharges"] == 2
