"""The Cogcrawl run state, the figures derived from it, and its JSON codec.

The state is plain data: the cog, its pack, the levels visited (a level not yet entered
is not stored), the seat's last turn (messages, ``last_plan``, notes) and the generator.
``copy`` shares what a step cannot change (the levels the cog is not on), so a step
never mutates its input and costs a copy of one level.
"""

from __future__ import annotations

from typing import Any

from playbench.core import Rng, StateError, check_seed
from playbench.core.errors import OptionsError
from playbench.core.fields import (
    bool_field,
    int_field,
    list_field,
    need,
    need_object,
    str_field,
)
from playbench.games.cogcrawl.constants import (
    BASE_AC,
    FAINTING,
    FAINTING_AT,
    HUNGRY,
    HUNGRY_AT,
    MAX_HIT,
    MAX_MESSAGES,
    MAX_XL,
    NOT_HUNGRY,
    NUTRITION_CAP,
    PACK_LETTERS,
    SEARCH_FINDS_ON,
    START_HP,
    START_NUTRITION,
    STARVED_BELOW,
    WEAK,
    WEAK_AT,
)
from playbench.games.cogcrawl.dungeon import LEVELS, SIZE, WIDTH, Level, Stack
from playbench.games.cogcrawl.glyphs import HEIGHT
from playbench.games.cogcrawl.items import (
    APPEARANCES,
    ARMOUR_KIND,
    ARMOURS,
    POTIONS,
    WEAPON_KIND,
    Item,
    is_valid,
    name,
)
from playbench.games.cogcrawl.monsters import KINDS, Monster

SLUG = "cogcrawl"
FORMAT_VERSION = 1
WHAT = "Cogcrawl state"

PLAYING, WON, DEAD, LEFT, OUT_OF_TURNS = "playing", "won", "dead", "left", "out_of_turns"
RUN_STATES = (PLAYING, WON, DEAD, LEFT, OUT_OF_TURNS)
#: the keys of the stored levels in the JSON form: "1" .. "10"
LEVEL_KEYS = frozenset(str(depth) for depth in range(1, LEVELS + 1))
EMPTY_PLAN: dict[str, Any] = {
    "executed": [],
    "truncated": 0,
    "dropped": [],
    "over_cap": 0,
    "unreachable": [],
    "interrupted": None,
}
PLAN_LISTS = ("executed", "dropped", "unreachable")
PLAN_COUNTS = ("truncated", "over_cap")


class CogState:
    """The whole run. Levels not yet visited are not stored."""

    __slots__ = (
        "appearances",
        "confused",
        "deepest",
        "dl",
        "dungeon_turn",
        "fallback",
        "gold",
        "hp",
        "identified",
        "last_plan",
        "levels",
        "max_hp",
        "messages",
        "notes",
        "nutrition",
        "pack",
        "retry",
        "rng",
        "run",
        "say",
        "score",
        "seed",
        "turn",
        "wielded",
        "worn",
        "x",
        "xl",
        "xp",
        "y",
    )

    def __init__(self) -> None:
        self.seed = 0
        self.rng = Rng()
        self.turn = 0
        self.dungeon_turn = 0
        self.dl = 1
        self.x = 0
        self.y = 0
        self.hp = START_HP
        self.max_hp = START_HP
        self.xl = 1
        self.xp = 0
        self.gold = 0
        self.nutrition = START_NUTRITION
        self.score = 0
        self.deepest = 1
        self.run = PLAYING
        self.pack: dict[str, Item] = {}
        self.wielded: str | None = None
        self.worn: str | None = None
        self.appearances: list[int] = []
        self.identified: list[bool] = []
        self.confused = 0
        self.levels: dict[int, Level] = {}
        self.messages: list[str] = []
        self.last_plan: dict[str, Any] = EMPTY_PLAN
        self.notes = ""
        self.say = ""
        self.fallback = False
        self.retry = False

    @property
    def level(self) -> Level:
        return self.levels[self.dl]

    @property
    def cell(self) -> int:
        return self.y * WIDTH + self.x

    def copy(self) -> CogState:
        """A copy safe to change: the current level is copied, the others are shared."""
        other = CogState.__new__(CogState)
        for slot in CogState.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.rng = self.rng.copy()
        other.pack = dict(self.pack)
        other.identified = list(self.identified)
        other.levels = dict(self.levels)
        other.levels[self.dl] = self.levels[self.dl].copy()
        return other


