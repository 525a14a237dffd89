"""Delvewick: a deterministic digging puzzle of 8 handcrafted levels (slug ``delvewick``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core.errors import OptionsError, StateError
from playbench.core.game import JSON, Action, Game, Outcome, Spec
from playbench.core.registry import register
from playbench.core.rng import check_seed
from playbench.games.delvewick import commands, rules, view
from playbench.games.delvewick.levels import (
    BOARD_GLYPHS,
    EXIT_CLOSED,
    EXIT_OPEN,
    LEVELS,
    MOLE,
    Level,
    parse_level,
)
from playbench.games.delvewick.rules import (
    CRUSHED,
    PLAYING,
    STATUSES,
    WON,
    State,
    all_movables,
    bedrock_of,
)
from playbench.games.delvewick.spec import build_spec

#: largest counter (tick, chain, gems, score) a state may carry: exact in every JSON reader
MAX_COUNT = 2**53
OPTION_KEYS = ("startLevel", "level")
LEVEL_KEYS = ("name", "quota", "oil", "rows")
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


class Delvewick(Game[State]):
    """Delvewick: a mole prospector digs for gems through 8 handcrafted levels.

    Description:
        A Boulder-Dash-like puzzle on small grids framed in bedrock. Soil is dug by walking
        into it; boulders, gems and geodes fall, roll off rounded piles and can be pushed
        sideways. Each accepted action advances the world exactly one tick, so an avalanche
        pauses between actions. No randomness: the seed changes nothing.

    Actions:
        ``{"type": "move", "dir": "up"|"down"|"left"|"right"}`` and ``{"type": "wait"}``.
        Refused actions (bedrock, closed exit, vertical into a rock, blocked pushes, after
        the end, malformed objects) cost nothing.

    Observation:
        ``board`` (row strings, falling objects lowercase), ``level``, ``levelName``,
        ``quota``, ``gemsCollected``, ``exitOpen``, ``oil``, ``tick``, ``chain``, ``score``,
        ``status``.

    Scoring:
        +25 per gem, chain bonus +10/+20/+30 for the 2nd/3rd/later gems collected within 4
        ticks of each other, +10 per geode crack, +100 and +5 per oil left per level cleared,
        +250 for clearing level 8.

    Termination:
        Won after level 8 (or a custom level) is cleared; early on being crushed by a
        falling boulder or geode, running out of oil, or being boxed in on a settled board.
    """

    slug = "delvewick"
    name = "Delvewick"
    genre = "digging puzzle"
    seeded = False

    # -- the rules ---------------------------------------------------------------------
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> State:
        check_seed(seed)
        return State(_level_from_options(options))

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

    def parse_command(self, text: str) -> Action:
        return commands.parse_command(text)

    def command_text(self, action: Action) -> str:
        return commands.command_text(action)

    # -- serialization -----------------------------------------------------------------
    def to_json(self, state: State) -> JSON:
        level = state.level
        return {
            "level": level.number,
            "custom": level.to_json() if level.custom else None,
            "board": view.board_rows(state),
            "oil": state.oil,
            "tick": state.tick,
            "chain": state.chain,
            "lastGem": state.last_gem,
            "gems": state.gems,
            "score": state.score,
            "status": state.status,
        }

    def from_json(self, data: Any) -> State:
        return _state_from_json(data)


def _level_from_options(options: Mapping[str, Any] | None) -> Level:
    if options is None:
        return LEVELS[0]
    if not isinstance(options, Mapping):
        raise OptionsError(f"options must be an object, got {type(options).__name__}")
    unknown = sorted(str(key) for key in set(options) - set(OPTION_KEYS))
    if unknown:
        raise OptionsError(f"unknown options {unknown}; Delvewick takes {list(OPTION_KEYS)}")
    if "startLevel" in options and "level" in options:
        raise OptionsError("give either startLevel or level, not both")
    if "level" in options:
        return _custom_level(options["level"], OptionsError)
    start = options.get("startLevel", 1)
    if type(start) is not int or not 1 <= start <= len(LEVELS):
        raise OptionsError(f"startLevel must be an integer from 1 to {len(LEVELS)}, got {start!r}")
    return LEVELS[start - 1]


def _custom_level(data: Any, error: type[Exception]) -> Level:
    if not isinstance(data, Mapping):
        raise error(f"level must be an object with {list(LEVEL_KEYS)}")
    missing = [key for key in LEVEL_KEYS if key not in data]
    if missing:
        raise error(f"level is missing {missing}")
    extra = sorted(str(key) for key in set(data) - set(LEVEL_KEYS))
    if extra:
        raise error(f"level has unknown keys {extra}; it takes {list(LEVEL_KEYS)}")
    try:
        return parse_level(data["name"], data["quota"], data["oil"], data["rows"])
    except OptionsError as problem:
        raise error(str(problem)) from None


def _int_field(data: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = data[key]
    if type(value) is not int or not low <= value <= high:
        raise StateError(f"state {key} must be an integer from {low} to {high}, got {value!r}")
    return value


def _state_from_json(data: Any) -> State:
    if not isinstance(data, dict):
        raise StateError(f"a Delvewick state must be an object, got {type(data).__name__}")
    keys = set(data)
    if keys != set(STATE_KEYS):
        missing = sorted(set(STATE_KEYS) - keys)
        extra = sorted(keys - set(STATE_KEYS))
        raise StateError(
            f"a Delvewick state has keys {list(STATE_KEYS)}; missing {missing}, unexpected {extra}"
        )
    if data["custom"] is None:
        number = _int_field(data, "level", 1, len(LEVELS))
        level = LEVELS[number - 1]
    else:
        _int_field(data, "level", 1, 1)
        level = _custom_level(data["custom"], StateError)
    status = data["status"]
    if status not in STATUSES:
        raise StateError(f"state status must be one of {list(STATUSES)}, got {status!r}")
    rows = data["board"]
    if (
        not isinstance(rows, list)
        or len(rows) != level.height
        or not all(isinstance(row, str) and len(row) == level.width for row in rows)
    ):
        raise StateError(f"state board must be {level.height} strings of {level.width} glyphs")
    text = "".join(rows)
    bad = set(text) - set(BOARD_GLYPHS)
    if bad:
        raise StateError(f"state board holds unknown glyphs {sorted(bad)}")
    board = bytearray("".join(reversed(rows)).encode())
    if bedrock_of(board) != bedrock_of(level.board):
        raise StateError("state board does not keep the level's bedrock exactly")
    moles = board.count(MOLE)
    if moles != (0 if status == CRUSHED else 1):
        raise StateError(f"state board has {moles} moles for status {status}")
    tick = _int_field(data, "tick", 0, MAX_COUNT)
    state = State.__new__(State)
    state.level = level
    state.board = board
    state.pos = board.index(MOLE) if moles else -1
    state.oil = _int_field(data, "oil", 0 if status != PLAYING else 1, level.oil)
    state.tick = tick
    state.chain = _int_field(data, "chain", 0, MAX_COUNT)
    state.last_gem = _int_field(data, "lastGem", 0, tick)
    state.gems = _int_field(data, "gems", 0, MAX_COUNT)
    state.score = _int_field(data, "score", 0, MAX_COUNT)
    state.status = status
    state.exit_open = state.gems >= level.quota
    exit_glyph = board[level.exit]
    expected = (EXIT_OPEN,) if state.exit_open else (EXIT_CLOSED,)
    if status == WON:
        expected = (*expected, MOLE)
    if exit_glyph not in expected or (board.count(EXIT_OPEN) + board.count(EXIT_CLOSED)) > 1:
        raise StateError("state board's exit does not match the level and its gem count")
    state.active = all_movables(board)
    return state


DELVEWICK = register(Delvewick())
