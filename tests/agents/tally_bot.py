"""The test game Tally's bot: always the first legal step (the fallback of the tests)."""

from __future__ import annotations

from typing import Any


class FirstStep:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        return view["legalActions"][0]


def make_bot(seed: int) -> FirstStep:
    return FirstStep(seed)
