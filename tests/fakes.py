"""A tiny counter game for testing the doors without any real game's rules."""

from __future__ import annotations

from typing import Any

from playbench.core import Command, CommandError, Game, Outcome, Spec, StateError, check_seed
from playbench.core.controls import Controls

COUNTER_CONTROLS = Controls(keys={"a": "add 1", "b": "add 2", "xy": "add 1", "p": "add ..."})


class Counter(Game[dict]):
    """Add 1 or 2 to a total; the run ends at 5 or more."""

    slug = "counter"
    name = "Counter"
    genre = "test"
    GOAL = 5

    def new(self, seed: int, options: Any = None) -> dict:
        check_seed(seed)
        return {"total": 0, "seed": seed}

    def legal_actions(self, state: dict) -> list[dict]:
        return [] if self.is_over(state) else [{"add": 1}, {"add": 2}]

    def step(self, state: dict, action: Any) -> Outcome[dict]:
        if action not in self.legal_actions(state):
            return Outcome.refused(state, f"cannot {action!r} now")
        total = state["total"] + action["add"]
        return Outcome({**state, "total": total}, reward=action["add"], events=[{"type": "add"}])

    def score(self, state: dict) -> int:
        return state["total"]

    def is_over(self, state: dict) -> bool:
        return state["total"] >= self.GOAL

    def progress(self, state: dict) -> float:
        return min(1.0, state["total"] / self.GOAL)

    def observe(self, state: dict) -> dict:
        return {"total": state["total"]}

    def render(self, state: dict) -> str:
        return f"total {state['total']}"

    def spec(self) -> Spec:
        return Spec(
            description="count",
            goal="reach 5",
            scoring="the total",
            rules=["add 1 or 2"],
            action_schema={"type": "object"},
            commands=[Command("add N", "add N", "add 1")],
            observation={"total": "the total"},
        )

    def parse_command(self, text: str) -> dict:
        words = text.split()
        if len(words) == 2 and words[0] == "add" and words[1] in ("1", "2"):
            return {"add": int(words[1])}
        raise CommandError(f"unknown command {text!r}: try 'add 1' or 'add 2'")

    def command_text(self, action: Any) -> str:
        return f"add {action['add']}"

    def to_json(self, state: dict) -> dict:
        return dict(state)

    def from_json(self, data: Any) -> dict:
        if not isinstance(data, dict) or set(data) != {"total", "seed"}:
            raise StateError("not a counter state")
        return dict(data)
