"""Fact 3: the off-rim teeter, the committed leap and the free first leap."""

from playbench.games.chimestep.rules import TEETER_TICKS

from .helpers import GAME, hush_entry, playing, run, types, wait, where


def test_an_off_rim_hop_arms_a_teeter_and_does_not_move():
    state, events, reward = run(playing(), "hop upLeft")
    view = GAME.observe(state)
    assert where(state) == (0, 0) and reward == 0 and types(events) == ["teeter"]
    assert view["teeter"] == {"dir": "upLeft", "ticks": 12}
    assert (view["hopCooldown"], view["stageHops"], view["lives"]) == (0, 0, 3)


def test_the_teeter_counts_down_with_the_cooldown_frozen_and_ends_after_twelve_ticks():
    state, _, _ = run(playing(), "hop upRight", "tick 11")
    view = GAME.observe(state)
    assert view["teeter"] == {"dir": "upRight", "ticks": 1} and view["hopCooldown"] == 0
    state, events, _ = run(state, "tick")
    assert GAME.observe(state)["teeter"] is None and types(events) == ["teeterEnd"]
    state, events, _ = run(state, "hop upRight")
    assert types(events) == ["teeter"] and GAME.observe(state)["lives"] == 3


def test_the_same_direction_inside_the_window_commits_a_leap_and_the_first_is_free():
    state = playing(chain=5, hush=[hush_entry("muffle", 5, 2)])
    state, events, _ = run(state, "hop upLeft", f"tick {TEETER_TICKS - 1}", "hop upLeft")
    assert types(events)[-1] == "leap" and events[-1]["free"] is True
    view = GAME.observe(state)
    assert (view["lives"], view["chain"], view["status"], view["hushCells"]) == (
        3,
        0,
        "recovering",
        [],
    )
    assert view["stageDamped"] == 1 and view["teeter"] is None


def test_the_second_committed_leap_costs_a_life():
    state, _, _ = run(playing(), "hop upLeft", "hop upLeft")
    state, _, _ = wait(state, 24)
    state, events, _ = run(state, "hop upRight", "hop upRight")
    assert types(events) == ["teeter", "leap", "lifeLost"]
    assert events[1]["free"] is False
    view = GAME.observe(state)
    assert (view["lives"], view["stageDamped"]) == (2, 2)


def test_the_free_leap_is_once_per_run_even_as_the_last_life():
    state = playing(lives=1, freeLeap=False)
    state, events, _ = run(state, "hop upLeft", "hop upLeft")
    assert types(events)[-1] == "gameOver" and GAME.is_over(state)


def test_a_different_direction_clears_the_teeter_and_hops():
    state, events, _ = run(playing(), "hop upLeft", "tick 5", "hop downRight")
    assert types(events) == ["teeter", "teeterClear", "ring"]
    assert where(state) == (1, 1) and GAME.observe(state)["teeter"] is None


def test_another_off_rim_direction_replaces_the_teeter():
    state, events, _ = run(playing(), "hop upLeft", "hop upRight")
    assert types(events) == ["teeter", "teeterClear", "teeter"]
    assert GAME.observe(state)["teeter"] == {"dir": "upRight", "ticks": 12}
    state, events, _ = run(state, "hop upLeft")
    assert "leap" not in types(events)


def test_a_toll_clears_the_teeter():
    state, events, _ = run(playing(), "hop upLeft", "toll", "hop upLeft")
    assert types(events) == ["teeter", "teeterClear", "toll", "teeter"]
    assert GAME.observe(state)["lives"] == 3


def test_a_buffered_off_rim_hop_teeters_when_it_resolves():
    state = playing(position={"row": 1, "col": 0})
    state, events, _ = run(state, "hop downLeft", "hop upLeft", "tick 4")
    # from (2, 0) upLeft is off the pyramid
    assert where(state) == (2, 0)
    assert types(events)[-1] == "teeter"
    assert GAME.observe(state)["teeter"] == {"dir": "upLeft", "ticks": 12}
