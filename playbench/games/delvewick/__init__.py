"""Delvewick: a deterministic digging puzzle of 8 handcrafted levels (slug ``delvewick``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core.game import JSON, Action, Game, Outcome, Spec, trusted_or_checked
from playbench.core.registry import register
from playbench.core.rng import check_seed
from playbench.core.seat import SeatGuide
from playbench.games.delvewick import commands, rules, view
from playbench.games.delvewick.prompt import DelvewickSeat
from playbench.games.delvewick.spec import build_spec
from playbench.games.delvewick.state import (
    PLAYING,
    State,
    level_from_options,
    state_from_json,
    state_from_trusted_json,
    state_to_json,
)


class Delvewick(Game[State]):
    """Delvewick: a mole prospector digs for gems through 8 handcrafted levels.

    Description:
        A Boulder-Dash-like puzzle on small grids framed in bedrock. Soil is dug by walking
        into it; boulders, gems and geodes fall, roll off rounded piles and can be pushed
        sideways. Each accepted action advances the world exactly one tick, so an avalanche
        pauses between actions. No randomness: the seed changes nothing. Options:
        ``startLevel`` (1-8) or a custom single ``level``.

    Actions:
        ``{"type": "move", "dir": "up"|"down"|"left"|"right"}`` and ``{"type": "wait"}``;
        commands ``up down left right wait`` (or their first letters). Refused actions
        (bedrock, closed exit, vertical into a rock, blocked pushes, after the end,
        malformed objects) cost nothing.

    Observation:
        ``board`` (row strings, falling objects lowercase), ``level``, ``levelName``,
        ``quota``, ``gemsCollected``, ``exitOpen``, ``oil``, ``tick``, ``chain``, ``score``,
        ``status``. Nothing is hidden: the observation rebuilds the state.

    Scoring:
        +25 per gem, chain bonus +10/+20/+30 for the 2nd/3rd/later gems collected within 4
        ticks of each other, +10 per geode crack, +100 and +5 per oil left per level cleared,
        +250 for clearing level 8. Progress: levels cleared plus the current level's gem
        share, over 8; 1 once won.

    Termination:
        Won after level 8 (or a custom level) is cleared; early on being crushed by a
        falling boulder or geode, running out of oil, or being boxed in on a settled board.
    """

    slug = "delvewick"
    name = "Delvewick"
    genre = "digging puzzle"
    seeded = False
    step_cap = 5_000

    # -- the rules ---------------------------------------------------------------------
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> State:
        check_seed(seed)
        return State(level_from_options(options))

    def legal_actions(self, state: State) -> list[Action]:
        if state.status != PLAYING:
            return []
        names = rules.DIRECTIONS
        moves = [{"type": "move", "dir": names[d]} for d in rules.legal_dirs(state)]
        moves.append({"type": "wait"})
        return moves

    def step(self, state: State, action: Action) -> Outcome[State]:
        return rules.step(state, action)

    def score(self, state: State) -> int:
        return state.score

    def is_over(self, state: State) -> bool:
        return state.status != PLAYING

    def progress(self, state: State) -> float:
        return view.progress(state)

    # -- views -------------------------------------------------------------------------
    def observe(self, state: State) -> JSON:
        return view.observe(state)

    def render(self, state: State) -> str:
        return view.render(state)

    def spec(self) -> Spec:
        return build_spec()

    def seat_guide(self) -> SeatGuide:
        return DelvewickSeat(self)

    def parse_command(self, text: str) -> Action:
        return commands.parse_command(text)

    def command_text(self, action: Action) -> str:
        return commands.command_text(action)

    # -- serialization -----------------------------------------------------------------
    def to_json(self, state: State) -> JSON:
        return state_to_json(state)

    def from_json(self, data: Any) -> State:
        return state_from_json(data)

    def from_trusted_json(self, data: Any) -> State:
        return trusted_or_checked(state_from_trusted_json, state_from_json, data)


DELVEWICK = register(Delvewick())