# -- derived figures -------------------------------------------------------------------


def hunger_of(nutrition: int) -> str:
    if nutrition > HUNGRY_AT:
        return NOT_HUNGRY
    if nutrition > WEAK_AT:
        return HUNGRY
    if nutrition > FAINTING_AT:
        return WEAK
    return FAINTING


def armour_class(state: CogState) -> int:
    if state.worn is None:
        return BASE_AC
    return BASE_AC - ARMOURS[state.pack[state.worn][1]].ac


def item_name(state: CogState, item: Item) -> str:
    return name(item, state.appearances, state.identified)


def plan_copy(plan: dict[str, Any]) -> dict[str, Any]:
    """A copy of a ``last_plan`` record sharing nothing mutable with it."""
    return {
        "executed": [dict(e) for e in plan["executed"]],
        "truncated": plan["truncated"],
        "dropped": [dict(e) for e in plan["dropped"]],
        "over_cap": plan["over_cap"],
        "unreachable": [dict(e) for e in plan["unreachable"]],
        "interrupted": plan["interrupted"],
    }


# -- JSON ------------------------------------------------------------------------------


def to_json(state: CogState) -> dict[str, Any]:
    return {
        "game": SLUG,
        "version": FORMAT_VERSION,
        "seed": state.seed,
        "rng": state.rng.to_json(),
        "turn": state.turn,
        "dungeon_turn": state.dungeon_turn,
        "dl": state.dl,
        "x": state.x,
        "y": state.y,
        "hp": state.hp,
        "max_hp": state.max_hp,
        "xl": state.xl,
        "xp": state.xp,
        "gold": state.gold,
        "nutrition": state.nutrition,
        "score": state.score,
        "deepest": state.deepest,
        "run": state.run,
        "pack": {letter: list(item) for letter, item in sorted(state.pack.items())},
        "wielded": state.wielded,
        "worn": state.worn,
        "appearances": list(state.appearances),
        "identified": list(state.identified),
        "confused": state.confused,
        "levels": {str(d): level.to_json() for d, level in sorted(state.levels.items())},
        "messages": list(state.messages),
        "last_plan": plan_copy(state.last_plan),
        "notes": state.notes,
        "say": state.say,
        "fallback": state.fallback,
        "retry": state.retry,
    }


