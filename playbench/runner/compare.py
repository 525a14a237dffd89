"""Two agents compared on the same episodes: paired differences with their 95% intervals.

Where the suite has a scale (:mod:`playbench.runner.suite`), the difference on a slot is
the difference of the two agents' normalised scores; per game the mean difference over the
slots both played carries a paired bootstrap interval (:func:`~playbench.runner.stats.
paired_interval`), and the headline's difference is the mean over games of those means,
each game's slots resampled on their own (:func:`~playbench.runner.stats.
stratified_interval`), which is the difference of the two headlines. A suite without a
scale compares raw scores, per game only. A difference whose interval excludes 0 is a
verdict ("A beats B on Gem Swap by 0.21 (0.12-0.30)"); one whose interval holds 0 says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.runner.stats import Interval, paired_interval, stratified_interval

#: the unit of a comparison on a suite's scale, and of one without
NORMALISED = "normalised score"
SCORE = "score"
#: the game of the headline's comparison
HEADLINE = ""


@dataclass(frozen=True, slots=True)
class Pair:
    """Two agents' differences on one game (or the headline) over the slots both played."""

    game: str
    first: str
    second: str
    differences: list[float]
    interval: Interval
    unit: str = NORMALISED

    @property
    def where(self) -> str:
        return "the headline" if self.game == HEADLINE else get_game(self.game).name

    @property
    def excludes_zero(self) -> bool:
        return not self.interval.low <= 0 <= self.interval.high

    def _number(self, value: float) -> str:
        return f"{value:.2f}" if self.unit == NORMALISED else f"{value:,.0f}"

    def sentence(self) -> str:
        """ "A beats B on Gem Swap by 0.21 (0.12-0.30)", or that the interval holds 0."""
        mean, low, high = self.interval.mean, self.interval.low, self.interval.high
        unit = "" if self.unit == NORMALISED else " points"
        if mean == low == high == 0:
            return f"{self.first} and {self.second} tie on {self.where} on every slot"
        if not self.excludes_zero:
            return (
                f"{self.first} and {self.second} are not told apart on {self.where}: "
                f"{self._number(mean)}{unit} ({self._number(low)} to {self._number(high)}), "
                "the 95% interval holds 0"
            )
        winner, loser = (self.first, self.second) if mean > 0 else (self.second, self.first)
        if mean < 0:
            mean, low, high = -mean, -high, -low
        return (
            f"{winner} beats {loser} on {self.where} by {self._number(mean)}{unit} "
            f"({self._number(low)}-{self._number(high)})"
        )

    def to_json(self) -> JSON:
        return {
            "game": self.game or None,
            "first": self.first,
            "second": self.second,
            "unit": self.unit,
            "slots": len(self.differences),
            "meanDifference": round(self.interval.mean, 4),
            "ci95": self.interval.rounded(),
            "excludesZero": self.excludes_zero,
            "sentence": self.sentence(),
        }


def slot_values(
    bench: JSON, slug: str, scores: Mapping[int, float]
) -> tuple[dict[int, float], str]:
    """A game's values by slot in ``bench``: its normalised scores where the suite has a
    scale, else ``scores`` (the raw scores by seed)."""
    normalised = bench["games"][slug].get("normalisedBySeed")
    if normalised is None:
        return dict(scores), SCORE
    return {int(seed): value for seed, value in normalised.items()}, NORMALISED


def compare(
    first: tuple[str, JSON, Mapping[str, Mapping[int, float]]],
    second: tuple[str, JSON, Mapping[str, Mapping[int, float]]],
) -> list[Pair]:
    """The pairs of two agents, each given as (label, ``bench.json``, raw scores by game and
    seed): one per game both played on shared slots, then the headline where both have it
    on the suite's scale and share slots in every game."""
    (one, one_bench, one_scores), (other, other_bench, other_scores) = first, second
    found: list[Pair] = []
    groups: list[list[float]] = []
    for slug in one_bench["games"]:
        if slug not in other_bench["games"]:
            continue
        mine, unit = slot_values(one_bench, slug, one_scores[slug])
        theirs, other_unit = slot_values(other_bench, slug, other_scores[slug])
        if unit != other_unit:
            mine, unit = dict(one_scores[slug]), SCORE
            theirs = dict(other_scores[slug])
        seeds = sorted(mine.keys() & theirs.keys())
        if not seeds:
            continue
        differences = [mine[seed] - theirs[seed] for seed in seeds]
        found.append(Pair(slug, one, other, differences, paired_interval(mine, theirs), unit))
        if unit == NORMALISED:
            groups.append(differences)
    if groups and len(groups) == len(one_bench["games"]) == len(found):
        flat = [value for group in groups for value in group]
        found.append(Pair(HEADLINE, one, other, flat, stratified_interval(groups)))
    return found


def all_pairs(
    agents: Sequence[tuple[str, JSON, Mapping[str, Mapping[int, float]]]],
) -> list[Pair]:
    """Every two agents compared, in the order given."""
    return [pair for a, b in itertools.combinations(agents, 2) for pair in compare(a, b)]
