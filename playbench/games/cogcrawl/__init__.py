"""Cogcrawl: a seeded NetHack-style dungeon played through the seat protocol (slug ``cogcrawl``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core.game import JSON, Action, Game, Outcome, Spec, trusted_or_checked
from playbench.core.registry import register
from playbench.core.seat import SeatGuide
from playbench.games.cogcrawl import commands, rules, view
from playbench.games.cogcrawl.actions import legal_primitives
from playbench.games.cogcrawl.prompt import CogcrawlSeat
from playbench.games.cogcrawl.spec import build_spec
from playbench.games.cogcrawl.start import new_state
from playbench.games.cogcrawl.state import (
    PLAYING,
    CogState,
    from_json,
    from_trusted_json,
    to_json,
)


class Cogcrawl(Game[CogState]):
    """Cogcrawl: delve ten generated levels for the Cogheart, one planned reply per turn.

    Description:
        A small roguelike in NetHack's manner: 10 levels of 48 x 18 lit rooms and dark
        corridors generated from the seed (levels appear when first entered), doors open,
        closed, locked or hidden, hidden corridor cells, lava from DL4, 14 monster kinds by
        depth plus the Oracle, food and hunger, potions with per-run appearances, weapons
        and armour. All chance comes from the seeded generator kept in the state.

    Actions:
        A reply object ``{"actions": [...], "say": str, "notes": str}`` of up to 10 entries
        (``move``, ``travel``, ``down``, ``up``, ``pickup``, ``eat``, ``quaff``, ``wield``,
        ``wear``, ``kick``, ``search``, ``chat``, ``wait``), or ``{"reply": "<raw text>"}``
        holding a model's text. Invalid entries are dropped and reported; a reply that does
        not parse is refused once and then played by the delver.

    Observation:
        Turn counters, status (DL, HP, XL, AC, gold, hunger, wielded, worn, confusion),
        position, the remembered map as 18 strings of 48, visible monsters, remembered
        items, what is underfoot, the pack by letter, up to 8 messages, ``last_plan``,
        echoed notes, the fallback and retry flags, and the run's state, score and
        progress. The reply's ``say`` is never shown to the seat: it is the turn's first
        event, for spectators.

    Scoring:
        +1 per gold piece, +50 per new level reached, kill experience, +1000 for the
        Cogheart; never decreases. Progress is the deepest level reached / 10.

    Termination:
        Won by picking up the Cogheart on DL10; also ends on death (combat, starvation,
        lava), on leaving by ``<`` from DL1, or after 50,000 dungeon turns.
    """

    slug = "cogcrawl"
    name = "Cogcrawl"
    genre = "roguelike"
    step_cap = 50_000

    def command_limit(self, text: str) -> int:
        """A raw seat reply may be as long as the seat protocol allows."""
        return commands.RAW_REPLY_BYTES if commands.is_raw(text) else super().command_limit(text)

    # -- the rules ---------------------------------------------------------------------
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> CogState:
        return new_state(seed, options)

    def legal_actions(self, state: CogState) -> list[Action]:
        return [{"actions": [p.to_json()]} for p in legal_primitives(state)]

    def step(self, state: CogState, action: Action) -> Outcome[CogState]:
        return rules.play_turn(state, action)

    def score(self, state: CogState) -> int:
        return state.score

    def is_over(self, state: CogState) -> bool:
        return state.run != PLAYING

    def progress(self, state: CogState) -> float:
        return view.progress(state)

    # -- views -------------------------------------------------------------------------
    def observe(self, state: CogState) -> JSON:
        return view.observe(state)

    def render(self, state: CogState) -> str:
        return view.render(state)

    def spec(self) -> Spec:
        return build_spec()

    def seat_guide(self) -> SeatGuide:
        return CogcrawlSeat(self)

    def parse_command(self, text: str) -> Action:
        return commands.parse_command(text)

    def command_text(self, action: Action) -> str:
        return commands.command_text(action)

    # -- serialization -----------------------------------------------------------------
    def to_json(self, state: CogState) -> JSON:
        return to_json(state)

    def from_json(self, data: Any) -> CogState:
        return from_json(data)

    def from_trusted_json(self, data: Any) -> CogState:
        return trusted_or_checked(from_trusted_json, from_json, data)


GAME = register(Cogcrawl())
