import pytest

from playbench.core import all_games
from playbench.runner.episode import EpisodeSpec, Task, play
from playbench.runner.outcome import ENDINGS, outcome_of


def test_every_game_says_how_its_runs_end():
    assert {game.slug for game in all_games()} <= set(ENDINGS)


@pytest.mark.parametrize(
    ("slug", "observation", "outcome"),
    [
        ("delvewick", {"status": "won"}, "won"),
        ("delvewick", {"status": "crushed"}, "lost"),
        ("delvewick", {"status": "outOfOil"}, "lost"),
        ("cogcrawl", {"run": {"state": "won"}}, "won"),
        ("cogcrawl", {"run": {"state": "dead"}}, "lost"),
        ("cogcrawl", {"run": {"state": "out_of_turns"}}, "lost"),
        ("cogcrawl", {"run": {"state": "left"}}, "over"),
        ("chimestep", {"status": "done"}, "over"),
        ("gem-swap", {}, "over"),
    ],
)
def test_the_end_of_a_run_is_read_from_its_observation(slug, observation, outcome):
    assert outcome_of(slug, observation, over=True) == outcome


def test_a_run_still_going_is_truncated():
    assert outcome_of("delvewick", {"status": "playing"}, over=False) == "truncated"


def test_a_random_cogcrawl_seat_soon_walks_out_by_the_up_stairs():
    outcomes = [
        play(EpisodeSpec("cogcrawl", "random"), Task(seed)).record["outcome"] for seed in range(4)
    ]
    assert outcomes == ["over"] * 4
