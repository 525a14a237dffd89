"""Fact 1 (cooldown and the one-deep buffer), tick counts, phases and the frozen clock."""

import pytest

from playbench.games.chimestep.rules import CLEAR_TICKS, INTRO_TICKS, RECOVER_TICKS

from .helpers import GAME, craft, hush_entry, levels, playing, run, types, wait, where
from .test_par import ROUTE


def test_thirty_hops_without_ticks_resolve_exactly_one():
    state, events, _ = run(playing(), *["hop downLeft"] * 30)
    assert where(state) == (1, 0)
    assert GAME.observe(state)["stageHops"] == 1
    assert types(events).count("ring") == 1 and types(events).count("buffer") == 29
    state, _, _ = run(state, "tick 30")
    assert where(state) == (2, 0)
    assert GAME.observe(state)["stageHops"] == 2


def test_a_later_hop_overwrites_the_buffered_one():
    state, _, _ = run(playing(), "hop downLeft", "hop downRight", "hop downLeft")
    assert GAME.observe(state)["bufferedHop"] == "downLeft"
    state, _, _ = run(state, "hop downRight")
    assert GAME.observe(state)["bufferedHop"] == "downRight"
    state, _, _ = run(state, "tick 4")
    assert where(state) == (2, 1)
    assert GAME.observe(state)["bufferedHop"] is None


def test_a_hop_sets_cooldown_four_and_only_ticks_lower_it():
    state, _, _ = run(playing(), "hop downLeft")
    assert GAME.observe(state)["hopCooldown"] == 4
    state, _, _ = run(state, "hop downRight", "tick 3")
    view = GAME.observe(state)
    assert (view["hopCooldown"], view["bufferedHop"], where(state)) == (1, "downRight", (1, 0))
    state, events, _ = run(state, "tick")
    assert where(state) == (2, 1)
    assert GAME.observe(state)["hopCooldown"] == 4
    assert types(events) == ["ring"]


def test_the_buffered_hop_resolves_inside_the_tick_that_ends_the_cooldown():
    state, _, _ = run(playing(), "hop downLeft", "hop downLeft")
    before = GAME.observe(state)["tick"]
    state, _, _ = run(state, "tick 4")
    assert GAME.observe(state)["tick"] == before + 4 and where(state) == (2, 0)


def test_hops_paced_four_ticks_apart_all_resolve_and_three_ticks_apart_do_not():
    paced, _, _ = run(playing(), *["hop downLeft", "tick 4"] * 6)
    assert GAME.observe(paced)["stageHops"] == 6 and where(paced) == (6, 0)
    assert GAME.observe(paced)["tick"] == INTRO_TICKS + 24
    rushed, _, _ = run(playing(), *["hop downLeft", "tick 3"] * 6)
    # six hops in 18 ticks: the first at once, the others when the cooldown reaches 0 at
    # ticks 4, 8, 12 and 16
    assert GAME.observe(rushed)["stageHops"] == 5 and where(rushed) == (5, 0)


@pytest.mark.parametrize(("count", "ticks"), [(0, 1), (-5, 1), (1, 1), (7, 7), (30, 30), (99, 30)])
def test_tick_count_is_clamped(count, ticks):
    state = playing()
    before = GAME.observe(state)["tick"]
    after = GAME.step(state, {"type": "tick", "count": count}).state
    assert GAME.observe(after)["tick"] == before + ticks


def test_tick_without_count_is_one_tick():
    state = playing()
    after = GAME.step(state, {"type": "tick"}).state
    assert GAME.observe(after)["tick"] == GAME.observe(state)["tick"] + 1


@pytest.mark.parametrize("count", ["3", 2.0, True, None, [4]])
def test_a_count_that_is_not_an_integer_is_refused(count):
    state = playing()
    outcome = GAME.step(state, {"type": "tick", "count": count})
    assert not outcome.ok and outcome.state is state
    assert "integer" in outcome.reason


def test_a_batched_tick_equals_single_ticks():
    start = playing(7, hush=[hush_entry("muffle", 4, 2), hush_entry("tumble", 1, 1, dormant=5)])
    start, _, _ = run(start, "hop downRight")
    batched, _, _ = run(start, "tick 30")
    single = start
    for _ in range(30):
        single, _, _ = run(single, "tick")
    assert GAME.fingerprint(batched) == GAME.fingerprint(single)


@pytest.mark.parametrize("action", [{"type": "tick"}, {"type": "tick", "count": 30}])
def test_a_tick_while_waiting_returns_the_identical_state(action):
    state = GAME.new(3)
    outcome = GAME.step(state, action)
    assert not outcome.ok and outcome.state is state and outcome.reward == 0
    assert GAME.observe(state)["tick"] == 0


def test_a_tick_when_done_returns_the_identical_state():
    state = playing(lives=1, hush=[hush_entry("stalker", 1, 0)])
    state, events, _ = run(state, "hop downLeft")
    assert "gameOver" in types(events)
    assert GAME.observe(state)["status"] == "done" and GAME.is_over(state)
    assert GAME.legal_actions(state) == []
    for action in ({"type": "tick"}, {"type": "tick", "count": 12}, {"type": "start"}):
        outcome = GAME.step(state, action)
        assert not outcome.ok and outcome.state is state


def test_start_only_while_waiting_and_it_opens_the_intro():
    state = GAME.new(3)
    assert GAME.legal_actions(state) == [{"type": "start"}]
    state, events, _ = run(state, "start")
    view = GAME.observe(state)
    assert (view["status"], view["stage"], view["tick"]) == ("stageIntro", 1, 0)
    assert types(events) == ["start"]
    outcome = GAME.step(state, {"type": "start"})
    assert not outcome.ok and outcome.state is state