def from_json(data: Any) -> CogState:
    data = need_object(data, StateError, WHAT)
    need(data.get("game") == SLUG, StateError, WHAT, f'"game" must be {SLUG!r}')
    need(
        data.get("version") == FORMAT_VERSION,
        StateError,
        WHAT,
        f'"version" must be {FORMAT_VERSION}',
    )
    s = CogState()
    try:
        s.seed = check_seed(data.get("seed"))
    except OptionsError as error:
        raise StateError(f"{WHAT}: {error}") from None
    s.rng = Rng.from_json(data.get("rng"))
    s.turn = int_field(data, "turn", StateError, WHAT, 0)
    s.dungeon_turn = int_field(data, "dungeon_turn", StateError, WHAT, 0)
    s.dl = int_field(data, "dl", StateError, WHAT, 1, LEVELS)
    s.x = int_field(data, "x", StateError, WHAT, 0, WIDTH - 1)
    s.y = int_field(data, "y", StateError, WHAT, 0, HEIGHT - 1)
    s.hp = int_field(data, "hp", StateError, WHAT, -MAX_HIT)
    s.max_hp = int_field(data, "max_hp", StateError, WHAT, 1)
    s.xl = int_field(data, "xl", StateError, WHAT, 1, MAX_XL)
    s.xp = int_field(data, "xp", StateError, WHAT, 0)
    s.gold = int_field(data, "gold", StateError, WHAT, 0)
    s.nutrition = int_field(data, "nutrition", StateError, WHAT, STARVED_BELOW - 1, NUTRITION_CAP)
    s.score = int_field(data, "score", StateError, WHAT, 0)
    s.deepest = int_field(data, "deepest", StateError, WHAT, 1, LEVELS)
    s.run = str_field(data, "run", StateError, WHAT)
    need(s.run in RUN_STATES, StateError, WHAT, f"run must be one of {RUN_STATES}, got {s.run!r}")
    s.pack = _pack_from_json(need_object(data.get("pack"), StateError, f"{WHAT}: pack"))
    for key, category in (("wielded", WEAPON_KIND), ("worn", ARMOUR_KIND)):
        letter = data.get(key)
        need(
            letter is None
            or (isinstance(letter, str) and letter in s.pack and s.pack[letter][0] == category),
            StateError,
            WHAT,
            f"{key} must be null or the letter of a {category} in the pack",
        )
    s.wielded, s.worn = data.get("wielded"), data.get("worn")
    looks = data.get("appearances")
    need(
        isinstance(looks, list)
        and len(looks) == len(POTIONS)
        and all(type(v) is int and 0 <= v < len(APPEARANCES) for v in looks)
        and len(set(looks)) == len(looks),
        StateError,
        WHAT,
        "appearances must be distinct appearance indexes, one per potion kind",
    )
    s.appearances = list(looks)
    known = data.get("identified")
    need(
        isinstance(known, list)
        and len(known) == len(POTIONS)
        and all(isinstance(v, bool) for v in known),
        StateError,
        WHAT,
        "identified must be one boolean per potion kind",
    )
    s.identified = list(known)
    s.confused = int_field(data, "confused", StateError, WHAT, 0)
    levels = need_object(data.get("levels"), StateError, f"{WHAT}: levels")
    need(str(s.dl) in levels, StateError, WHAT, "levels must hold the current level")
    for key, value in levels.items():
        need(key in LEVEL_KEYS, StateError, WHAT, f"bad level number {key!r}")
        s.levels[int(key)] = _level_from_json(int(key), value)
    messages = list_field(data, "messages", StateError, WHAT)
    need(
        len(messages) <= MAX_MESSAGES and all(isinstance(m, str) for m in messages),
        StateError,
        WHAT,
        f"messages must be a list of at most {MAX_MESSAGES} strings",
    )
    s.messages = list(messages)
    s.last_plan = _plan_from_json(data.get("last_plan"))
    s.notes = str_field(data, "notes", StateError, WHAT)
    s.say = str_field(data, "say", StateError, WHAT)
    s.fallback = bool_field(data, "fallback", StateError, WHAT)
    s.retry = bool_field(data, "retry", StateError, WHAT)
    return s


def from_trusted_json(data: Any) -> CogState:
    """The state of a JSON form that :func:`to_json` of this same code wrote and a seal
    has authenticated since (see :meth:`Game.from_trusted_json`): the same state as
    :func:`from_json` gives, built without checking any field. Anything else must go
    through :func:`from_json`."""
    s = CogState()
    s.seed = data["seed"]
    s.rng = Rng.from_json(data["rng"])
    s.turn = data["turn"]
    s.dungeon_turn = data["dungeon_turn"]
    s.dl = data["dl"]
    s.x = data["x"]
    s.y = data["y"]
    s.hp = data["hp"]
    s.max_hp = data["max_hp"]
    s.xl = data["xl"]
    s.xp = data["xp"]
    s.gold = data["gold"]
    s.nutrition = data["nutrition"]
    s.score = data["score"]
    s.deepest = data["deepest"]
    s.run = data["run"]
    s.pack = {letter: (item[0], item[1]) for letter, item in data["pack"].items()}
    s.wielded, s.worn = data["wielded"], data["worn"]
    s.appearances = list(data["appearances"])
    s.identified = list(data["identified"])
    s.confused = data["confused"]
    for key, value in data["levels"].items():
        s.levels[int(key)] = _level_from_trusted_json(int(key), value)
    s.messages = list(data["messages"])
    s.last_plan = plan_copy(data["last_plan"])
    s.notes = data["notes"]
    s.say = data["say"]
    s.fallback = data["fallback"]
    s.retry = data["retry"]
    return s


def _pack_from_json(pack: Any) -> dict[str, Item]:
    need(
        len(pack) <= len(PACK_LETTERS),
        StateError,
        WHAT,
        f"pack holds at most {len(PACK_LETTERS)} items",
    )
    items: dict[str, Item] = {}
    for letter, item in pack.items():
        need(
            letter in PACK_LETTERS and len(letter) == 1,
            StateError,
            WHAT,
            f"bad pack letter {letter!r}",
        )
        need(is_valid(item), StateError, WHAT, f"bad item {item!r} in the pack")
        items[letter] = (item[0], item[1])
    return items


