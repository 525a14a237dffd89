"""The Delvewick state: one moment of a run, a fresh run from the options, and the JSON
codec (``to_json`` / ``from_json``, lossless).

The board is one flat ``bytearray`` stored bottom row first (see ``levels``); the JSON
form shows it as row strings, top row first, the way a player reads it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from playbench.core.errors import OptionsError, StateError
from playbench.core.fields import (
    MAX_COUNT,
    int_field,
    need,
    need_keys,
    need_object,
    options_object,
    str_field,
)
from playbench.core.game import JSON
from playbench.games.delvewick.levels import (
    BEDROCK,
    BOARD_GLYPHS,
    EMPTY,
    EXIT_CLOSED,
    EXIT_OPEN,
    LEVELS,
    MOLE,
    MOVABLE_GLYPHS,
    Level,
    parse_level,
)

PLAYING = "playing"
WON = "won"
CRUSHED = "crushed"
OUT_OF_OIL = "outOfOil"
BOXED_IN = "boxedIn"
STATUSES = (PLAYING, WON, CRUSHED, OUT_OF_OIL, BOXED_IN)

OPTION_KEYS = ("startLevel", "level")
STATE_KEYS = (
    "level",
    "custom",
    "board",
    "oil",
    "tick",
    "chain",
    "lastGem",
    "gems",
    "score",
    "status",
)
#: written only for a run that started past level 1 (``startLevel``)
START_KEY = "startLevel"
STATE = "Delvewick state"


class State:
    """One moment of a run. The board is flat, bottom row first (see ``levels``).

    ``active`` holds the movables the next gravity pass must look at (see ``rules``);
    ``start`` is the number of the level the run started on (1 for a custom level).
    """

    __slots__ = (
        "active",
        "board",
        "chain",
        "exit_open",
        "gems",
        "last_gem",
        "level",
        "oil",
        "pos",
        "score",
        "start",
        "status",
        "tick",
    )

    def __init__(self, level: Level) -> None:
        self.tick = 0
        self.score = 0
        self.status = PLAYING
        self.start = level.number
        self.load(level)

    def copy(self) -> State:
        other = State.__new__(State)
        other.level = self.level
        other.board = bytearray(self.board)
        other.pos = self.pos
        other.oil = self.oil
        other.tick = self.tick
        other.chain = self.chain
        other.last_gem = self.last_gem
        other.gems = self.gems
        other.score = self.score
        other.status = self.status
        other.exit_open = self.exit_open
        other.active = self.active
        other.start = self.start
        return other

    def load(self, level: Level) -> None:
        """Start ``level`` fresh in this state: board, mole, oil, gems and chain."""
        self.level = level
        self.board = bytearray(level.board)
        self.pos = level.start
        self.oil = level.oil
        self.chain = 0
        self.last_gem = 0
        self.gems = 0
        self.exit_open = False
        self.active = all_movables(self.board)


#: one byte class of every movable glyph, so a board is searched at C speed
MOVABLE_PATTERN = re.compile(b"[" + re.escape(MOVABLE_GLYPHS) + b"]")
#: a byte table that keeps bedrock and blanks every other glyph
BEDROCK_ONLY = bytes(BEDROCK if b == BEDROCK else EMPTY for b in range(256))


def all_movables(board: bytes | bytearray) -> tuple[int, ...]:
    return tuple(match.start() for match in MOVABLE_PATTERN.finditer(board))


def bedrock_of(board: bytes | bytearray) -> bytes:
    """The board with everything but bedrock blanked out."""
    return bytes(board).translate(BEDROCK_ONLY)


def board_rows(state: State) -> list[str]:
    """The board as row strings, top row first, falling objects lowercase."""
    level = state.level
    width = level.width
    board = state.board
    return [
        board[(level.height - 1 - r) * width : (level.height - r) * width].decode()
        for r in range(level.height)
    ]


# -- a fresh run -------------------------------------------------------------------------
def level_from_options(options: Mapping[str, Any] | None) -> Level:
    """The level a run starts on: level 1, ``startLevel``, or a custom ``level``."""
    options = options_object(options, OptionsError, "Delvewick", OPTION_KEYS)
    if "startLevel" in options and "level" in options:
        raise OptionsError("Delvewick options: give either startLevel or level, not both")
    if "level" in options:
        return parse_level(options["level"], OptionsError, "Delvewick options: level")
    if "startLevel" in options:
        number = int_field(options, "startLevel", OptionsError, "Delvewick options", 1, len(LEVELS))
        return LEVELS[number - 1]
    return LEVELS[0]


# -- the JSON codec ----------------------------------------------------------------------
def to_json(state: State) -> JSON:
    level = state.level
    data = {
        "level": level.number,
        "custom": level.to_json() if level.custom else None,
        "board": board_rows(state),
        "oil": state.oil,
        "tick": state.tick,
        "chain": state.chain,
        "lastGem": state.last_gem,
        "gems": state.gems,
        "score": state.score,
        "status": state.status,
    }
    if state.start != 1:
        data[START_KEY] = state.start
    return data


def from_json(data: Any) -> State:
    """The state ``data`` describes; :class:`StateError` names the first problem."""
    data = need_object(data, StateError, STATE)
    need_keys(data, StateError, STATE, STATE_KEYS, (START_KEY,))
    if data["custom"] is None:
        level = LEVELS[int_field(data, "level", StateError, STATE, 1, len(LEVELS)) - 1]
    else:
        int_field(data, "level", StateError, STATE, 1, 1)
        level = parse_level(data["custom"], StateError, f"{STATE}: custom")
    start = (
        int_field(data, START_KEY, StateError, STATE, 2, level.number) if START_KEY in data else 1
    )
    status = str_field(data, "status", StateError, STATE)
    need(
        status in STATUSES,
        StateError,
        STATE,
        f"status must be one of {list(STATUSES)}, got {status!r}",
    )
    board = _board_from_rows(data["board"], level)
    moles = board.count(MOLE)
    need(
        moles == (0 if status == CRUSHED else 1),
        StateError,
        STATE,
        f"board has {moles} moles for status {status}",
    )
    tick = int_field(data, "tick", StateError, STATE)
    state = State.__new__(State)
    state.level = level
    state.board = board
    state.pos = board.index(MOLE) if moles else -1
    state.oil = int_field(data, "oil", StateError, STATE, 0 if status != PLAYING else 1, level.oil)
    state.tick = tick
    state.chain = int_field(data, "chain", StateError, STATE, 0, MAX_COUNT)
    state.last_gem = int_field(data, "lastGem", StateError, STATE, 0, tick)
    state.gems = int_field(data, "gems", StateError, STATE, 0, MAX_COUNT)
    state.score = int_field(data, "score", StateError, STATE, 0, MAX_COUNT)
    state.status = status
    state.start = start
    state.exit_open = state.gems >= level.quota
    _check_exit(state)
    state.active = all_movables(board)
    return state


def from_trusted_json(data: Any) -> State:
    """The state of a JSON form that :func:`to_json` of this same code wrote and a
    seal has authenticated since (see :meth:`Game.from_trusted_json`): the same state as
    :func:`from_json` gives, built without checking its fields (a custom level is
    still read by :func:`parse_level`, which builds it). Anything else must go through
    :func:`from_json`."""
    custom = data["custom"]
    if custom is None:
        level = LEVELS[data["level"] - 1]
    else:
        level = parse_level(custom, StateError, f"{STATE}: custom")
    board = bytearray("".join(reversed(data["board"])).encode())
    state = State.__new__(State)
    state.level = level
    state.board = board
    state.pos = board.find(MOLE)
    state.oil = data["oil"]
    state.tick = data["tick"]
    state.chain = data["chain"]
    state.last_gem = data["lastGem"]
    state.gems = data["gems"]
    state.score = data["score"]
    state.status = data["status"]
    state.start = data.get(START_KEY, 1)
    state.exit_open = state.gems >= level.quota
    state.active = all_movables(board)
    return state


def _board_from_rows(rows: Any, level: Level) -> bytearray:
    """The flat board of a state's ``board`` rows, which must keep the level's bedrock."""
    need(
        isinstance(rows, list)
        and len(rows) == level.height
        and all(isinstance(row, str) and len(row) == level.width for row in rows),
        StateError,
        STATE,
        f"board must be {level.height} strings of {level.width} glyphs",
    )
    bad = set("".join(rows)) - set(BOARD_GLYPHS)
    need(not bad, StateError, STATE, f"board holds unknown glyphs {sorted(bad)}")
    board = bytearray("".join(reversed(rows)).encode())
    need(
        bedrock_of(board) == bedrock_of(level.board),
        StateError,
        STATE,
        "board does not keep the level's bedrock exactly",
    )
    return board


def _check_exit(state: State) -> None:
    """The exit cell shows open exactly when the gems reach the quota (a won run may show
    the mole on it), and the board holds no other exit."""
    board = state.board
    expected = [EXIT_OPEN if state.exit_open else EXIT_CLOSED]
    if state.status == WON:
        expected.append(MOLE)
    need(
        board[state.level.exit] in expected
        and board.count(EXIT_OPEN) + board.count(EXIT_CLOSED) <= 1,
        StateError,
        STATE,
        "board's exit does not match the level and its gem count",
    )
