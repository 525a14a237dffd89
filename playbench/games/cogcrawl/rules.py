"""Cogcrawl's step: one seat turn, as a chain of small systems.

1. A finished run refuses every action.
2. The reply is read (``seat.take_reply``): a first parse failure is refused with the
   retry counted (``seat.retry_turn``); a second one hands the turn to the delver.
3. The turn opens on a copy of the state (the current level deeply, the other levels
   shared until entered), so the input is never mutated.
4. The reply is validated and planned into a queue of dungeon primitives
   (``protocol.plan_turn``, through ``seat.plan_queue``).
5. The queue runs one primitive at a time (``actions``); after every primitive that takes
   time the monsters act, hunger and regeneration tick (``clock``). It stops early when
   the cog is hit, a new monster comes into view or a primitive fails.
6. What the seat is told back is written: messages, ``last_plan``, notes.
"""

from __future__ import annotations

from playbench.core import Outcome
from playbench.games.cogcrawl.protocol import ParseFailure
from playbench.games.cogcrawl.seat import (
    close_turn,
    open_turn,
    plan_queue,
    retry_turn,
    run_queue,
    take_reply,
)
from playbench.games.cogcrawl.state import PLAYING, CogState

NOT_AN_OBJECT = (
    "an action must be a JSON object: a reply such as "
    '{"actions": [{"do": "move", "dir": "n"}]} or {"reply": "<raw text>"}'
)


def play_turn(state: CogState, action: object) -> Outcome[CogState]:
    if state.run != PLAYING:  # 1
        return Outcome.refused(state, f"the run is over ({state.run}); start a new one")
    if not isinstance(action, dict):
        return Outcome.refused(state, NOT_AN_OBJECT)
    try:  # 2
        reply = take_reply(state, action)
    except ParseFailure as failure:
        return retry_turn(state, failure)
    turn = open_turn(state, reply)  # 3
    plan = plan_queue(turn.s, reply)  # 4
    ran = run_queue(turn, plan)  # 5
    close_turn(state, turn, reply, plan, ran)  # 6
    return Outcome(state=turn.s, reward=turn.s.score - state.score, events=turn.events)
