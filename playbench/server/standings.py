"""The players' table of a leaderboard: every ranked game a player closed counts.

A list of best single games rewards whoever plays most and keeps only the best
(best-of-N). The players' table ranks each registered player by the lower bound of the
95% interval of the mean over *all* their ranked games of that game, finished or
abandoned, once they have played at least :data:`MIN_GAMES`: playing more games narrows
the interval around the player's true mean, it never lifts it, and a player cannot leave
a game out (an abandoned game counts at its score then).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from playbench.core.game import JSON
from playbench.server.storage import PlayerGames

#: ranked games a player needs before the table ranks them
MIN_GAMES = 5
#: Student's t at 97.5% for 1..30 degrees of freedom (two-sided 95% interval)
T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
STATISTIC = (
    f"players ranked by the lower bound of the 95% interval of their mean score over all "
    f"their ranked games of this game (finished or abandoned, none left out), from "
    f"{MIN_GAMES} games on"
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


def standings(all_figures: list[PlayerGames]) -> list[JSON]:
    """The players' table: ranked players first (by the interval's lower bound, then the
    mean), then those with fewer than :data:`MIN_GAMES` games (rank null)."""
    rows = []
    for figures in all_figures:
        low, high = interval(figures)
        rows.append((figures, low, high))
    ranked = sorted(
        (row for row in rows if row[0].games >= MIN_GAMES),
        key=lambda row: (-row[1], -row[0].mean, -row[0].games, row[0].name),
    )
    waiting = sorted(
        (row for row in rows if row[0].games < MIN_GAMES),
        key=lambda row: (-row[0].games, -row[0].mean, row[0].name),
    )
    table = []
    for place, (figures, low, high) in enumerate([*ranked, *waiting], start=1):
        table.append(
            {
                "rank": place if figures.games >= MIN_GAMES else None,
                "player": figures.name,
                "games": figures.games,
                "mean": round(figures.mean, 1),
                "low": round(low, 1),
                "high": round(high, 1),
                "best": figures.best,
                "lastPlayed": datetime.fromtimestamp(figures.last_played, UTC).isoformat(
                    timespec="seconds"
                ),
            }
        )
    return table
