"""Bootstrap intervals of a mean, as ``playbench bench`` and ``playbench report`` give them.

Every interval is a 95% percentile bootstrap interval, and repeatable: when the values are
so few that every resample can be listed (``n ** n`` at most :data:`RESAMPLES`) the
bootstrap distribution is exact; otherwise :data:`RESAMPLES` resamples are drawn from a
generator seeded with :data:`SEED`. The bound at probability ``p`` is the smallest
resampled mean whose cumulative weight reaches ``p`` (the lower one at 2.5%, the upper one
at 97.5%).

- :func:`mean_interval`: the mean of one list of values (a game's scores, its progress).
- :func:`paired_interval`: the mean difference of two agents over the seeds both played.
- :func:`stratified_interval`: the mean of several groups' means (the headline: the mean
  progress over the games), each group resampled on its own.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

RESAMPLES = 2000
SEED = 20_261_201
CONFIDENCE = 0.95


class StatsError(ValueError):
    """Values an interval cannot be drawn from."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean and its 95% interval."""

    mean: float
    low: float
    high: float

    def rounded(self, digits: int = 4) -> list[float]:
        """``[low, high]`` for JSON."""
        return [round(self.low, digits) + 0.0, round(self.high, digits) + 0.0]


def percentile_bounds(weighted: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """The 2.5% and 97.5% bounds of a distribution given as ``(value, weight)`` pairs."""
    points = sorted(weighted)
    total = sum(weight for _value, weight in points)
    tail = (1 - CONFIDENCE) / 2
    bounds = []
    for share in (tail, 1 - tail):
        # a tiny tolerance, so that a share reached exactly in fractions is reached in floats
        goal = share * total * (1 - 1e-12)
        running = 0.0
        for value, weight in points:
            running += weight
            if running >= goal:
                bounds.append(value)
                break
    return bounds[0], bounds[1]


def _exact(size: int) -> bool:
    return size**size <= RESAMPLES


def _resampled_means(values: Sequence[float], rng: random.Random) -> list[tuple[float, float]]:
    size = len(values)
    if _exact(size):
        return [(math.fsum(pick) / size, 1.0) for pick in itertools.product(values, repeat=size)]
    return [(math.fsum(rng.choices(values, k=size)) / size, 1.0) for _ in range(RESAMPLES)]


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` and its bootstrap interval."""
    if not values:
        raise StatsError("no values to draw an interval from")
    low, high = percentile_bounds(_resampled_means(values, random.Random(SEED)))
    return Interval(statistics.fmean(values), low, high)


def paired_interval(first: Mapping[int, float], second: Mapping[int, float]) -> Interval:
    """The mean of ``first[seed] - second[seed]`` over the seeds both hold, resampled by
    seed (a paired bootstrap)."""
    seeds = sorted(first.keys() & second.keys())
    if not seeds:
        raise StatsError("the two share no seed: nothing to pair")
    return mean_interval([first[seed] - second[seed] for seed in seeds])


def stratified_interval(groups: Sequence[Sequence[float]]) -> Interval:
    """The mean of the groups' means, each group resampled on its own in every draw."""
    if not groups or any(not group for group in groups):
        raise StatsError("every group needs at least one value")
    rng = random.Random(SEED)
    count = len(groups)
    means = []
    for _ in range(RESAMPLES):
        total = 0.0
        for group in groups:
            total += math.fsum(rng.choices(group, k=len(group))) / len(group)
        means.append((total / count, 1.0))
    low, high = percentile_bounds(means)
    return Interval(statistics.fmean(statistics.fmean(group) for group in groups), low, high)
