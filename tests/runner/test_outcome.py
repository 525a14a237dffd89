import pytest

from playbench.core import get_game
from playbench.games.chimestep.state import DONE
from playbench.games.gemswap.state import MOVES_PER_GAME
from playbench.runner.episode import EpisodeSpec, Task, play
from playbench.runner.outcome import outcome_of


@pytest.mark.parametrize(
    ("slug", "field", "value", "outcome"),
    [
        ("delvewick", "status", "won", "won"),
        ("delvewick", "status", "crushed", "lost"),
        ("delvewick", "status", "outOfOil", "lost"),
        ("cogcrawl", "run", "won", "won"),
        ("cogcrawl", "run", "dead", "lost"),
        ("cogcrawl", "run", "out_of_turns", "lost"),
        ("cogcrawl", "run", "left", "over"),
        ("chimestep", "status", DONE, "over"),
        ("gem-swap", "moves_made", MOVES_PER_GAME, "over"),
    ],
)
def test_the_game_says_how_a_finished_run_ended(slug, field, value, outcome):
    game = get_game(slug)
    state = game.new(1)
    setattr(state, field, value)
    assert game.is_over(state)
    assert outcome_of(game, state, over=True) == outcome


def test_a_run_still_going_is_truncated():
    game = get_game("delvewick")
    assert outcome_of(game, game.new(1), over=False) == "truncated"


def test_an_ending_outside_the_contract_is_an_error(monkeypatch):
    game = get_game("chimestep")
    monkeypatch.setattr(game, "ending", lambda state: "draw")
    with pytest.raises(ValueError, match="'draw'"):
        outcome_of(game, game.new(1), over=True)


def test_a_random_cogcrawl_seat_never_walks_out_by_the_up_stairs():
    # the random agent draws from the moves a seat is offered: no up on level 1, so it
    # plays on until the dungeon kills it
    outcomes = [
        play(EpisodeSpec("cogcrawl", "random"), Task(seed)).record["outcome"] for seed in range(4)
    ]
    assert outcomes == ["lost"] * 4
