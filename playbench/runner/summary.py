"""The figures of a run: what the table shows and ``summary.json`` holds."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable

from playbench.core.game import JSON, WON
from playbench.runner.outcome import OUTCOMES

#: resamples of the bootstrap interval, and the seed that makes it repeatable
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20_261_129
CONFIDENCE = 0.95
#: the ``llm`` figures of an episode that a run adds up
LLM_FIELDS = (
    "turns",
    "modelTurns",
    "calls",
    "promptTokens",
    "completionTokens",
    "parseFailures",
    "repaired",
    "refused",
    "retries",
    "fallbacks",
    "errors",
    "unrecordedCalls",
    "transientRetries",
    "reflections",
)


def bootstrap_interval(values: list[float]) -> tuple[float, float]:
    """A 95% percentile bootstrap interval of the mean (the same values give the same
    interval: the resampling generator is seeded)."""
    if not values:
        raise ValueError("no values")
    if len(values) == 1:
        return values[0], values[0]
    rng = random.Random(BOOTSTRAP_SEED)
    size = len(values)
    means = sorted(sum(rng.choices(values, k=size)) / size for _ in range(BOOTSTRAP_RESAMPLES))
    tail = (1 - CONFIDENCE) / 2
    low = means[int(tail * BOOTSTRAP_RESAMPLES)]
    high = means[int((1 - tail) * BOOTSTRAP_RESAMPLES) - 1]
    return low, high


def summarize(records: Iterable[JSON]) -> JSON:
    """The figures of a run's episodes (in seed order, so the interval does not depend
    on the order they finished in)."""
    rows = sorted(records, key=lambda record: (record["seed"] is None, record["seed"] or 0))
    if not rows:
        return {"episodes": 0}
    scores = [row["score"] for row in rows]
    low, high = bootstrap_interval(scores)
    outcomes = {outcome: 0 for outcome in OUTCOMES}
    for row in rows:
        outcomes[row["outcome"]] += 1
    first = rows[0]
    summary: JSON = {
        "game": first["game"],
        "agent": first["agent"],
        "episodes": len(rows),
        "meanScore": round(statistics.fmean(scores), 4),
        "medianScore": statistics.median(scores),
        "ci95": [round(low, 4), round(high, 4)],
        "minScore": min(scores),
        "maxScore": max(scores),
        "meanProgress": round(statistics.fmean(row["progress"] for row in rows), 4),
        "wins": outcomes[WON],
        "outcomes": outcomes,
        "meanSteps": round(statistics.fmean(row["steps"] for row in rows), 2),
        "steps": sum(row["steps"] for row in rows),
        "seconds": round(sum(row["seconds"] for row in rows), 3),
    }
    if "model" in first:
        summary["model"] = first["model"]
    if any("llm" in row for row in rows):
        llm: JSON = {
            name: sum(row.get("llm", {}).get(name, 0) for row in rows) for name in LLM_FIELDS
        }
        llm["modelShare"] = round(llm["modelTurns"] / llm["turns"], 4) if llm["turns"] else 0.0
        summary["llm"] = llm
    return summary
