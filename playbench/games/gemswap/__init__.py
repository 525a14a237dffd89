"""Gem Swap: the match-3 game of swapping gems into lines, cascades and specials."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from playbench.core import register
from playbench.core.errors import CommandError, OptionsError, StateError
from playbench.core.game import JSON, Action, Game, Outcome, Spec
from playbench.core.rng import Rng, check_seed
from playbench.games.gemswap import rules, view
from playbench.games.gemswap.board import (
    CELL_INDEX,
    CELL_NAMES,
    deal,
    has_legal_swap,
    read_rows,
    reshuffle,
    rows_of,
)
from playbench.games.gemswap.commands import HINT, MOVES, parse, swap_text
from playbench.games.gemswap.rules import MOVES_PER_GAME, GemState
from playbench.games.gemswap.spec import SPEC

SLUG = "gem-swap"
OPTION_KEYS = frozenset({"board"})
STATE_KEYS = frozenset({"game", "board", "rng", "score", "movesMade", "selected"})


class GemSwap(Game[GemState]):
    """Gem Swap, a match-3 game on an 8x8 board.

    Description:
        Swap two neighbouring gems so that 3 or more of one colour line up in a row or
        column; they clear, the gems above fall and new ones drop in from the seeded
        generator, and new lines clear again in cascades. Matches of 4, L/T/+ shapes and
        straight 5s make line blasters, area bombs and colour bombs.

    Actions:
        ``{"command": text}`` with text ``swap C4 right`` (or ``up``/``down``/``left``),
        ``swap C4 D4``, ``hint``, ``moves``, ``select C4`` or ``deselect``. Legal
        actions are every accepted swap in the normal form ``swap A1 right`` /
        ``swap A1 down`` (board order, each pair once), then ``hint`` and ``moves``.

    Observation:
        ``board`` (8 rows of 8 gem tokens ``R``, ``R-``, ``R|``, ``R+``, ``@``),
        ``movesLeft``, ``movesMade``, ``score``, ``selected`` and ``gameOver``.

    Scoring:
        10 a cleared gem; creating a line blaster / area bomb / colour bomb adds
        50 / 100 / 200, setting one off 50 / 80 / 150, two colour bombs 500; cascade
        step k counts k times. ``hint`` costs 50 (never below 0).

    Termination:
        After the 30th accepted swap.
    """

    slug: ClassVar[str] = SLUG
    name: ClassVar[str] = "Gem Swap"
    genre: ClassVar[str] = "match-3"
    score_can_fall: ClassVar[bool] = True

    # -- the rules ---------------------------------------------------------------------
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> GemState:
        check_seed(seed)
        options = {} if options is None else options
        if not isinstance(options, Mapping):
            raise OptionsError(f"options must be an object, got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - OPTION_KEYS))
        if unknown:
            raise OptionsError(
                f"unknown option {unknown[0]!r}; Gem Swap takes: {', '.join(sorted(OPTION_KEYS))}"
            )
        rng = Rng.from_seed(seed)
        if "board" in options:
            try:
                colors, kinds = read_rows(options["board"])
            except ValueError as error:
                raise OptionsError(str(error)) from None
            if not has_legal_swap(colors):
                colors, kinds = reshuffle(colors, kinds, rng)
        else:
            colors, kinds = deal(rng)
        return GemState(colors, kinds, rng)

    def legal_actions(self, state: GemState) -> list[Action]:
        if state.over:
            return []
        return [*self.legal_swaps(state), {"command": HINT}, {"command": MOVES}]

    def legal_swaps(self, state: GemState) -> list[Action]:
        """Only the swap actions of :meth:`legal_actions`, in the same order."""
        return [{"command": swap_text(a, b)} for a, b in state.legal_swaps()]

    def step(self, state: GemState, action: Action) -> Outcome[GemState]:
        if not isinstance(action, dict):
            return Outcome.refused(
                state,
                f'an action is an object like {{"command": "swap C4 right"}}, '
                f"got {type(action).__name__}",
            )
        if set(action) != {"command"}:
            return Outcome.refused(
                state, f'an action has exactly one key, "command"; got {sorted(map(str, action))}'
            )
        try:
            command = parse(action["command"])
        except CommandError as error:
            return Outcome.refused(state, str(error))
        if state.over:
            return Outcome.refused(state, f"the game is over after {MOVES_PER_GAME} moves")
        turn = rules.apply(state, command)
        if isinstance(turn, str):
            return Outcome.refused(state, turn)
        if command.verb == MOVES:
            return Outcome.answered(turn.state, turn.events)
        return Outcome(turn.state, True, turn.points, turn.events)

    def score(self, state: GemState) -> int:
        return state.score

    def is_over(self, state: GemState) -> bool:
        return state.over

    def progress(self, state: GemState) -> float:
        return view.progress(state)

    # -- views -------------------------------------------------------------------------
    def observe(self, state: GemState) -> JSON:
        return view.observe(state)

    def render(self, state: GemState) -> str:
        return view.render(state)

    def spec(self) -> Spec:
        return SPEC

    def parse_command(self, text: str) -> Action:
        return {"command": parse(text).text}

    def command_text(self, action: Action) -> str:
        if isinstance(action, dict) and set(action) == {"command"}:
            return parse(action["command"]).text
        raise CommandError(f"{action!r} is not a Gem Swap action: one {{'command': text}}")

    # -- serialization -----------------------------------------------------------------
    def to_json(self, state: GemState) -> JSON:
        return {
            "game": SLUG,
            "board": rows_of(state.colors, state.kinds),
            "rng": state.rng.to_json(),
            "score": state.score,
            "movesMade": state.moves_made,
            "selected": None if state.selected is None else CELL_NAMES[state.selected],
        }

    def from_json(self, data: Any) -> GemState:
        if not isinstance(data, dict):
            raise StateError(f"a Gem Swap state is an object, got {type(data).__name__}")
        if set(data) != STATE_KEYS:
            missing = sorted(STATE_KEYS - set(data))
            extra = sorted(map(str, set(data) - STATE_KEYS))
            raise StateError(f"a Gem Swap state needs keys {missing} and not {extra}")
        if data["game"] != SLUG:
            raise StateError(f"this state belongs to {data['game']!r}, not {SLUG!r}")
        try:
            colors, kinds = read_rows(data["board"])
        except ValueError as error:
            raise StateError(str(error)) from None
        score, moves_made, selected = data["score"], data["movesMade"], data["selected"]
        if type(score) is not int or score < 0:
            raise StateError(f"score must be a whole number of at least 0, got {score!r}")
        if type(moves_made) is not int or not 0 <= moves_made <= MOVES_PER_GAME:
            raise StateError(f"movesMade must be 0-{MOVES_PER_GAME}, got {moves_made!r}")
        if selected is not None and (not isinstance(selected, str) or selected not in CELL_INDEX):
            raise StateError(f"selected must be a cell like 'C4' or null, got {selected!r}")
        state = GemState(
            colors,
            kinds,
            Rng.from_json(data["rng"]),
            score,
            moves_made,
            None if selected is None else CELL_INDEX[selected],
        )
        if not state.over and not has_legal_swap(colors):
            raise StateError("the board has no legal swap, which a running game never has")
        return state


register(GemSwap())
