"""Cogcrawl's step: one seat turn, as a chain of small systems.

1. A finished run refuses every action.
2. The reply is read (``seat.take_reply``): anything but one JSON object of at most 4096
   bytes is a parse failure; a first one is refused with the retry counted
   (``seat.retry_turn``); a second one hands the turn to the delver.
3. The reply is validated and planned into a queue of dungeon primitives against the
   map as of the turn's start (``protocol.plan_turn``, through ``seat.plan_queue``).
4. The turn opens on a copy of the state (the current level deeply, the other levels
   shared until entered), so the input is never mutated; the reply's ``say`` goes to
   the spectators only, as the turn's first event.
5. The queue runs one primitive at a time (``actions``); after every primitive that takes
   time the monsters act, hunger and regeneration tick (``clock``). It stops early when
   the cog is hit, a new monster comes into view or a primitive fails.
6. What the seat is told back is written: messages, ``last_plan``, notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core import Action, Outcome
from playbench.core.game import LOST, OVER
from playbench.games.cogcrawl.actions import legal_primitives
from playbench.games.cogcrawl.protocol import ParseFailure
from playbench.games.cogcrawl.seat import (
    close_turn,
    open_turn,
    plan_queue,
    retry_turn,
    run_queue,
    take_reply,
)
from playbench.games.cogcrawl.start import new_state
from playbench.games.cogcrawl.state import LEFT, PLAYING, WON, CogState


def new(seed: int, options: Mapping[str, Any] | None = None) -> CogState:
    return new_state(seed, options)


def legal_actions(state: CogState) -> list[Action]:
    """One reply per dungeon primitive the cog could start now."""
    return [{"actions": [p.to_json()]} for p in legal_primitives(state)]


def score(state: CogState) -> int:
    return state.score


def is_over(state: CogState) -> bool:
    return state.run != PLAYING


def ending(state: CogState) -> str:
    """Won with the Cogheart (the run state ``won`` is the contract's); leaving by the up
    stairs of DL1 ends the run by choice; death and the turn limit are losses."""
    if state.run == WON:
        return WON
    return OVER if state.run == LEFT else LOST


def step(state: CogState, action: object) -> Outcome[CogState]:
    if state.run != PLAYING:  # 1
        return Outcome.refused(state, f"the run is over ({state.run}); start a new one")
    try:  # 2
        reply = take_reply(state, action)
    except ParseFailure as failure:
        return retry_turn(state, failure)
    plan = plan_queue(state, reply)  # 3
    turn = open_turn(state, reply, plan)  # 4
    ran = run_queue(turn, plan)  # 5
    close_turn(state, turn, reply, plan, ran)  # 6
    return Outcome(state=turn.s, reward=turn.s.score - state.score, events=turn.events)
