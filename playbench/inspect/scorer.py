"""The replay scorer: a sample's episode rebuilt from its seed and action log with
:meth:`~playbench.core.match.Match.replay`, scored by the game's progress (0 to 1).

The score's metadata holds the ``game`` and ``seed``, the game's ``score``, the
``normalised`` score on the suite's scale (None where the task's suite has none), the
``outcome``, the model's turns (``modelTurns`` of ``turns``, and ``modelShare``) and the
state's ``fingerprint``. A log whose actions do not replay to the state it records raises
:class:`~playbench.runner.inspect_log.InspectLogError`: the sample is an error, never a
result.

The task's metrics: the mean progress over the samples with its standard error, the mean
score and the model's share of all the turns played, and the figures ``bench.json`` gives
for the same episodes (:mod:`playbench.runner.bench`), computed the same way:
``headline`` (the mean over games of each game's mean normalised score), ``headline_low``
and ``headline_high`` (its 95% interval, the games' slots resampled on their own) and
``progress_headline`` (the mean over games of each game's mean progress). Without a scale
the three normalised metrics are NaN.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from playbench.runner.inspect_log import STORE_KEY, check_episode
from playbench.runner.stats import Interval, stratified_interval
from playbench.runner.suite import Baseline, normalise

#: a game's scale as the scorer takes it: the random agent's and the reference's mean
Scale = Mapping[str, Mapping[str, float]]


def scale_of(baselines: Mapping[str, Baseline] | None) -> dict[str, dict[str, float]] | None:
    """A suite's baselines as the scorer's argument (plain numbers, which Inspect records)."""
    if baselines is None:
        return None
    return {
        slug: {"random": baseline.random_mean, "reference": baseline.reference_mean}
        for slug, baseline in baselines.items()
    }


def _groups(scores: list[SampleScore], key: str) -> list[list[float]]:
    """The values of ``key`` (``"value"``: the score's value) by game, in the order the
    games first come and by seed within a game, as ``bench.json`` takes its episodes."""
    games: dict[str, list[tuple[int, float]]] = {}
    for sample in scores:
        data = sample.score.metadata or {}
        value = sample.score.value if key == "value" else data.get(key)
        if "game" in data and value is not None:
            games.setdefault(data["game"], []).append((data["seed"], float(value)))
    return [[value for _seed, value in sorted(rows)] for rows in games.values()]


def _headline(scores: list[SampleScore]) -> Interval | None:
    groups = _groups(scores, "normalised")
    return stratified_interval(groups) if groups else None


def _headline_part(part: str) -> Metric:
    """A metric of the headline's interval: its ``mean``, ``low`` or ``high`` (NaN without
    a scale)."""

    def compute(scores: list[SampleScore]) -> float:
        found = _headline(scores)
        return math.nan if found is None else getattr(found, part)

    return compute


@metric
def headline() -> Metric:
    """The mean over games of each game's mean normalised score (NaN without a scale)."""
    return _headline_part("mean")


@metric
def headline_low() -> Metric:
    """The lower end of the headline's 95% interval."""
    return _headline_part("low")


@metric
def headline_high() -> Metric:
    """The upper end of the headline's 95% interval."""
    return _headline_part("high")


@metric
def progress_headline() -> Metric:
    """The mean over games of each game's mean progress."""

    def compute(scores: list[SampleScore]) -> float:
        groups = _groups(scores, "value")
        return statistics.fmean(statistics.fmean(group) for group in groups) if groups else 0.0

    return compute


@metric
def mean_score() -> Metric:
    """The mean of the games' scores."""

    def compute(scores: list[SampleScore]) -> float:
        values = [sample.score.metadata["score"] for sample in scores if sample.score.metadata]
        return statistics.fmean(values) if values else 0.0

    return compute


@metric
def model_share() -> Metric:
    """The share of all the turns that the model's own replies played (not its
    fallback's), over every episode."""

    def compute(scores: list[SampleScore]) -> float:
        held = [sample.score.metadata for sample in scores if sample.score.metadata]
        turns = sum(data["turns"] for data in held)
        return sum(data["modelTurns"] for data in held) / turns if turns else 0.0

    return compute


@scorer(
    metrics=[
        mean(),
        stderr(),
        mean_score(),
        model_share(),
        headline(),
        headline_low(),
        headline_high(),
        progress_headline(),
    ]
)
def replay(scale: Scale | None = None) -> Scorer:
    """The episode's progress, once its action log replays to the state it records; its
    score normalised on ``scale`` (:func:`scale_of` of the suite's baselines)."""

    async def score(state: TaskState, target: Target) -> Score:
        held = state.store.get(STORE_KEY)
        checked = check_episode(state.metadata, held)
        counts = held.get("llm") or {}
        turns, model_turns = counts.get("turns", 0), counts.get("modelTurns", 0)
        end = held["replay"][-1]["end"]
        return Score(
            value=checked.progress,
            answer=f"score {checked.score}, {checked.outcome}",
            explanation=(
                f"{checked.match.game.name} seed {checked.match.seed}: {len(held['replay']) - 2} "
                f"actions replayed to score {checked.score} ({checked.outcome}"
                + (f" by {end['budget']}" if end.get("budget") else "")
                + f"); the model played {model_turns} of {turns} turns"
            ),
            metadata={
                "game": checked.match.game.slug,
                "seed": checked.match.seed,
                "score": checked.score,
                "normalised": _normalised(scale, checked.match.game.slug, checked.score),
                "outcome": checked.outcome,
                "turns": turns,
                "modelTurns": model_turns,
                "modelShare": model_turns / turns if turns else 0.0,
                "fingerprint": checked.fingerprint,
                "budget": end.get("budget"),
            },
        )

    return score


def _normalised(scale: Scale | None, slug: str, score: float) -> float | None:
    if scale is None or slug not in scale:
        return None
    return normalise(score, scale[slug]["random"], scale[slug]["reference"])
