"""The players' table against sybils, on synthetic tables: 60 names from one source, five
games each of the same play as an honest player with 40 games, rank below that player; the
plain 95% lower bound of each player alone would have sold them rank 1."""

from __future__ import annotations

import math
import random
import statistics

from playbench.server import standings
from playbench.server.store import PlayerGames

SEEDS = range(20)


def figures(name: str, scores: list[int]) -> PlayerGames:
    mean, variance = statistics.fmean(scores), statistics.variance(scores)
    return PlayerGames(name, len(scores), mean, variance, max(scores), 0.0)


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
    pooled = standings.pooled_variance([lucky, steady])
    assert pooled == (4 * lucky.variance + 7 * steady.variance) / 11
    alone = standings.bound(lucky, 1, 0.0)
    assert alone == 1402 - standings.t_975(4) * (lucky.variance / 5) ** 0.5
    in_a_pool = standings.bound(lucky, 61, pooled)
    width = standings.t_975(4) + math.sqrt(2 * math.log(61))
    assert in_a_pool == 1402 - width * (pooled / 5) ** 0.5
    rows = standings.standings([lucky, steady])
    assert [(row["player"], row["bound"]) for row in rows] == [
        ("lucky", round(standings.bound(lucky, 2, pooled), 1)),
        ("steady", round(standings.bound(steady, 2, pooled), 1)),
    ]


def test_a_pool_of_one_ranks_by_the_players_own_95_percent_bound():
    alone = figures("ada", [900, 1000, 1100, 1000, 1000])
    (row,) = standings.standings([alone])
    assert row["rank"] == 1 and row["bound"] == row["low"]