def _plan_from_json(plan: Any) -> dict[str, Any]:
    need(
        isinstance(plan, dict)
        and set(plan) == set(EMPTY_PLAN)
        and all(
            isinstance(plan[k], list) and all(isinstance(e, dict) for e in plan[k])
            for k in PLAN_LISTS
        )
        and all(type(plan[k]) is int and plan[k] >= 0 for k in PLAN_COUNTS)
        and (plan["interrupted"] is None or isinstance(plan["interrupted"], str)),
        StateError,
        WHAT,
        "last_plan must hold executed, dropped and unreachable lists of objects, truncated "
        "and over_cap counts and interrupted (null or text)",
    )
    return plan_copy(plan)


def _level_from_json(depth: int, data: Any) -> Level:
    what = f"{WHAT}: level {depth}"
    data = need_object(data, StateError, what)

    _map_text(data, "terrain", what)
    _map_text(data, "memory", what)
    rooms = data.get("rooms")
    need(
        isinstance(rooms, list)
        and bool(rooms)
        and all(
            isinstance(r, list)
            and len(r) == 4
            and all(type(v) is int for v in r)
            and 0 <= r[0] < r[2] < WIDTH
            and 0 <= r[1] < r[3] < HEIGHT
            for r in rooms
        ),
        StateError,
        what,
        "rooms must be [x1, y1, x2, y2] rectangles on the map",
    )
    int_field(data, "up", StateError, what, 0, SIZE - 1)
    down = data.get("down")
    need(
        down is None if depth == LEVELS else type(down) is int and 0 <= down < SIZE,
        StateError,
        what,
        "down must be " + ("null" if depth == LEVELS else f"the cell of > (0..{SIZE - 1})"),
    )
    for entry in list_field(data, "hidden", StateError, what):
        need(
            isinstance(entry, list)
            and len(entry) == 3
            and type(entry[0]) is int
            and 0 <= entry[0] < SIZE
            and entry[1] in ("+", "#")
            and type(entry[2]) is int
            and 0 <= entry[2] < SEARCH_FINDS_ON,
            StateError,
            what,
            f"bad hidden entry {entry!r}",
        )
    for cell in list_field(data, "locked", StateError, what):
        need(type(cell) is int and 0 <= cell < SIZE, StateError, what, f"bad locked cell {cell!r}")
    for entry in list_field(data, "items", StateError, what):
        need(
            isinstance(entry, list)
            and len(entry) == 2
            and type(entry[0]) is int
            and 0 <= entry[0] < SIZE
            and isinstance(entry[1], list)
            and bool(entry[1])
            and all(is_valid(i) for i in entry[1]),
            StateError,
            what,
            f"bad item stack {entry!r}",
        )
    for entry in list_field(data, "monsters", StateError, what):
        need(
            isinstance(entry, list)
            and len(entry) == 5
            and all(type(v) is int for v in entry)
            and 0 <= entry[1] < len(KINDS)
            and 0 <= entry[2] < WIDTH
            and 0 <= entry[3] < HEIGHT,
            StateError,
            what,
            f"bad monster {entry!r}",
        )
    return _level_from_trusted_json(depth, data)


def _level_from_trusted_json(depth: int, data: dict[str, Any]) -> Level:
    """The level of a JSON form :meth:`Level.to_json` wrote (or :func:`_level_from_json`
    has checked), built without checks."""
    hidden: dict[int, int] = {}
    searches: dict[int, int] = {}
    for cell, glyph, found in data["hidden"]:
        hidden[cell] = ord(glyph)
        if found:
            searches[cell] = found
    items: dict[int, Stack] = {
        cell: tuple((i[0], i[1]) for i in stack) for cell, stack in data["items"]
    }
    return Level(
        depth,
        bytearray(data["terrain"].encode("ascii")),
        bytearray(data["memory"].encode("ascii")),
        tuple(tuple(r) for r in data["rooms"]),
        data["up"],
        data["down"],
        hidden,
        searches,
        set(data["locked"]),
        items,
        [Monster(*entry) for entry in data["monsters"]],
    )


def _map_text(data: dict[str, Any], key: str, what: str) -> bytearray:
    text = data.get(key)
    need(
        isinstance(text, str) and len(text) == SIZE and text.isascii(),
        StateError,
        what,
        f"{key} must be {SIZE} ASCII characters",
    )
    return bytearray(text.encode("ascii"))