def test_the_intro_only_counts_down_then_play_begins():
    state, _, _ = run(GAME.new(3), "start", f"tick {INTRO_TICKS - 1}")
    view = GAME.observe(state)
    assert view["status"] == "stageIntro" and view["tick"] == INTRO_TICKS - 1
    assert GAME.legal_actions(state) == [{"type": "tick"}]
    for action in ({"type": "hop", "dir": "downLeft"}, {"type": "toll"}):
        outcome = GAME.step(state, action)
        assert not outcome.ok and outcome.state is state and "playing" in outcome.reason
    state, events, _ = run(state, "tick")
    assert GAME.observe(state)["status"] == "playing" and types(events) == ["play"]


def test_recovering_counts_down_then_grants_shimmer():
    state = playing(hush=[hush_entry("stalker", 1, 0)], chain=4)
    state, events, _ = run(state, "hop downLeft")
    assert types(events) == ["ring", "damped", "lifeLost"]
    view = GAME.observe(state)
    assert (view["status"], view["lives"], view["chain"], view["hushCells"]) == (
        "recovering",
        2,
        0,
        [],
    )
    assert where(state) == (0, 0) and view["tiles"][1] == [1, 0]
    state, _, _ = run(state, f"tick {RECOVER_TICKS - 1}")
    assert GAME.observe(state)["status"] == "recovering"
    assert GAME.observe(state)["shimmerTicks"] == 0
    state, _, _ = run(state, "tick")
    view = GAME.observe(state)
    assert (view["status"], view["shimmerTicks"]) == ("playing", 36)


def test_stage_clear_counts_down_into_the_next_stage_intro():
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}), stageHops=29, chain=3)
    state, events, _ = run(state, "hop downLeft")
    assert types(events) == ["ring", "stageClear"]
    assert GAME.observe(state)["status"] == "stageClear"
    assert GAME.legal_actions(state) == [{"type": "tick"}]
    state, _, _ = wait(state, CLEAR_TICKS - 1)
    assert GAME.observe(state)["status"] == "stageClear" and GAME.observe(state)["stage"] == 1
    state, events, _ = run(state, "tick")
    view = GAME.observe(state)
    assert types(events) == ["stageStart"]
    assert (view["status"], view["stage"], view["target"], view["remaining"]) == (
        "stageIntro",
        2,
        1,
        27,
    )
    assert view["chain"] == 4 and view["stageHops"] == 0 and where(state) == (0, 0)


def test_a_thirty_hop_stage_needs_at_least_120_ticks_of_play():
    """Fact 1: 4 ticks per hop, so 30 hops take 120 ticks of play however they are sent."""
    state, _, _ = run(GAME.new(1), "start", f"tick {INTRO_TICKS}")
    assert GAME.observe(state)["hopCooldown"] == 4
    play_began = GAME.observe(state)["tick"]
    for direction in ROUTE:
        hops = GAME.observe(state)["stageHops"]
        state, _, _ = run(state, f"hop {direction}")
        while GAME.observe(state)["stageHops"] == hops:
            state, _, _ = run(state, "tick")
    view = GAME.observe(state)
    assert (view["status"], view["stageHops"]) == ("stageClear", 30)
    assert view["tick"] - play_began == 120


def test_every_stage_begins_with_the_hop_cooling_down_from_the_apex_arrival():
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}))
    state, _, _ = run(state, "hop downLeft")
    state, _, _ = wait(state, CLEAR_TICKS + INTRO_TICKS)
    view = GAME.observe(state)
    assert (view["status"], view["stage"], view["hopCooldown"]) == ("playing", 2, 4)
    state, events, _ = run(state, "hop downRight")
    assert types(events) == ["buffer"] and where(state) == (0, 0)
    state, events, _ = run(state, "tick 4")
    assert types(events) == ["ring"] and where(state) == (1, 1)


def test_stage_three_has_target_two_and_par_sixty_two():
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}), stage=2, spawnClock=60)
    state, _, _ = run(state, "hop downLeft")
    state, _, _ = wait(state, CLEAR_TICKS)
    view = GAME.observe(state)
    assert (view["stage"], view["target"], view["par"], view["remaining"]) == (3, 2, 62, 28)
    assert view["tiles"][0] == [1]


def test_legal_actions_by_phase():
    hops = [{"type": "hop", "dir": d} for d in ("upLeft", "upRight", "downLeft", "downRight")]
    assert GAME.legal_actions(playing()) == [*hops, {"type": "toll"}, {"type": "tick"}]
    assert GAME.legal_actions(playing(tollCharges=0)) == [*hops, {"type": "tick"}]
    assert GAME.legal_actions(playing(tollCooldown=3)) == [*hops, {"type": "tick"}]


def test_first_stage_tiles_start_with_the_apex_struck():
    view = GAME.observe(GAME.new(5))
    assert view["tiles"] == [[1], [0, 0], [0, 0, 0], [0] * 4, [0] * 5, [0] * 6, [0] * 7]
    assert (view["remaining"], view["par"], view["lives"], view["tollCharges"]) == (27, 30, 3, 1)
    assert view["score"] == 0 and view["status"] == "waiting"


def test_crafted_states_keep_their_changes():
    state = craft(playing(), chain=9)
    assert GAME.observe(state)["chain"] == 9
