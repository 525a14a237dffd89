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

Every env keeps to it through :class:`Seeds`, chosen by its ``games`` keyword:

- ``"train"`` (the default): every reset plays a training game, ``reset(seed=s)``
  included: ``s`` seeds the env's generator, which draws the game (so SB3's
  ``make_vec_env(seed=0)`` trains on training games, reproducibly). ``start_seed``,
  ``num_seeds`` and ``tasks`` narrow the training games and may not reach a test game.
- ``"test"``: ``reset(seed=i)`` plays held-out game ``i`` (``test_games(slug)[i]``), a
  reset without a seed one drawn from them.
- ``"any"``: ``reset(seed=s)`` plays game seed ``s`` itself, whatever it is; a reset
  without a seed draws from ``start_seed .. start_seed + num_seeds - 1`` (by default any
  seed below 2**63) and the options from ``tasks``.

A reset's own ``options`` are an explicit choice and always hold for that episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from playbench.kernels.draws import integers_each

if TYPE_CHECKING:
    import numpy as np

TEST_SEEDS = range(100)
TRAIN_START_SEED = 1_000
TRAIN_NUM_SEEDS = 1_000_000
DELVEWICK = "delvewick"
DELVEWICK_TRAIN_LEVELS = (1, 2, 3, 4, 5, 6)
DELVEWICK_TEST_LEVELS = (7, 8)
#: what an env's resets play (``games=``)
GAMES = ("train", "test", "any")
#: game seeds drawn without a range lie in 0 .. SEED_BOUND - 1
SEED_BOUND = 2**63 - 1
START_LEVEL = "startLevel"


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


class Seeds:
    """Where one env's resets find their game seeds and options (``games=``, above)."""

    def __init__(
        self,
        slug: str,
        games: str = "train",
        start_seed: int | None = None,
        num_seeds: int | None = None,
        tasks: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if games not in GAMES:
            raise ValueError(f"games must be one of {list(GAMES)}, got {games!r}")
        self.slug, self.games = slug, games
        if games == "test" and (start_seed, num_seeds, tasks) != (None, None, None):
            raise ValueError(
                "start_seed, num_seeds and tasks choose training games: "
                "no use with games='test', which plays the held-out games"
            )
        trains = games == "train" and num_seeds is None and start_seed is None
        if trains:
            start_seed, num_seeds = TRAIN_START_SEED, TRAIN_NUM_SEEDS
        start_seed, num_seeds = start_seed or 0, num_seeds or 0
        if num_seeds < 0 or start_seed < 0:
            raise ValueError(
                f"start_seed and num_seeds must be at least 0, got {start_seed}, {num_seeds}"
            )
        if start_seed + num_seeds > SEED_BOUND:
            raise ValueError(f"start_seed + num_seeds must be at most {SEED_BOUND}")
        if tasks is not None and not len(tasks):
            raise ValueError("tasks must hold at least one set of options")
        if games == "train" and slug == DELVEWICK and tasks is None and not options:
            tasks = train_keywords(slug)["tasks"]
        self.start_seed, self.num_seeds = start_seed, num_seeds
        self.tasks = None if tasks is None else [dict(task) for task in tasks]
        if games == "train":
            self._check_training(options)
        self._tests = test_games(slug) if games == "test" else []

    def _check_training(self, options: Mapping[str, Any] | None) -> None:
        """ValueError when a training draw could play a held-out game."""
        if self.slug == DELVEWICK:
            for chosen in [options or {}, *(self.tasks or [])]:
                if chosen.get(START_LEVEL) in DELVEWICK_TEST_LEVELS:
                    raise ValueError(
                        f"startLevel {chosen[START_LEVEL]} is a test level "
                        f"({list(DELVEWICK_TEST_LEVELS)}): games='test' plays them, "
                        "games='any' plays anything"
                    )
            return
        end = self.start_seed + self.num_seeds if self.num_seeds else SEED_BOUND
        if self.start_seed < TEST_SEEDS.stop and end > TEST_SEEDS.start:
            raise ValueError(
                f"training seeds {self.start_seed} .. {end - 1} reach the test seeds "
                f"{TEST_SEEDS.start}-{TEST_SEEDS.stop - 1}: start at {TEST_SEEDS.stop} or "
                "above, or pass games='any'"
            )

    def game(
        self,
        generator: np.random.Generator,
        seed: int | None,
        options: Mapping[str, Any] | None,
    ) -> tuple[int, Mapping[str, Any] | None]:
        """The game seed and options of a reset asked for with ``seed`` (the generator
        already seeded by it), the env's ``options`` the default."""
        if self.games == "test":
            count = len(self._tests)
            if seed is None:
                seed = int(generator.integers(count))
            elif not 0 <= seed < count:
                raise ValueError(
                    f"games='test' plays held-out games 0 .. {count - 1}, got seed {seed}"
                )
            game_seed, chosen = self._tests[seed]
            return game_seed, options if chosen is None else {**(options or {}), **chosen}
        if seed is not None and self.games == "any":
            return seed, options
        drawn = self.start_seed + integers_each([generator], self._span())[0]
        if self.tasks is not None:
            options = self.tasks[int(generator.integers(len(self.tasks)))]
        return drawn, options

    def _span(self) -> int:
        """How many seeds a training or ``any`` draw picks among."""
        return self.num_seeds or SEED_BOUND - self.start_seed

    def draws(
        self, generators: Sequence[np.random.Generator], options: Mapping[str, Any] | None
    ) -> list[tuple[int, Mapping[str, Any] | None]]:
        """:meth:`game` of a reset asked with no seed for each of ``generators`` in turn (a
        vector env's envs that start again at once): the very same draws, with the choices
        of the mode made once where every env draws only its seed."""
        if self.games == "test" or self.tasks is not None:
            return [self.game(generator, None, options) for generator in generators]
        start, span = self.start_seed, self._span()
        return [(start + drawn, options) for drawn in integers_each(generators, span)]
