"""The players' table against sybils, on synthetic tables: 60 names from one source, five
games each of the same play as an honest player with 40 games, rank below that player; the
plain 95% lower bound of each player alone would have sold them rank 1. Thousands of names
that open games and never finish them, or finish them all alike, lift nobody: no player
added to a table raises another's bound."""

from __future__ import annotations

import math
import random
import statistics

from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.server import standings
from playbench.server.store import PlayerGames

SEEDS = range(20)


def figures(name: str, scores: list[int], finished: int | None = None) -> PlayerGames:
    """A player's figures from their scores, every game finished unless ``finished``."""
    mean, variance = statistics.fmean(scores), statistics.variance(scores)
    done = len(scores) if finished is None else finished
    return PlayerGames(name, len(scores), mean, variance, max(scores), 0.0, done)


def pool(seed: int, sybils: int, games: int = 5) -> list[PlayerGames]:
    """``sybils`` names of ``games`` games and one honest name of 40, every score drawn
    from one strategy's distribution (a mean of 1,000, a spread of 350)."""
    rng = random.Random(seed)

    def draw(count: int) -> list[int]:
        return [max(0, round(rng.gauss(1000, 350))) for _ in range(count)]

    return [figures(f"sybil-{n}", draw(games)) for n in range(sybils)] + [
        figures("honest", draw(40))
    ]


def first(table: list[PlayerGames]) -> str:
    return standings.standings(table)[0]["player"]


def test_sixty_sybils_of_five_games_rank_below_the_honest_forty():
    assert [first(pool(seed, 60)) for seed in SEEDS] == ["honest"] * len(SEEDS)
    # each player's own lower bound alone: the best sybil's beats the honest player's
    plain = [max(pool(seed, 60), key=lambda row: standings.interval(row)[0]).name for seed in SEEDS]
    assert sum(name == "honest" for name in plain) == 0


def test_the_bound_widens_with_the_pool_and_never_trusts_a_spread_below_the_pools():
    lucky = figures("lucky", [1400, 1401, 1402, 1403, 1404])  # five games that agree
    steady = figures("steady", [1000, 1300, 700, 1000, 1300, 700, 1000, 1000])
    floor = standings.pool_variance([lucky, steady])
    assert floor == max(lucky.variance, steady.variance) == steady.variance
    alone = standings.bound(lucky, 1, 0.0)
    assert alone == 1402 - standings.t_975(4) * (lucky.variance / 5) ** 0.5
    in_a_pool = standings.bound(lucky, 61, floor)
    width = standings.t_975(4) + math.sqrt(2 * math.log(61))
    assert in_a_pool == 1402 - width * (floor / 5) ** 0.5
    rows = standings.standings([lucky, steady])
    assert [(row["player"], row["bound"]) for row in rows] == [
        ("lucky", round(standings.bound(lucky, 2, floor), 1)),
        ("steady", round(standings.bound(steady, 2, floor), 1)),
    ]


def idle_names(count: int, games: int = 6) -> list[PlayerGames]:
    """Names that opened ``games`` ranked games each and never played: every one closed
    as abandoned at the start's score, 0."""
    return [PlayerGames(f"idle-{n}", games, 0.0, 0.0, 0, 0.0, 0) for n in range(count)]


def test_names_that_never_finish_a_game_count_for_nothing():
    for seed in SEEDS[:5]:
        honest = pool(seed, 60)
        before = standings.standings(honest)
        after = standings.standings([*honest, *idle_names(2000)])
        assert after[: len(before)] == before
        assert all(row["rank"] is None for row in after[len(before) :])


def test_the_sybil_pool_ranks_the_honest_player_first():
    """200 sybils of five finished games beside 2,000 names of six games opened and
    never played, and 2,000 more that finished five games at 0 (no spread at all): the
    honest player of 40 games is first in every pool."""
    flat = [figures(f"flat-{n}", [0] * 5) for n in range(2000)]
    for seed in SEEDS:
        table = standings.standings([*pool(seed, 200), *idle_names(2000), *flat])
        assert table[0]["player"] == "honest"


player_games = st.builds(
    lambda name, scores, finished: figures(name, scores, min(finished, len(scores))),
    st.text(min_size=1, max_size=5),
    st.lists(st.integers(0, 5000), min_size=2, max_size=12),
    st.integers(0, 12),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(player_games, min_size=1, max_size=8), player_games)
def test_no_player_added_to_a_table_lifts_another_players_bound(table, added):
    before = {id(row): row for row in table}
    bounds = {
        (row["player"], row["games"], row["mean"]): row["bound"]
        for row in standings.standings(list(before.values()))
        if row["rank"] is not None
    }
    after = standings.standings([*table, added])
    for row in after:
        key = (row["player"], row["games"], row["mean"])
        if row["rank"] is not None and key in bounds:
            assert row["bound"] <= bounds[key]


def test_a_pool_of_one_ranks_by_the_players_own_95_percent_bound():
    alone = figures("ada", [900, 1000, 1100, 1000, 1000])
    (row,) = standings.standings([alone])
    assert row["rank"] == 1 and row["bound"] == row["low"]
