"""The 8 shipped levels: their shape, their solutions (one run to a win), the finale."""

from collections import Counter

import pytest

from playbench.bots import delvewick as bot
from playbench.games.delvewick import rules
from playbench.games.delvewick.levels import LEVELS

from .helpers import GAME, play, types

#: the seed's table: (name, quota, oil)
SEED_TABLE = [
    ("Topsoil", 4, 40),
    ("Root Cellar", 5, 46),
    ("Old Workings", 6, 52),
    ("Geode Hollow", 7, 58),
    ("Slate Gallery", 9, 64),
    ("The Underbrook", 11, 70),
    ("Deep Seam", 12, 76),
    ("The Gemheart", 13, 80),
]
#: golden result of playing the 8 shipped solutions in one run (found by the beam search
#: of ``bots/delvewick.py``; the solutions shipped before it scored 4280 at tick 400)
FULL_RUN_SCORE = 4760
FULL_RUN_TICKS = 376
FULL_RUN_FINGERPRINT = "3b117deede1a43d3"
#: the points each shipped solution banks on its level (level 8 with the +250 finale)
LEVEL_POINTS = (345, 295, 445, 430, 515, 770, 735, 1225)
#: the points of the solutions shipped before the beam search, which each level keeps
OLD_LEVEL_POINTS = (335, 295, 410, 345, 450, 615, 720, 1110)
MAX_WIDTH, MAX_HEIGHT = 40, 22


def test_levels_follow_the_seed_table():
    assert [(lv.name, lv.quota, lv.oil) for lv in LEVELS] == SEED_TABLE
    assert [lv.number for lv in LEVELS] == list(range(1, 9))


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.name)
def test_each_level_is_well_formed_and_settled(level):
    text = "".join(level.rows)
    assert level.width <= MAX_WIDTH and level.height <= MAX_HEIGHT
    assert text.count("M") == 1 and text.count("X") == 1
    assert text.count("*") + text.count("G") >= level.quota
    assert rules.settled(GAME.new(0, {"startLevel": level.number}))


def test_geodes_appear_from_geode_hollow_on():
    counts = ["".join(lv.rows).count("G") for lv in LEVELS]
    assert counts[:3] == [0, 0, 0]
    assert all(count > 0 for count in counts[3:])


def test_each_solution_banks_its_points_and_at_least_the_old_solutions_points():
    banked = tuple(
        play(GAME.new(0, {"startLevel": lv.number}), lv.solution)[0].score for lv in LEVELS
    )
    assert banked == LEVEL_POINTS
    assert all(new >= old for new, old in zip(banked, OLD_LEVEL_POINTS, strict=True))
    assert sum(banked) == FULL_RUN_SCORE
    assert sum(OLD_LEVEL_POINTS) == 4280


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.name)
def test_each_solution_clears_its_level_within_its_oil(level):
    state = GAME.new(0, {"startLevel": level.number})
    state, outcomes = play(state, level.solution)
    assert "levelClear" in types(outcomes[-1])
    assert all("levelClear" not in types(o) for o in outcomes[:-1])
    assert len(level.solution) <= level.oil
    assert all(o.state.status in ("playing", "won") for o in outcomes)


def test_the_eight_solutions_win_one_run_with_the_exact_score():
    state = GAME.new(0)
    seen = Counter()
    for level in LEVELS:
        assert state.level is level
        state, outcomes = play(state, level.solution)
        for outcome in outcomes:
            seen.update(types(outcome))
    assert state.status == "won"
    assert (state.score, state.tick) == (FULL_RUN_SCORE, FULL_RUN_TICKS)
    assert GAME.fingerprint(state) == FULL_RUN_FINGERPRINT
    for mechanic in ("dig", "collect", "push", "fall", "roll", "land", "crack", "exitOpen"):
        assert seen[mechanic] > 0, mechanic
    assert (seen["levelClear"], seen["levelStart"], seen["won"]) == (8, 7, 1)


def test_clearing_a_level_loads_the_next_fresh():
    state, outcomes = play(GAME.new(0), LEVELS[0].solution)
    before = outcomes[-2].state.oil
    clear, start = outcomes[-1].events[-2:]
    assert clear == {
        "type": "levelClear",
        "level": 1,
        "name": "Topsoil",
        "points": 100 + 5 * before,
        "oilLeft": before,
    }
    assert start == {"type": "levelStart", "level": 2, "name": "Root Cellar"}
    seen = GAME.observe(state)
    assert seen["board"] == list(LEVELS[1].rows)
    assert (seen["level"], seen["oil"], seen["gemsCollected"], seen["chain"]) == (2, 46, 0, 0)
    assert seen["exitOpen"] is False and seen["tick"] == len(LEVELS[0].solution)


def test_the_finale_pays_250_after_level_8():
    state = GAME.new(0, {"startLevel": 8})
    state, outcomes = play(state, LEVELS[7].solution)
    last = outcomes[-1]
    oil_before = outcomes[-2].state.oil
    assert types(last)[-2:] == ["levelClear", "won"]
    assert last.events[-1] == {"type": "won", "points": 250}
    assert last.reward == 100 + 5 * oil_before + 250
    assert state.status == "won" and GAME.is_over(state)


def test_the_solver_finds_a_clear_of_level_one():
    state = GAME.new(0)
    letters = bot.solve_level(state)
    assert letters is not None and len(letters) <= LEVELS[0].oil
    cleared = bot.play(state, letters)
    assert cleared.level is LEVELS[1]


@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.name)
def test_the_baseline_bot_clears_every_level_move_by_move(level):
    state = GAME.new(0, {"startLevel": level.number})
    for _ in range(level.oil):
        outcome = GAME.step(state, bot.next_action(state))
        assert outcome.ok
        state = outcome.state
        if state.level is not level or state.status != "playing":
            break
    assert state.status == "won" or state.level.number == level.number + 1
    assert state.status in ("playing", "won")


def test_the_bot_falls_back_to_a_harmless_action_without_a_goal():
    state = GAME.new(
        0, {"level": {"name": "bare", "quota": 1, "oil": 9, "rows": ["#####", "#M.X#", "#####"]}}
    )
    assert bot.next_action(state) in GAME.legal_actions(state)


def test_play_names_the_refused_letter():
    with pytest.raises(ValueError, match="letter 0 \\(L\\) refused"):
        bot.play(GAME.new(0), "L")
