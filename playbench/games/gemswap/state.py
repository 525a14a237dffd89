"""The Gem Swap state and its JSON codec.

A state is the board (two flat ``bytearray``, see :mod:`board`), the generator that
drops new gems in, the score, the swaps played, the selected cell and whether the board's
hint was bought (and no swap played since: the observation then shows its answer). Its
JSON form is ``{"game", "board", "rng", "score", "movesMade", "selected"}``, with
``"hinted": true`` while a bought hint stands; every field is checked with the shared
checks of :mod:`playbench.core.fields`.
"""

from __future__ import annotations

from typing import Any

from playbench.core.errors import StateError
from playbench.core.fields import MAX_COUNT, int_field, need, need_keys, need_object, str_field
from playbench.core.game import JSON
from playbench.core.rng import Rng
from playbench.games.gemswap.board import (
    AREA_BOMB,
    CELL_INDEX,
    CELL_NAMES,
    COLOR_BOMB,
    COLUMN_BLASTER,
    NO_COLOR,
    NUM_COLORS,
    PLAIN,
    ROW_BLASTER,
    has_legal_swap,
    legal_swap_numbers,
    read_rows,
    rows_of,
    swaps_of,
    token,
)

SLUG = "gem-swap"
MOVES_PER_GAME = 30
STATE_KEYS = ("game", "board", "rng", "score", "movesMade", "selected")
#: written only while a bought hint stands (a state without it has none)
HINTED_KEY = "hinted"
#: how a state names itself in error messages
WHAT = "Gem Swap state"
#: every gem token -> (colour, kind)
GEM_OF_TOKEN = {
    token(color, kind): (color, kind)
    for color in range(NUM_COLORS)
    for kind in (PLAIN, ROW_BLASTER, COLUMN_BLASTER, AREA_BOMB)
} | {token(NO_COLOR, COLOR_BOMB): (NO_COLOR, COLOR_BOMB)}


class GemState:
    """One moment of a game. Treated as immutable once made: ``step`` builds a new one.

    ``numbers`` and ``swaps`` cache the legal swaps of the board, as swap numbers and as
    cell pairs (derived data, not serialized). ``hinted`` is True from a bought ``hint``
    until the next swap: the board's hint then shows in the observation.
    """

    __slots__ = (
        "colors",
        "hinted",
        "kinds",
        "moves_made",
        "numbers",
        "rng",
        "score",
        "selected",
        "swaps",
    )

    def __init__(
        self,
        colors: bytearray,
        kinds: bytearray,
        rng: Rng,
        score: int = 0,
        moves_made: int = 0,
        selected: int | None = None,
        hinted: bool = False,
    ) -> None:
        self.colors = colors
        self.hinted = hinted
        self.kinds = kinds
        self.rng = rng
        self.score = score
        self.moves_made = moves_made
        self.selected = selected
        self.numbers: list[int] | None = None
        self.swaps: list[tuple[int, int]] | None = None

    @property
    def over(self) -> bool:
        return self.moves_made >= MOVES_PER_GAME

    def swap_numbers(self) -> list[int]:
        """The numbers of the legal swaps (see :data:`SWAP_OF_NUMBER`), in board order."""
        if self.numbers is None:
            self.numbers = [] if self.over else legal_swap_numbers(self.colors)
        return self.numbers

    def legal_swaps(self) -> list[tuple[int, int]]:
        if self.swaps is None:
            self.swaps = swaps_of(self.swap_numbers())
        return self.swaps

    def but(
        self, *, selected: int | None, score: int | None = None, hinted: bool | None = None
    ) -> GemState:
        """The same board with another selection, score or hint (the arrays are shared,
        which is safe: no state's arrays are changed once it is made)."""
        other = GemState(
            self.colors,
            self.kinds,
            self.rng,
            self.score if score is None else score,
            self.moves_made,
            selected,
            self.hinted if hinted is None else hinted,
        )
        other.numbers = self.numbers
        other.swaps = self.swaps
        return other


def to_json(state: GemState) -> JSON:
    """The JSON form of a state."""
    data = {
        "game": SLUG,
        "board": rows_of(state.colors, state.kinds),
        "rng": state.rng.to_json(),
        "score": state.score,
        "movesMade": state.moves_made,
        "selected": None if state.selected is None else CELL_NAMES[state.selected],
    }
    if state.hinted:
        data[HINTED_KEY] = True
    return data


def from_trusted_json(data: Any) -> GemState:
    """The state of a JSON form that :func:`to_json` of this same code wrote and a seal has
    authenticated since (see :meth:`Game.from_trusted_json`): the same state as
    :func:`from_json` gives, built without checking any field or looking for lines and
    legal swaps. Anything else must go through :func:`from_json`."""
    gems = [GEM_OF_TOKEN[text] for row in data["board"] for text in row]
    selected = data["selected"]
    return GemState(
        bytearray(color for color, _ in gems),
        bytearray(kind for _, kind in gems),
        Rng.from_json(data["rng"]),
        data["score"],
        data["movesMade"],
        None if selected is None else CELL_INDEX[selected],
        HINTED_KEY in data,
    )


def from_json(data: Any) -> GemState:
    """A state from its JSON form. Raises :class:`StateError` naming the first problem.

    The score may be below 0: each ``hint`` costs 50 points, whatever the score.
    """
    data = need_object(data, StateError, WHAT)
    need_keys(data, StateError, WHAT, STATE_KEYS, (HINTED_KEY,))
    game = str_field(data, "game", StateError, WHAT)
    need(game == SLUG, StateError, WHAT, f"this state belongs to {game!r}, not {SLUG!r}")
    try:
        colors, kinds = read_rows(data["board"])
    except ValueError as error:
        raise StateError(f"{WHAT}: {error}") from None
    score = int_field(data, "score", StateError, WHAT, -MAX_COUNT, MAX_COUNT)
    moves_made = int_field(data, "movesMade", StateError, WHAT, 0, MOVES_PER_GAME)
    selected = data["selected"]
    need(
        selected is None or (isinstance(selected, str) and selected in CELL_INDEX),
        StateError,
        WHAT,
        f"selected must be a cell like 'C4' or null, got {selected!r}",
    )
    hinted = HINTED_KEY in data
    need(
        not hinted or data[HINTED_KEY] is True,
        StateError,
        WHAT,
        f"hinted must be true when given (left out when no hint stands), "
        f"got {data.get(HINTED_KEY)!r}",
    )
    need(
        not hinted or moves_made < MOVES_PER_GAME,
        StateError,
        WHAT,
        "hinted is given for a game that is over: no hint is bought after the last move",
    )
    state = GemState(
        colors,
        kinds,
        Rng.from_json(data["rng"]),
        score,
        moves_made,
        None if selected is None else CELL_INDEX[selected],
        hinted,
    )
    need(
        state.over or has_legal_swap(colors),
        StateError,
        WHAT,
        "the board has no legal swap, which a running game never has",
    )
    return state
