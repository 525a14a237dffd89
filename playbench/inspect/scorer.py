"""The replay scorer: a sample's episode rebuilt from its seed and action log with
:meth:`~playbench.core.match.Match.replay`, scored by the game's progress (0 to 1).

The score's metadata holds the game's ``score``, the ``outcome``, the model's turns
(``modelTurns`` of ``turns``, and ``modelShare``) and the state's ``fingerprint``. A log
whose actions do not replay to the state it records raises
:class:`~playbench.runner.inspect_log.InspectLogError`: the sample is an error, never a
result. The task's metrics: the mean progress with its standard error, the mean score
and the model's share of all the turns played.
"""

from __future__ import annotations

import statistics

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


@scorer(metrics=[mean(), stderr(), mean_score(), model_share()])
def replay() -> Scorer:
    """The episode's progress, once its action log replays to the state it records."""

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
                "score": checked.score,
                "outcome": checked.outcome,
                "turns": turns,
                "modelTurns": model_turns,
                "modelShare": model_turns / turns if turns else 0.0,
                "fingerprint": checked.fingerprint,
                "budget": end.get("budget"),
            },
        )

    return score
