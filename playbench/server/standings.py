"""The players' table of a leaderboard: every ranked game a player closed counts.

A list of best single games rewards whoever plays most and keeps only the best
(best-of-N). The players' table ranks each registered player, once they have played
:data:`MIN_GAMES` ranked games of that game *to their end*, by a lower bound on the mean
over *all* their ranked games of it, finished or abandoned (a player cannot leave a game
out: an abandoned game counts at its score then). Playing more games narrows the bound
around the player's true mean; it never lifts it.

The bound is made for the pool, not for one player alone (:func:`bound`): many names
playing the same strategy a few games each (sybils) would otherwise buy rank 1 with the
luck of the best of them. So the bound's width grows with the pool, by the expected
maximum of as many normal deviates (``sqrt(2 ln P)`` for ``P`` players), on top of the
95% quantile, and a player's spread is never taken as smaller than the widest spread of
the pool (five lucky games that happen to agree buy nothing).

Only the players the table ranks make the pool (``P`` and its spread), and adding a
player can only widen the pool and its widest spread: so names that open games and never
finish them count for nothing, and no name added to the pool, however it plays, can lift
another player's bound. (A spread averaged over the pool would not hold: thousands of
names of zero spread would pull it to nothing, and a lucky few-game name above an honest
one.) :data:`MIN_GAMES` finished games make a name cost five whole games before it
counts, and give its spread four degrees of freedom, the fewest for which Student's t is
below 3.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from playbench.core.game import JSON
from playbench.server.store import PlayerGames

#: ranked games played to their end a player needs before the table ranks them
MIN_GAMES = 5
#: Student's t at 97.5% for 1..30 degrees of freedom (two-sided 95% interval)
T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
STATISTIC = (
    f"players ranked by a lower bound on their mean score over all their ranked games of "
    f"this game (finished or abandoned, none left out), from {MIN_GAMES} finished games on: "
    f"the 95% quantile widened by sqrt(2 ln P) for a pool of the P players ranked, the "
    f"spread never below the widest of theirs"
)


def t_975(freedom: int) -> float:
    """Student's t quantile at 97.5%; past 30 degrees of freedom 1.96 + 2.4/df, within
    0.003 of the exact value."""
    if freedom <= len(T_975):
        return T_975[freedom - 1]
    return 1.96 + 2.4 / freedom


def interval(figures: PlayerGames) -> tuple[float, float]:
    """The 95% interval of the player's mean (one game: the score itself, both ends)."""
    if figures.games < 2:
        return figures.mean, figures.mean
    half = t_975(figures.games - 1) * math.sqrt(figures.variance / figures.games)
    return figures.mean - half, figures.mean + half


def counted(figures: PlayerGames) -> bool:
    """Whether the table ranks the player: :data:`MIN_GAMES` ranked games finished."""
    return figures.finished >= MIN_GAMES


def pool_variance(all_figures: list[PlayerGames]) -> float:
    """The spread no ranked player's is taken below: the widest sample variance of the
    players the table ranks (0 while none is ranked). Adding a player never lowers it."""
    return max((figures.variance for figures in all_figures if counted(figures)), default=0.0)


def bound(figures: PlayerGames, pool: int, pooled: float) -> float:
    """The lower bound the table ranks by: the mean less ``t + sqrt(2 ln pool)`` standard
    errors, the spread the larger of the player's and the pool's (``pooled``,
    :func:`pool_variance`)."""
    if figures.games < 2:
        return figures.mean
    width = t_975(figures.games - 1) + math.sqrt(2 * math.log(max(pool, 1)))
    return figures.mean - width * math.sqrt(max(figures.variance, pooled) / figures.games)


def standings(all_figures: list[PlayerGames]) -> list[JSON]:
    """The players' table: ranked players first (by :func:`bound` over the pool of ranked
    players, then the mean), then those with fewer than :data:`MIN_GAMES` finished games
    (rank null, and no part of the pool)."""
    pool = [figures for figures in all_figures if counted(figures)]
    floor = pool_variance(pool)
    rows = []
    for figures in all_figures:
        low, high = interval(figures)
        rows.append((figures, low, high, bound(figures, len(pool), floor)))
    ranked = sorted(
        (row for row in rows if counted(row[0])),
        key=lambda row: (-row[3], -row[0].mean, -row[0].games, row[0].name),
    )
    waiting = sorted(
        (row for row in rows if not counted(row[0])),
        key=lambda row: (-row[0].finished, -row[0].games, -row[0].mean, row[0].name),
    )
    table = []
    for place, (figures, low, high, ranked_by) in enumerate([*ranked, *waiting], start=1):
        table.append(
            {
                "rank": place if counted(figures) else None,
                "player": figures.name,
                "games": figures.games,
                "finished": figures.finished,
                "mean": round(figures.mean, 1),
                "low": round(low, 1),
                "high": round(high, 1),
                "bound": round(ranked_by, 1),
                "best": figures.best,
                "lastPlayed": datetime.fromtimestamp(figures.last_played, UTC).isoformat(
                    timespec="seconds"
                ),
            }
        )
    return table
