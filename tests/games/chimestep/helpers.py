"""Shared helpers: a game in play, crafted states, commands played in a row."""

from __future__ import annotations

from typing import Any

from playbench.bots.chimestep import greedy_action
from playbench.core import get_game
from playbench.core.match import Match
from playbench.games.chimestep.board import TILE_COUNT, index
from playbench.games.chimestep.state import State
from playbench.games.chimestep.tables import INTRO_TICKS

GAME = get_game("chimestep")


def craft(state: State, **changes: Any) -> State:
    """``state`` with some JSON fields replaced, validated by ``from_json``."""
    data = GAME.to_json(state)
    data.update(changes)
    return GAME.from_json(data)


def playing(seed: int = 1, **changes: Any) -> State:
    """A run of ``seed`` just past the stage-1 intro with the hop ready (hopCooldown 0, as
    after the first 4 ticks of play, but with every other clock still at play start), with
    ``changes`` applied."""
    state = GAME.step(GAME.new(seed), {"type": "start"}).state
    state = GAME.step(state, {"type": "tick", "count": INTRO_TICKS}).state
    assert GAME.observe(state)["status"] == "playing"
    return craft(state, **{"hopCooldown": 0, **changes})


def run(state: State, *commands: str) -> tuple[State, list[dict], int]:
    """Play text commands that must all be accepted; return state, events and reward."""
    events: list[dict] = []
    reward = 0
    for command in commands:
        outcome = GAME.step(state, GAME.parse_command(command))
        assert outcome.ok, f"{command!r} refused: {outcome.reason}"
        state = outcome.state
        events += outcome.events
        reward += outcome.reward
    return state, events, reward


def levels(**rows: Any) -> list[int]:
    """A flat tile list: every tile at ``fill`` except ``at`` {(row, col): level}."""
    tiles = [rows.get("fill", 0)] * TILE_COUNT
    for (row, col), level in rows.get("at", {}).items():
        tiles[index(row, col)] = level
    return tiles


def hush_entry(kind: str, row: int, col: int, dormant: int = 0, clock: int = 1, awake: int = 0):
    return {
        "kind": kind,
        "row": row,
        "col": col,
        "dormantTicks": dormant,
        "clock": 0 if dormant else clock,
        "awakeTicks": awake,
    }


def where(state: State) -> tuple[int, int]:
    position = GAME.observe(state)["position"]
    return position["row"], position["col"]


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def wait(state: State, ticks: int) -> tuple[State, list[dict], int]:
    """Let ``ticks`` ticks pass, in batches of at most 30."""
    commands = [f"tick {min(30, ticks - done)}" for done in range(0, ticks, 30)]
    return run(state, *commands)


def greedy_from_state(state: State) -> dict:
    """The greedy baseline's action, from the view of ``state`` alone."""
    return greedy_action(Match(GAME, state).view())
