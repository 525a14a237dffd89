"""What Nim shows: the heaps as rows of stones."""

from __future__ import annotations

from typing import Any

from playbench_nim.state import MOST, State

STONE, TAKEN = "o", "."


def board(state: State) -> list[str]:
    return [STONE * now + TAKEN * (MOST - now) for now in state.heaps]


def observe(state: State) -> dict[str, Any]:
    return {
        "heaps": list(state.heaps),
        "board": board(state),
        "taken": sum(state.start) - sum(state.heaps),
        "house": None if state.house is None else list(state.house),
        "status": state.status,
        "score": state.score,
    }


def render(state: State) -> str:
    rows = [f"{index} {row}" for index, row in enumerate(board(state), 1)]
    return "\n".join([*rows, f"score {state.score} [{state.status}]"])


def progress(state: State) -> float:
    return (sum(state.start) - sum(state.heaps)) / sum(state.start)
