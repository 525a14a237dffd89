"""Tally: a tiny test-only game that exercises every part of the contract the server uses.

Walk a token along a line of ``GOAL`` cells with steps of 1 or 2; one hidden cell (drawn
from the seed, never shown) pays a bonus. A ``fumble`` is refused but counted (like a
Cogcrawl reply that fails to parse): three fumbles end the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core import (
    Command,
    CommandError,
    Game,
    OptionsError,
    Outcome,
    Rng,
    Spec,
    StateError,
    check_seed,
)

GOAL = 8
BONUS = 5
MAX_FUMBLES = 3
STEPS = (1, 2)


class TallyState:
    __slots__ = ("bonus_cell", "fumbles", "pos", "rng", "score")

    def __init__(self, pos: int, score: int, fumbles: int, bonus_cell: int, rng: Rng) -> None:
        self.pos = pos
        self.score = score
        self.fumbles = fumbles
        self.bonus_cell = bonus_cell
        self.rng = rng


class Tally(Game[TallyState]):
    """Description: walk to the goal. Actions: step by 1 or 2, fumble. Observation: pos,
    score, fumbles. Scoring: +1 per cell, +5 on the hidden cell. Termination: goal or three
    fumbles."""

    slug = "tally"
    name = "Tally"
    genre = "test"

    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> TallyState:
        check_seed(seed)
        if options:
            raise OptionsError(f"tally takes no options, got {sorted(options)}")
        rng = Rng.from_seed(seed)
        return TallyState(0, 0, 0, rng.randint(1, GOAL - 1), rng)

    def legal_actions(self, state: TallyState) -> list[dict[str, Any]]:
        if self.is_over(state):
            return []
        return [{"type": "step", "by": by} for by in STEPS if state.pos + by <= GOAL]

    def step(self, state: TallyState, action: Any) -> Outcome[TallyState]:
        if self.is_over(state):
            return Outcome.refused(state, "the run is over")
        if action == {"type": "fumble"}:
            after = TallyState(
                state.pos, state.score, state.fumbles + 1, state.bonus_cell, state.rng
            )
            return Outcome.counted_refusal(after, "fumbled: counted")
        if not isinstance(action, dict) or action.get("type") != "step":
            return Outcome.refused(state, "action must be {type: step, by: 1|2}")
        by = action.get("by")
        if by not in STEPS or type(by) is not int:
            return Outcome.refused(state, "by must be 1 or 2")
        if state.pos + by > GOAL:
            return Outcome.refused(state, "that steps past the goal")
        pos = state.pos + by
        gain = by + (BONUS if pos == state.bonus_cell else 0)
        after = TallyState(pos, state.score + gain, state.fumbles, state.bonus_cell, state.rng)
        return Outcome(state=after, reward=gain, events=[{"type": "moved", "to": pos}])

    def score(self, state: TallyState) -> int:
        return state.score

    def is_over(self, state: TallyState) -> bool:
        return state.pos >= GOAL or state.fumbles >= MAX_FUMBLES

    def progress(self, state: TallyState) -> float:
        return state.pos / GOAL

    def observe(self, state: TallyState) -> dict[str, Any]:
        return {"pos": state.pos, "goal": GOAL, "score": state.score, "fumbles": state.fumbles}

    def render(self, state: TallyState) -> str:
        return "".join("@" if i == state.pos else "." for i in range(GOAL + 1))

    def spec(self) -> Spec:
        return Spec(
            description="Walk a token to the goal.",
            goal=f"Reach cell {GOAL}.",
            scoring=f"+1 per cell, +{BONUS} on the hidden cell.",
            rules=["Step by 1 or 2.", "A fumble is refused but counted; three end the run."],
            action_schema={"type": "object", "properties": {"type": {"enum": ["step"]}}},
            commands=[
                Command("step <1|2>", "walk that many cells", "step 2"),
                Command("fumble", "drop the token (refused, counted)", "fumble"),
            ],
            observation={"pos": "where the token is", "fumbles": "fumbles so far"},
        )

    def parse_command(self, text: str) -> dict[str, Any]:
        words = text.split()
        if words == ["fumble"]:
            return {"type": "fumble"}
        if len(words) == 2 and words[0] == "step" and words[1] in ("1", "2"):
            return {"type": "step", "by": int(words[1])}
        raise CommandError(f"unknown command {text!r}: try 'step 1', 'step 2' or 'fumble'")

    def command_text(self, action: Any) -> str:
        if action == {"type": "fumble"}:
            return "fumble"
        return f"step {action['by']}"

    def to_json(self, state: TallyState) -> dict[str, Any]:
        return {
            "pos": state.pos,
            "score": state.score,
            "fumbles": state.fumbles,
            "bonusCell": state.bonus_cell,
            "rng": state.rng.to_json(),
        }

    def from_json(self, data: Any) -> TallyState:
        keys = ("pos", "score", "fumbles", "bonusCell")
        if not isinstance(data, dict) or not all(type(data.get(k)) is int for k in keys):
            raise StateError("tally state needs integer pos, score, fumbles, bonusCell")
        return TallyState(
            data["pos"],
            data["score"],
            data["fumbles"],
            data["bonusCell"],
            Rng.from_json(data.get("rng")),
        )
