"""Progress: exact values at the landmarks of a run, bounds, and every ring raises it."""

from hypothesis import given

from playbench.games.chimestep.view import START_SHARE

from .helpers import GAME, levels, playing, run, types, wait
from .test_properties import PLAYS, SEEDS, _play


def scaled(stages):
    """Progress of ``stages`` (cleared plus the current share), less the start's share."""
    return (stages - START_SHARE) / (30 - START_SHARE)


def test_a_new_run_has_progress_0_though_its_apex_is_struck():
    assert START_SHARE == 1 / 28
    assert GAME.progress(GAME.new(3)) == 0.0


def test_each_ring_at_target_one_adds_a_twenty_eighth_of_a_stage():
    state, _, _ = run(playing(), "hop downLeft", "tick 4", "hop downRight")
    assert GAME.progress(state) == scaled(3 / 28)


def test_at_target_two_a_tile_counts_by_its_level():
    state = playing(stage=3, target=2, tiles=levels(at={(0, 0): 2, (1, 0): 1}), spawnClock=60)
    assert GAME.progress(state) == scaled(2 + 3 / 56)


def test_a_cleared_stage_counts_one_and_the_next_starts_from_its_apex():
    state = playing(tiles=levels(fill=1, at={(1, 0): 0}))
    state, events, _ = run(state, "hop downLeft")
    assert "stageClear" in types(events)
    assert GAME.progress(state) == scaled(1)
    state, events, _ = wait(state, 36)
    assert "stageStart" in types(events)
    assert GAME.progress(state) == scaled(1 + 1 / 28)


def test_progress_is_capped_at_one_from_stage_thirty_one():
    assert GAME.progress(playing(stage=30, target=2, tiles=levels(fill=2), spawnClock=30)) == 1.0
    assert GAME.progress(playing(stage=31, target=2, spawnClock=30)) == 1.0
    assert GAME.progress(playing(stage=30, target=2, spawnClock=30)) == scaled(29 + 1 / 56)


def test_a_muffle_takes_progress_back():
    before = playing(tiles=levels(at={(0, 0): 1, (4, 1): 1, (4, 2): 1}))
    after = playing(tiles=levels(at={(0, 0): 1, (4, 1): 1}))
    assert 0 < GAME.progress(after) < GAME.progress(before)


@given(SEEDS, PLAYS)
def test_progress_stays_in_bounds_and_every_ring_above_0_raises_it(seed, plays):
    for state, _, outcome in _play(seed, plays):
        after = GAME.progress(outcome.state)
        assert 0.0 <= after <= 1.0
        kinds = types(outcome.events)
        if "ring" in kinds and "muffle" not in kinds and after > 0:
            assert after > GAME.progress(state)
