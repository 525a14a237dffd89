"""The train/test protocol of the Gymnasium door: which seeds (or levels) train, which test.

What a seed controls differs by game (each game's ``learning`` module says it):

- **Gem Swap**: the starting board and every refill, so a seed is one game. Train on
  seeds ``TRAIN_START_SEED .. TRAIN_START_SEED + TRAIN_NUM_SEEDS - 1``, test on
  ``TEST_SEEDS`` (0-99), which no training game plays.
- **Chimestep**: where and when each Hush enters and how it moves; the pyramid is the
  same for every seed. The same seed ranges.
- **Cogcrawl**: the whole dungeon (every level's layout, monsters and items) and every
  roll, as NetHack's and MiniHack's seeds do. The same seed ranges.
- **Delvewick**: nothing: the game draws nothing at random and every seed plays the same
  eight levels. Its tasks are its start levels (the ``startLevel`` option; a run goes on
  through the levels after it): train on ``DELVEWICK_TRAIN_LEVELS`` (1-6), test on
  ``DELVEWICK_TEST_LEVELS`` (7 and 8), which a training run reaches only by clearing
  every level before them.

:func:`train_keywords` gives the env keywords that make an env draw its training games
(``num_seeds``/``start_seed``, Procgen's ``num_levels``/``start_level``; ``tasks`` for
Delvewick); :func:`test_games` lists the held-out (seed, options) pairs.
"""

from __future__ import annotations

from typing import Any

TEST_SEEDS = range(100)
TRAIN_START_SEED = 1_000
TRAIN_NUM_SEEDS = 1_000_000
DELVEWICK = "delvewick"
DELVEWICK_TRAIN_LEVELS = (1, 2, 3, 4, 5, 6)
DELVEWICK_TEST_LEVELS = (7, 8)


def train_keywords(slug: str) -> dict[str, Any]:
    """The env keywords under which every reset without a seed draws a training game."""
    if slug == DELVEWICK:
        return {"tasks": [{"startLevel": level} for level in DELVEWICK_TRAIN_LEVELS]}
    return {"start_seed": TRAIN_START_SEED, "num_seeds": TRAIN_NUM_SEEDS}


def test_games(slug: str, count: int = len(TEST_SEEDS)) -> list[tuple[int, dict[str, Any] | None]]:
    """The first ``count`` held-out games as (seed, options): the test seeds, or for
    Delvewick the test levels in turn (seed ``i`` for the ``i``-th game)."""
    if slug == DELVEWICK:
        levels = DELVEWICK_TEST_LEVELS
        return [(i, {"startLevel": levels[i % len(levels)]}) for i in range(count)]
    return [(seed, None) for seed in TEST_SEEDS[:count]]
