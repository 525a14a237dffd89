"""benchmarks/layer_costs.py: every variant answers what the bare app answers (no rate
limit refuses during a measurement), so its rows compare like with like."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from playbench.server.quota import limits_engine

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "layer_costs.py"


@pytest.fixture
def bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("layer_costs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "layer_costs", module)
    spec.loader.exec_module(module)
    return module


def test_every_variant_answers_as_the_bare_app(bench, tmp_path):
    limits = limits_engine(f"sqlite:///{tmp_path / 'playbench.db'}")
    answers: dict[str, list[tuple[Any, ...]]] = {}

    async def main() -> None:
        for name, (make, fresh) in bench.variants(limits).items():
            app = make()
            sent: list[dict[str, Any]] = []

            async def keep(message: dict[str, Any], sent: list = sent) -> None:
                sent.append(message)

            for index in range(45):  # past two leases of one address
                address = f"10.0.0.{index}" if fresh else "10.0.0.1"
                await app(bench.scope_of(address), bench.receive, keep)
            answers[name] = [(message.get("status"), message.get("body")) for message in sent]

    anyio.run(main)
    limits.dispose()
    expected = [(200, None), (None, bench.BODY)] * 45
    assert list(answers) == [
        "bare app (the reference)",
        "metrics layer (Operations)",
        "rate limits, one address",
        "rate limits, a new address each request",
    ]
    assert all(found == expected for found in answers.values())
