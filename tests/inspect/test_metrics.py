"""The Inspect door's metrics are the bench's figures: a suite with a scale played through
Inspect (``mockllm/model`` answering from a script), its log imported as a bench folder,
and the headline, its interval and the progress headline compared with ``bench.json``'s
for the same episodes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage

from playbench.cli import main
from playbench.inspect.tasks import suite
from playbench.runner.bench import bench_figures
from playbench.runner.suite import load_suite
from tests.inspect.scripted import Script, legal_moves

SUITE = {
    "name": "metric-pair",
    "description": "two games, a few actions each, on a scale of their own",
    "games": {
        "gem-swap": {"seeds": "0-2", "options": {}, "maxSteps": 6, "harness": {}},
        "chimestep": {"seeds": "0-1", "options": {}, "maxSteps": 8, "harness": {}},
    },
    "baselines": {
        "gem-swap": {
            "random": {"0": 60, "1": 0, "2": 30},
            "reference": {"0": 900, "1": 700, "2": 800},
            "referenceAgent": "bot",
        },
        "chimestep": {
            "random": {"0": 10, "1": 0},
            "reference": {"0": 100, "1": 120},
            "referenceAgent": "bot",
        },
    },
}


class AnyMove(Script):
    """Each turn one legal move drawn from a generator of a drawn seed, in the reply key
    the turn's system prompt asks for."""

    def __init__(self, seed: int) -> None:
        super().__init__("commands")
        self.rng = random.Random(seed)

    def __call__(self, messages: list[ChatMessage], tools: Any, choice: Any, config: Any) -> Any:
        system = next(m.text for m in messages if m.role == "system")
        self.key = "actions" if '{"actions"' in system else "commands"
        legal = legal_moves(messages)
        if legal is not None:
            self.entries.append([self.rng.choice(legal)])
        return super().__call__(messages, tools, choice, config)


def test_the_metrics_equal_the_bench_figures_of_the_same_log(tmp_path: Path):
    path = tmp_path / "metric-pair.json"
    path.write_text(json.dumps(SUITE))
    seed = random.SystemRandom().randrange(2**32)
    [log] = inspect_eval(
        suite(suite=str(path)),
        model="mockllm/model",
        model_args={"custom_outputs": AnyMove(seed)},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", seed
    out = tmp_path / "imported"
    assert main(["import", str(log.location), "--out", str(out)]) == 0
    figures = bench_figures(out, load_suite(str(path)))
    metrics = log.results.scores[0].metrics
    headline = figures["headline"]
    assert round(metrics["headline"].value, 4) == headline["normalisedScore"], seed
    low, high = (round(metrics[name].value, 4) for name in ("headline_low", "headline_high"))
    assert [low, high] == headline["normalisedCi95"], seed
    assert round(metrics["progress_headline"].value, 4) == headline["meanProgress"], seed
    for sample in log.samples:
        score = sample.scores["replay"].metadata
        by_seed = figures["games"][score["game"]]["normalisedBySeed"]
        assert round(score["normalised"], 4) == by_seed[str(score["seed"])], seed
