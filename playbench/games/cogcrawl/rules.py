"""Cogcrawl rules: the run state, the dungeon primitives, monster turns and seat turns.

A seat turn reads a reply (retrying once, then falling back to the delver when it does
not parse; a turn the delver plays keeps the seat's notes), plans it with the seat
protocol, and runs the queue one dungeon primitive at a time. After every primitive that
takes time the monsters act, the cog grows hungrier and regenerates. The queue stops
early when the cog is hit, a new monster comes into view or a primitive fails.
``play_turn`` never mutates its input: it copies the state once (the current level
deeply, the other levels shared until entered) and then works on the copy.
"""

from __future__ import annotations

import re
from typing import Any

from playbench.core import Outcome, Rng, StateError, check_seed
from playbench.core.errors import OptionsError
from playbench.games.cogcrawl import dungeon as dg
from playbench.games.cogcrawl import items as it
from playbench.games.cogcrawl import monsters as mo
from playbench.games.cogcrawl.dungeon import WIDTH, Level
from playbench.games.cogcrawl.glyphs import DIRECTIONS, HEIGHT, ITEMS
from playbench.games.cogcrawl.protocol import ParseFailure, Primitive, plan_turn, read_reply

SLUG = "cogcrawl"
FORMAT_VERSION = 1

PLAYING, WON, DEAD, LEFT, OUT_OF_TURNS = "playing", "won", "dead", "left", "out_of_turns"
RUN_STATES = (PLAYING, WON, DEAD, LEFT, OUT_OF_TURNS)
#: the keys of the stored levels in the JSON form: "1" .. "10"
LEVEL_KEYS = frozenset(str(depth) for depth in range(1, dg.LEVELS + 1))
TURN_LIMIT = 50_000
APPEARANCE_STREAM = 11

START_HP = 16
BASE_AC = 10
PACK_LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_MESSAGES = 8

#: hunger: Not hungry above 150, Hungry 51..150, Weak 1..50, Fainting 0 and below,
#: starved below -200
START_NUTRITION = 900
NUTRITION_CAP = 2000
HUNGRY_AT, WEAK_AT, FAINTING_AT, STARVED_BELOW = 150, 50, 0, -200
NOT_HUNGRY, HUNGRY, WEAK, FAINTING = "Not hungry", "Hungry", "Weak", "Fainting"
#: while Fainting, one turn in FAINT_ODDS the cog faints for FAINT_TURNS turns
FAINT_ODDS = 10
FAINT_TURNS = (2, 5)

#: combat: the cog hits when TO_HIT_BASE + XL + monster AC + weapon to-hit > d20;
#: a monster hits when MONSTER_TO_HIT_BASE + its level + the cog's AC > d20
TO_HIT_BASE = 5
MONSTER_TO_HIT_BASE = 10
D20 = 20
BARE_HANDS = (1, 2)
#: experience needed for XL 2, 3, ...: 20, 40, 80, ... doubling
XL_FIRST_STEP = 20
MAX_XL = 14
HP_PER_XL_DIE = 8
#: more than any one blow can take: a stored hit point total is never below -MAX_HIT
MAX_HIT = max(k.dice * k.sides for k in mo.KINDS)
#: regeneration: 1 HP every 42 // (XL + 2) + 1 dungeon turns
REGEN_NUMERATOR = 42

LEVEL_BONUS = 50
COGHEART_BONUS = 1000
ORACLE_FEE = 50
#: kicking a closed or locked door breaks it open one kick in KICK_ODDS
KICK_ODDS = 3
#: when confused, one move in STAGGER_ODDS goes in a random direction
STAGGER_ODDS = 5
CONFUSION_TURNS = (5, 14)
SLEEP_TURNS = (5, 14)
HEALING_DICE = (6, 4)
EXTRA_HEALING_DICE = (6, 8)
HEALING_MAX_GAIN, EXTRA_HEALING_MAX_GAIN = 1, 2
#: a monster that cannot see the cog wanders one turn in WANDER_ODDS
WANDER_ODDS = 3
SEARCH_FINDS_ON = 3

ITEM_BYTES = {category: ord(glyph) for category, glyph in it.GLYPHS.items()}
ITEM_GLYPH_BYTES = frozenset(ord(g) for g in ITEMS)
DIRECTION_WORDS = {
    "n": "north",
    "s": "south",
    "e": "east",
    "w": "west",
    "ne": "north-east",
    "nw": "north-west",
    "se": "south-east",
    "sw": "south-west",
}
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
EMPTY_PLAN: dict[str, Any] = {
    "executed": [],
    "truncated": 0,
    "dropped": [],
    "over_cap": 0,
    "unreachable": [],
    "interrupted": None,
}


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
        self.pack: dict[str, it.Item] = {}
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
        for name in CogState.__slots__:
            setattr(other, name, getattr(self, name))
        other.rng = self.rng.copy()
        other.pack = dict(self.pack)
        other.identified = list(self.identified)
        other.levels = dict(self.levels)
        other.levels[self.dl] = self.levels[self.dl].copy()
        return other


class _Turn:
    """Scratch record of one seat turn: messages and events made, whether the cog was hit."""

    __slots__ = ("events", "hit", "log", "s")

    def __init__(self, state: CogState) -> None:
        self.s = state
        self.log: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.hit = False

    def say(self, text: str) -> None:
        self.log.append(text)


# -- a new run -------------------------------------------------------------------------


def new_state(seed: object, options: object = None) -> CogState:
    seed = check_seed(seed)
    if options:
        raise OptionsError(f"cogcrawl takes no options, got {sorted(options)!r}")
    state = CogState()
    state.seed = seed
    state.rng = Rng.from_seed(seed)
    looks = list(range(len(it.APPEARANCES)))
    Rng.from_seed(seed, APPEARANCE_STREAM).shuffle(looks)
    state.appearances = looks[: len(it.POTIONS)]
    state.identified = [False] * len(it.POTIONS)
    level = dg.generate(seed, 1)
    state.levels = {1: level}
    state.x, state.y = dg.xy_of(level.up)
    state.pack = {
        "a": (it.WEAPON_KIND, it.DAGGER),
        "b": (it.ARMOUR_KIND, it.LEATHER_ARMOUR),
        "c": (it.FOOD_KIND, it.FOOD_RATION),
        "d": (it.FOOD_KIND, it.FOOD_RATION),
    }
    state.wielded, state.worn = "a", "b"
    state.messages = ["You enter the dungeon. The Cogheart lies on level 10."]
    see(state)
    return state


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
    return BASE_AC - it.ARMOURS[state.pack[state.worn][1]].ac


def progress(state: CogState) -> float:
    """Deepest level reached / 10; taking the Cogheart (on DL10) is 1.0."""
    return 1.0 if state.run == WON else state.deepest / dg.LEVELS


def xl_threshold(xl: int) -> int:
    """Experience needed to reach XL ``xl + 1``."""
    return XL_FIRST_STEP << (xl - 1)


def regen_period(xl: int) -> int:
    return REGEN_NUMERATOR // (xl + 2) + 1


def item_name(state: CogState, item: it.Item) -> str:
    return it.name(item, state.appearances, state.identified)


# -- sight -----------------------------------------------------------------------------


def can_see(level: Level, cog: int, x: int, y: int) -> bool:
    """The cog sees a cell next to it, and the whole of a lit room it stands in."""
    cx, cy = cog % WIDTH, cog // WIDTH
    if abs(cx - x) <= 1 and abs(cy - y) <= 1:
        return True
    room = level.owner[cog]
    return room != 0 and level.owner[y * WIDTH + x] == room


def visible_monsters(state: CogState) -> list[mo.Monster]:
    level, cog = state.level, state.cell
    return [m for m in level.monsters if can_see(level, cog, m.x, m.y)]


def see(state: CogState) -> None:
    """Copy what the cog sees now into the level's memory."""
    level, cog = state.level, state.cell
    memory, terrain, items = level.memory, level.terrain, level.items
    room = level.owner[cog]
    if room:
        x1, y1, x2, y2 = level.rooms[room - 1]
        for row in range(y1 * WIDTH, (y2 + 1) * WIDTH, WIDTH):
            memory[row + x1 : row + x2 + 1] = terrain[row + x1 : row + x2 + 1]
        for cell, stack in items.items():
            if level.owner[cell] == room:
                memory[cell] = ITEM_BYTES[stack[0][0]]
    for cell in dg.AROUND[cog]:
        stack = items.get(cell)
        memory[cell] = ITEM_BYTES[stack[0][0]] if stack else terrain[cell]


def memory_rows(level: Level) -> list[str]:
    text = level.memory.decode("ascii")
    return [text[y * WIDTH : (y + 1) * WIDTH] for y in range(HEIGHT)]


# -- a seat turn -----------------------------------------------------------------------


def play_turn(state: CogState, action: object) -> Outcome[CogState]:
    if state.run != PLAYING:
        return Outcome.refused(state, f"the run is over ({state.run}); start a new one")
    if not isinstance(action, dict):
        return Outcome.refused(
            state,
            "an action must be a JSON object: a reply such as "
            '{"actions": [{"do": "move", "dir": "n"}]} or {"reply": "<raw text>"}',
        )
    fallback = False
    try:
        reply = read_reply(action)
    except ParseFailure as failure:
        if not state.retry:
            retried = state.copy()
            retried.retry = True
            return Outcome.counted_refusal(
                retried, f"{failure}; the turn is retried once, then the delver plays it"
            )
        reply = _delver_reply(state)
        fallback = True
    new = state.copy()
    turn = _Turn(new)
    if fallback:
        turn.say("Your reply failed to parse twice; the delver played this turn.")
    level = new.level
    seen = {(new.dl, m.ident) for m in visible_monsters(new)}
    plan = plan_turn(
        reply,
        memory_rows(level),
        (new.x, new.y),
        {(m.x, m.y) for m in visible_monsters(new)},
        set(new.pack),
    )
    queue = plan.primitives or [Primitive("wait")]
    executed: list[dict[str, str]] = []
    interrupted = None
    for primitive in queue:
        turn.hit = False
        failure = run_primitive(turn, primitive)
        if failure is not None:
            turn.say(f"{failure[0].upper()}{failure[1:]}.")
            interrupted = f"{_describe(primitive)} failed: {failure}"
            break
        executed.append(primitive.to_json())
        if new.run != PLAYING:
            break
        if turn.hit:
            interrupted = "the cog was hit"
            break
        newcomers = [m for m in visible_monsters(new) if (new.dl, m.ident) not in seen]
        if newcomers:
            interrupted = f"a {newcomers[0].info.name} came into view"
            break
    new.turn += 1
    new.messages = trim_messages(turn.log)
    new.last_plan = {
        "executed": executed,
        "truncated": plan.truncated,
        "dropped": [
            {**entry, "do": clean_text(entry["do"])} if isinstance(entry["do"], str) else entry
            for entry in plan.dropped
        ],
        "over_cap": plan.over_cap,
        "unreachable": plan.unreachable,
        "interrupted": interrupted,
    }
    # the notes are the seat's only memory: a turn the delver played keeps them as they were
    new.notes = state.notes if fallback else clean_text(plan.notes)
    new.say = clean_text(plan.say)
    new.fallback = fallback
    new.retry = False
    return Outcome(state=new, reward=new.score - state.score, events=turn.events)


def clean_text(text: str) -> str:
    """Text safe to store and hash: a lone surrogate (only JSON escapes can make one)
    becomes U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


def _delver_reply(state: CogState) -> dict:
    from playbench.bots.cogcrawl import delver_reply
    from playbench.games.cogcrawl.view import observe

    return delver_reply(observe(state))


def _describe(primitive: Primitive) -> str:
    return " ".join(p for p in (primitive.verb, primitive.dir, primitive.item) if p)


def trim_messages(log: list[str]) -> list[str]:
    """At most MAX_MESSAGES lines; when more were made the first says how many were dropped."""
    if len(log) <= MAX_MESSAGES:
        return list(log)
    dropped = len(log) - (MAX_MESSAGES - 1)
    return [f"({dropped} older messages dropped)", *log[-(MAX_MESSAGES - 1) :]]


# -- primitives ------------------------------------------------------------------------


def run_primitive(turn: _Turn, primitive: Primitive) -> str | None:
    """Run one primitive; the reason it failed (taking no time), or None."""
    handler = _HANDLERS[primitive.verb]
    failure = handler(turn, primitive)
    if failure is None:
        see(turn.s)
    return failure


def _wait(turn: _Turn, _: Primitive) -> None:
    pass_time(turn)


def _move(turn: _Turn, primitive: Primitive) -> str | None:
    s = turn.s
    level = s.level
    if primitive.origin is not None and primitive.origin != (s.x, s.y):
        return "the cog is not where this travel was planned from"
    direction = primitive.dir or "n"
    staggered = s.confused > 0 and s.rng.below(STAGGER_ODDS) == 0
    if staggered:
        direction = s.rng.choice(list(DIRECTIONS))
    dx, dy = DIRECTIONS[direction]
    x, y = s.x + dx, s.y + dy
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
        return "the edge of the dungeon is in the way"
    here, there = s.cell, y * WIDTH + x
    if dx and dy and not dg.step_allowed(level.terrain, here, there):
        return "no diagonal step into or out of a doorway"
    monster = level.monster_at(there)
    if monster is not None:
        if monster.info.peaceful or primitive.origin is not None:
            return f"the {monster.info.name} is in the way"
        _attack(turn, monster)
        pass_time(turn)
        return None
    glyph = level.terrain[there]
    if glyph == dg.DOOR_CLOSED_B:
        if there in level.locked:
            return "this door is locked"
        level.terrain[there] = dg.DOOR_OPEN_B
        turn.say("The door opens.")
        pass_time(turn)
        return None
    if glyph == dg.LAVA_B:
        if staggered:
            return "you stagger to the edge of the lava and stop"
        s.x, s.y = x, y
        turn.say("You step into the lava and burn to a crisp.")
        _die(turn, "burned in lava")
        return None
    if glyph not in dg.WALKABLE_B:
        return "solid rock is in the way" if glyph == dg.ROCK_B else "a wall is in the way"
    s.x, s.y = x, y
    stack = level.items.get(there)
    if stack:
        turn.say(f"You see here {_stack_text(s, stack)}.")
    pass_time(turn)
    return None


def _stack_text(state: CogState, stack: dg.Stack) -> str:
    first = item_name(state, stack[0])
    return first if len(stack) == 1 else f"{first} and {len(stack) - 1} more"


def _attack(turn: _Turn, monster: mo.Monster) -> None:
    s = turn.s
    kind = monster.info
    weapon = it.WEAPONS[s.pack[s.wielded][1]] if s.wielded is not None else None
    to_hit = TO_HIT_BASE + s.xl + kind.ac + (weapon.to_hit if weapon else 0)
    if to_hit <= s.rng.randint(1, D20):
        turn.say(f"You miss the {kind.name}.")
        return
    if weapon is None:
        damage = roll(s.rng, *BARE_HANDS)
    else:
        damage = roll(s.rng, weapon.dice, weapon.sides) + weapon.bonus
    if hunger_of(s.nutrition) in (WEAK, FAINTING):
        damage = max(1, damage // 2)
    monster.hp -= damage
    if monster.hp > 0:
        turn.say(f"You hit the {kind.name}.")
        return
    s.level.monsters.remove(monster)
    turn.say(f"You kill the {kind.name}!")
    turn.events.append({"type": "killed", "monster": kind.name})
    s.xp += kind.experience
    s.score += kind.experience
    while s.xl < MAX_XL and s.xp >= xl_threshold(s.xl):
        s.xl += 1
        gain = s.rng.randint(1, HP_PER_XL_DIE)
        s.max_hp += gain
        s.hp += gain
        turn.say(f"Welcome to experience level {s.xl}.")


def roll(rng: Rng, dice: int, sides: int) -> int:
    return sum(rng.randint(1, sides) for _ in range(dice))


def _search(turn: _Turn, _: Primitive) -> None:
    s = turn.s
    level = s.level
    for _, cell in dg.neighbours(s.cell):
        if cell not in level.hidden:
            continue
        count = level.searches.get(cell, 0) + 1
        if count < SEARCH_FINDS_ON:
            level.searches[cell] = count
            continue
        found = level.hidden[cell]
        dg.reveal(level, cell)
        turn.say(
            "You find a hidden door." if found == dg.DOOR_CLOSED_B else "You find a hidden passage."
        )
        turn.events.append({"type": "found", "x": cell % WIDTH, "y": cell // WIDTH})
    pass_time(turn)


def _pickup(turn: _Turn, _: Primitive) -> str | None:
    s = turn.s
    level = s.level
    stack = level.items.get(s.cell)
    if not stack:
        return "there is nothing here to pick up"
    left = []
    for item in stack:
        category = item[0]
        if category == it.GOLD_KIND:
            s.gold += item[1]
            s.score += item[1]
            turn.say(f"{item_name(s, item)}.")
            continue
        letter = next((c for c in PACK_LETTERS if c not in s.pack), None)
        if category == it.COGHEART_KIND:
            if letter is not None:
                s.pack[letter] = item
            s.score += COGHEART_BONUS
            s.run = WON
            turn.say("You take the Cogheart! It thrums in your hands. You win.")
            turn.events.append({"type": "won"})
            continue
        if letter is None:
            left.append(item)
            turn.say(f"Your pack is full; you leave the {item_name(s, item)}.")
            continue
        s.pack[letter] = item
        turn.say(f"{letter} - {item_name(s, item)}.")
    if left:
        level.items[s.cell] = tuple(left)
    else:
        del level.items[s.cell]
    if s.run == PLAYING:
        pass_time(turn)
    return None


def _pack_item(s: CogState, primitive: Primitive, category: str, verb: str) -> it.Item | str:
    item = s.pack.get(primitive.item or "")
    if item is None:
        return f"no item {primitive.item!r} in the pack"
    if item[0] != category:
        return f"you cannot {verb} the {item_name(s, item)}"
    return item


def _eat(turn: _Turn, primitive: Primitive) -> str | None:
    s = turn.s
    item = _pack_item(s, primitive, it.FOOD_KIND, "eat")
    if isinstance(item, str):
        return item
    food = it.FOODS[item[1]]
    del s.pack[primitive.item]
    s.nutrition = min(NUTRITION_CAP, s.nutrition + food.nutrition)
    turn.say(f"You eat the {food.name}.")
    pass_time(turn, food.turns)
    return None


def _quaff(turn: _Turn, primitive: Primitive) -> str | None:
    s = turn.s
    item = _pack_item(s, primitive, it.POTION_KIND, "drink")
    if isinstance(item, str):
        return item
    kind = item[1]
    looks = item_name(s, item)
    del s.pack[primitive.item]
    s.identified[kind] = True
    turn.say(f"You drink the {looks}. It was a potion of {it.POTIONS[kind]}.")
    extra = 0
    if kind in (it.HEALING, it.EXTRA_HEALING):
        dice, gain = (
            (HEALING_DICE, HEALING_MAX_GAIN)
            if kind == it.HEALING
            else (EXTRA_HEALING_DICE, EXTRA_HEALING_MAX_GAIN)
        )
        s.hp += roll(s.rng, *dice)
        if s.hp > s.max_hp:
            s.max_hp += gain
            s.hp = s.max_hp
        turn.say("You feel better.")
    elif kind == it.SLEEPING:
        extra = s.rng.randint(*SLEEP_TURNS)
        turn.say("You fall asleep.")
    elif kind == it.CONFUSION:
        s.confused += s.rng.randint(*CONFUSION_TURNS)
        turn.say("Huh, what? Where am I?")
    elif kind == it.OBJECT_DETECTION:
        level = s.level
        for cell, stack in level.items.items():
            level.memory[cell] = ITEM_BYTES[stack[0][0]]
        turn.say("You sense the presence of objects.")
    else:
        level = s.level
        memory, terrain = level.memory, level.terrain
        for cell in range(dg.SIZE):
            if memory[cell] == dg.ROCK_B:
                memory[cell] = terrain[cell]
        turn.say("A map coalesces in your mind!")
    pass_time(turn, 1 + extra)
    return None


#: wield and wear: the item kind, the state slot they fill, what is said when it is filled
EQUIP = {
    "wield": (it.WEAPON_KIND, "wielded", "wielding", "{letter} - {name} (weapon in hand)."),
    "wear": (it.ARMOUR_KIND, "worn", "wearing", "You are now wearing the {name}."),
}


def _equip(turn: _Turn, primitive: Primitive) -> str | None:
    """Wield a weapon or wear armour from the pack: one turn, a worse choice allowed."""
    s = turn.s
    kind, slot, doing, message = EQUIP[primitive.verb]
    item = _pack_item(s, primitive, kind, primitive.verb)
    if isinstance(item, str):
        return item
    name = item_name(s, item)
    if getattr(s, slot) == primitive.item:
        return f"you are already {doing} the {name}"
    setattr(s, slot, primitive.item)
    turn.say(message.format(letter=primitive.item, name=name))
    pass_time(turn)
    return None


def _kick(turn: _Turn, primitive: Primitive) -> str | None:
    s = turn.s
    if hunger_of(s.nutrition) in (WEAK, FAINTING):
        return "you are too weak to kick"
    dx, dy = DIRECTIONS[primitive.dir or "n"]
    if dx and dy:
        return "you cannot kick diagonally"
    x, y = s.x + dx, s.y + dy
    level = s.level
    cell = y * WIDTH + x
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT) or level.terrain[cell] != dg.DOOR_CLOSED_B:
        return "there is no closed door there to kick"
    if s.rng.below(KICK_ODDS) == 0:
        level.terrain[cell] = dg.DOOR_OPEN_B
        level.locked.discard(cell)
        turn.say("WHAMM! The door crashes open!")
    else:
        turn.say("WHAMM!")
    pass_time(turn)
    return None


def _chat(turn: _Turn, primitive: Primitive) -> str | None:
    s = turn.s
    dx, dy = DIRECTIONS[primitive.dir or "n"]
    monster = s.level.monster_at((s.y + dy) * WIDTH + s.x + dx)
    if monster is None or monster.kind != mo.ORACLE:
        return "there is nobody there to talk to"
    if s.gold < ORACLE_FEE:
        return f"the Oracle wants {ORACLE_FEE} gold and you have {s.gold}"
    s.gold -= ORACLE_FEE
    turn.say(f"The Oracle takes {ORACLE_FEE} gold and says: {oracle_answer(s)}")
    pass_time(turn)
    return None


def oracle_answer(state: CogState) -> str:
    """The compass direction of ``>`` from the cog, by the 8-way sector it falls in."""
    down = state.level.down
    if down is None:
        return "There are no stairs down on this level."
    dx, dy = down % WIDTH - state.x, down // WIDTH - state.y
    if dx == 0 and dy == 0:
        return "You are standing on the stairs down."
    return f"The stairs down lie to the {DIRECTION_WORDS[compass(dx, dy)]}."


def compass(dx: int, dy: int) -> str:
    """8-way direction of a vector: straight when one axis is over twice the other."""
    vertical = "n" if dy < 0 else "s"
    horizontal = "w" if dx < 0 else "e"
    if abs(dx) > 2 * abs(dy):
        return horizontal
    if abs(dy) > 2 * abs(dx):
        return vertical
    return vertical + horizontal


def _down(turn: _Turn, _: Primitive) -> str | None:
    s = turn.s
    if s.level.terrain[s.cell] != dg.STAIRS_DOWN_B:
        return "you can't go down here"
    _enter(turn, s.dl + 1, down=True)
    return None


def _up(turn: _Turn, _: Primitive) -> str | None:
    s = turn.s
    if s.level.terrain[s.cell] != dg.STAIRS_UP_B:
        return "you can't go up here"
    if s.dl == 1:
        s.run = LEFT
        turn.say("You climb out of the dungeon, leaving the Cogheart behind.")
        turn.events.append({"type": "left"})
        return None
    _enter(turn, s.dl - 1, down=False)
    return None


def _enter(turn: _Turn, depth: int, down: bool) -> None:
    s = turn.s
    level = s.levels.get(depth)
    level = dg.generate(s.seed, depth) if level is None else level.copy()
    s.levels[depth] = level
    s.dl = depth
    arrival = level.up if down else level.down
    assert arrival is not None
    s.x, s.y = dg.xy_of(arrival)
    _make_room(level, arrival)
    turn.events.append({"type": "level", "dl": depth})
    if depth > s.deepest:
        s.deepest = depth
        s.score += LEVEL_BONUS
        turn.say(f"You reach level {depth} for the first time.")
    see(s)
    pass_time(turn)


def _make_room(level: Level, cell: int) -> None:
    """Move a monster standing on the arrival cell to the nearest free walkable cell."""
    monster = level.monster_at(cell)
    if monster is None:
        return
    parents = dg.reachable(level, cell, dg.passable_now(level))
    for other in parents:
        if other != cell and level.monster_at(other) is None:
            monster.x, monster.y = dg.xy_of(other)
            return


# -- time passing ----------------------------------------------------------------------


def pass_time(turn: _Turn, turns: int = 1) -> None:
    """Let ``turns`` dungeon turns go by: monsters act, hunger, regeneration, the limit.

    A faint adds its helpless turns; no new faint starts while the cog is out.
    """
    s = turn.s
    remaining = turns
    fainted = 0
    while remaining > 0 and s.run == PLAYING:
        remaining -= 1
        _monsters_act(turn)
        if s.run != PLAYING:
            return
        s.dungeon_turn += 1
        if s.confused:
            s.confused -= 1
        lost = _hunger(turn, can_faint=fainted == 0)
        if fainted:
            fainted -= 1
        fainted += lost
        remaining += lost
        if s.run != PLAYING:
            return
        if s.hp < s.max_hp and s.dungeon_turn % regen_period(s.xl) == 0:
            s.hp += 1
        if s.dungeon_turn >= TURN_LIMIT:
            s.run = OUT_OF_TURNS
            turn.say(f"The dungeon turn limit of {TURN_LIMIT} is reached.")
            turn.events.append({"type": "out_of_turns"})


def _hunger(turn: _Turn, can_faint: bool) -> int:
    """One turn of hunger; returns how many turns the cog spends fainted."""
    s = turn.s
    before = hunger_of(s.nutrition)
    s.nutrition -= 1
    after = hunger_of(s.nutrition)
    if s.nutrition < STARVED_BELOW:
        turn.say("You die from starvation.")
        _die(turn, "starved")
        return 0
    if after != before:
        turn.say(
            {
                HUNGRY: "You are beginning to feel hungry.",
                WEAK: "You are beginning to feel weak.",
                FAINTING: "You are fainting from lack of food.",
            }[after]
        )
    if can_faint and after == FAINTING and s.rng.below(FAINT_ODDS) == 0:
        turn.say("You faint from lack of food.")
        return s.rng.randint(*FAINT_TURNS)
    return 0


def _die(turn: _Turn, cause: str) -> None:
    s = turn.s
    s.hp = min(s.hp, 0)
    s.run = DEAD
    turn.say("You die...")
    turn.events.append({"type": "died", "cause": cause})


def _monsters_act(turn: _Turn) -> None:
    s = turn.s
    level = s.level
    cog = s.cell
    for monster in list(level.monsters):
        kind = monster.info
        if kind.peaceful:
            continue
        cell = monster.y * WIDTH + monster.x
        if abs(monster.x - s.x) <= 1 and abs(monster.y - s.y) <= 1:
            if dg.step_allowed(level.terrain, cell, cog):
                _monster_attack(turn, monster)
                if s.run != PLAYING:
                    return
            continue
        if not kind.moves:
            continue
        if can_see(level, cog, monster.x, monster.y):
            _chase(level, monster, s.x, s.y)
        elif s.rng.below(WANDER_ODDS) == 0:
            _wander(s.rng, level, monster, cog)


def _monster_attack(turn: _Turn, monster: mo.Monster) -> None:
    s = turn.s
    kind = monster.info
    if MONSTER_TO_HIT_BASE + kind.level + armour_class(s) <= s.rng.randint(1, D20):
        turn.say(f"The {kind.name} misses.")
        return
    damage = roll(s.rng, kind.dice, kind.sides)
    s.hp -= damage
    turn.hit = True
    turn.say(f"The {kind.name} {kind.verb}!")
    if s.hp <= 0:
        _die(turn, f"killed by a {kind.name}")


def _free_for_monster(level: Level, here: int, there: int, cog: int) -> bool:
    return (
        level.terrain[there] in dg.WALKABLE_B
        and there != cog
        and dg.step_allowed(level.terrain, here, there)
        and level.monster_at(there) is None
    )


def _chase(level: Level, monster: mo.Monster, cx: int, cy: int) -> None:
    here = monster.y * WIDTH + monster.x
    cog = cy * WIDTH + cx
    best = (
        max(abs(monster.x - cx), abs(monster.y - cy)),
        abs(monster.x - cx) + abs(monster.y - cy),
    )
    target = None
    for _, there in dg.neighbours(here):
        if not _free_for_monster(level, here, there, cog):
            continue
        x, y = there % WIDTH, there // WIDTH
        score = (max(abs(x - cx), abs(y - cy)), abs(x - cx) + abs(y - cy))
        if score < best:
            best, target = score, there
    if target is not None:
        monster.x, monster.y = target % WIDTH, target // WIDTH


def _distance(x: int, y: int, cx: int, cy: int) -> tuple[int, int]:
    """Chebyshev distance, ties broken by Manhattan distance."""
    dx, dy = abs(x - cx), abs(y - cy)
    return max(dx, dy), dx + dy


def _wander(rng: Rng, level: Level, monster: mo.Monster, cog: int) -> None:
    here = monster.y * WIDTH + monster.x
    options = [c for _, c in dg.neighbours(here) if _free_for_monster(level, here, c, cog)]
    if options:
        target = rng.choice(options)
        monster.x, monster.y = target % WIDTH, target // WIDTH


_HANDLERS = {
    "move": _move,
    "wait": _wait,
    "search": _search,
    "pickup": _pickup,
    "eat": _eat,
    "quaff": _quaff,
    "wield": _equip,
    "wear": _equip,
    "kick": _kick,
    "chat": _chat,
    "down": _down,
    "up": _up,
}


# -- legal actions ---------------------------------------------------------------------


def legal_primitives(state: CogState) -> list[Primitive]:
    """Single primitives worth offering now, in a stable order (see Game.legal_actions)."""
    if state.run != PLAYING:
        return []
    level, cog = state.level, state.cell
    memory = level.memory
    out: list[Primitive] = []
    kicks: list[Primitive] = []
    chats: list[Primitive] = []
    weak = hunger_of(state.nutrition) in (WEAK, FAINTING)
    for name, cell in dg.neighbours(cog):
        monster = level.monster_at(cell)
        if monster is not None and monster.info.peaceful:
            chats.append(Primitive("chat", dir=name))
            continue
        diagonal = len(name) == 2
        if diagonal and not dg.step_allowed(level.terrain, cog, cell):
            continue
        glyph = memory[cell]
        if monster is not None or glyph in dg.WALKABLE_B or glyph in ITEM_GLYPH_BYTES:
            out.append(Primitive("move", dir=name))
        elif glyph == dg.DOOR_CLOSED_B:
            out.append(Primitive("move", dir=name))
            if not diagonal and not weak:
                kicks.append(Primitive("kick", dir=name))
    out.extend(kicks)
    out.extend(chats)
    out.append(Primitive("search"))
    out.append(Primitive("wait"))
    if cog in level.items:
        out.append(Primitive("pickup"))
    terrain = level.terrain[cog]
    if terrain == dg.STAIRS_DOWN_B:
        out.append(Primitive("down"))
    if terrain == dg.STAIRS_UP_B:
        out.append(Primitive("up"))
    uses = (
        ("eat", it.FOOD_KIND, None),
        ("quaff", it.POTION_KIND, None),
        ("wield", it.WEAPON_KIND, state.wielded),
        ("wear", it.ARMOUR_KIND, state.worn),
    )
    for verb, category, current in uses:
        for letter in sorted(state.pack):
            if state.pack[letter][0] == category and letter != current:
                out.append(Primitive(verb, item=letter))
    return out


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


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise StateError(f"bad cogcrawl state: {message}")


def _int(data: dict, key: str, low: int, high: int | None = None) -> int:
    value = data.get(key)
    _need(type(value) is int, f"{key} must be an integer")
    _need(value >= low and (high is None or value <= high), f"{key} {value} is out of range")
    return value


def _str(data: dict, key: str) -> str:
    value = data.get(key)
    _need(isinstance(value, str), f"{key} must be a string")
    return value


def _bool(data: dict, key: str) -> bool:
    value = data.get(key)
    _need(isinstance(value, bool), f"{key} must be true or false")
    return value


def from_json(data: Any) -> CogState:
    _need(isinstance(data, dict), "the state must be a JSON object")
    _need(data.get("game") == SLUG, f'"game" must be {SLUG!r}')
    _need(data.get("version") == FORMAT_VERSION, f'"version" must be {FORMAT_VERSION}')
    s = CogState()
    s.seed = check_seed_state(data.get("seed"))
    s.rng = Rng.from_json(data.get("rng"))
    s.turn = _int(data, "turn", 0)
    s.dungeon_turn = _int(data, "dungeon_turn", 0)
    s.dl = _int(data, "dl", 1, dg.LEVELS)
    s.x = _int(data, "x", 0, WIDTH - 1)
    s.y = _int(data, "y", 0, HEIGHT - 1)
    s.hp = _int(data, "hp", -MAX_HIT)
    s.max_hp = _int(data, "max_hp", 1)
    s.xl = _int(data, "xl", 1, MAX_XL)
    s.xp = _int(data, "xp", 0)
    s.gold = _int(data, "gold", 0)
    s.nutrition = _int(data, "nutrition", STARVED_BELOW - 1, NUTRITION_CAP)
    s.score = _int(data, "score", 0)
    s.deepest = _int(data, "deepest", 1, dg.LEVELS)
    s.run = _str(data, "run")
    _need(s.run in RUN_STATES, f"run must be one of {RUN_STATES}")
    pack = data.get("pack")
    _need(isinstance(pack, dict) and len(pack) <= len(PACK_LETTERS), "pack must be an object")
    for letter, item in pack.items():
        _need(letter in PACK_LETTERS and len(letter) == 1, f"bad pack letter {letter!r}")
        _need(it.is_valid(item), f"bad item {item!r} in the pack")
        s.pack[letter] = (item[0], item[1])
    for key, category in (("wielded", it.WEAPON_KIND), ("worn", it.ARMOUR_KIND)):
        letter = data.get(key)
        _need(
            letter is None
            or (isinstance(letter, str) and letter in s.pack and s.pack[letter][0] == category),
            f"{key} must be null or the letter of a {category} in the pack",
        )
    s.wielded, s.worn = data.get("wielded"), data.get("worn")
    looks = data.get("appearances")
    _need(
        isinstance(looks, list)
        and len(looks) == len(it.POTIONS)
        and all(type(v) is int and 0 <= v < len(it.APPEARANCES) for v in looks)
        and len(set(looks)) == len(looks),
        "appearances must be distinct appearance indexes, one per potion kind",
    )
    s.appearances = list(looks)
    known = data.get("identified")
    _need(
        isinstance(known, list)
        and len(known) == len(it.POTIONS)
        and all(isinstance(v, bool) for v in known),
        "identified must be one boolean per potion kind",
    )
    s.identified = list(known)
    s.confused = _int(data, "confused", 0)
    levels = data.get("levels")
    _need(isinstance(levels, dict) and str(s.dl) in levels, "levels must hold the current level")
    for key, value in levels.items():
        _need(key in LEVEL_KEYS, f"bad level number {key!r}")
        s.levels[int(key)] = _level_from_json(int(key), value)
    messages = data.get("messages")
    _need(
        isinstance(messages, list)
        and len(messages) <= MAX_MESSAGES
        and all(isinstance(m, str) for m in messages),
        f"messages must be a list of at most {MAX_MESSAGES} strings",
    )
    s.messages = list(messages)
    plan = data.get("last_plan")
    _need(
        isinstance(plan, dict)
        and set(plan) == set(EMPTY_PLAN)
        and all(
            isinstance(plan[k], list) and all(isinstance(e, dict) for e in plan[k])
            for k in ("executed", "dropped", "unreachable")
        )
        and all(type(plan[k]) is int and plan[k] >= 0 for k in ("truncated", "over_cap"))
        and (plan["interrupted"] is None or isinstance(plan["interrupted"], str)),
        "last_plan must hold executed, dropped and unreachable lists of objects, truncated "
        "and over_cap counts and interrupted (null or text)",
    )
    s.last_plan = plan_copy(plan)
    s.notes = _str(data, "notes")
    s.say = _str(data, "say")
    s.fallback = _bool(data, "fallback")
    s.retry = _bool(data, "retry")
    return s


def check_seed_state(seed: object) -> int:
    try:
        return check_seed(seed)
    except OptionsError as error:
        raise StateError(f"bad cogcrawl state: {error}") from None


def _level_from_json(depth: int, data: Any) -> Level:
    _need(isinstance(data, dict), f"level {depth} must be an object")
    terrain = _map_text(data, "terrain", depth)
    memory = _map_text(data, "memory", depth)
    rooms = data.get("rooms")
    _need(
        isinstance(rooms, list)
        and rooms
        and all(
            isinstance(r, list)
            and len(r) == 4
            and all(type(v) is int for v in r)
            and 0 <= r[0] < r[2] < WIDTH
            and 0 <= r[1] < r[3] < HEIGHT
            for r in rooms
        ),
        f"level {depth} rooms must be [x1, y1, x2, y2] rectangles on the map",
    )
    up = _int(data, "up", 0, dg.SIZE - 1)
    down = data.get("down")
    _need(
        down is None if depth == dg.LEVELS else type(down) is int and 0 <= down < dg.SIZE,
        f"level {depth} down must be "
        + ("null" if depth == dg.LEVELS else f"the cell of > (0..{dg.SIZE - 1})"),
    )
    hidden: dict[int, int] = {}
    searches: dict[int, int] = {}
    for entry in _list(data, "hidden", depth):
        _need(
            isinstance(entry, list)
            and len(entry) == 3
            and type(entry[0]) is int
            and 0 <= entry[0] < dg.SIZE
            and entry[1] in ("+", "#")
            and type(entry[2]) is int
            and 0 <= entry[2] < SEARCH_FINDS_ON,
            f"level {depth} bad hidden entry {entry!r}",
        )
        hidden[entry[0]] = ord(entry[1])
        if entry[2]:
            searches[entry[0]] = entry[2]
    locked = set()
    for cell in _list(data, "locked", depth):
        _need(type(cell) is int and 0 <= cell < dg.SIZE, f"level {depth} bad locked cell")
        locked.add(cell)
    items: dict[int, dg.Stack] = {}
    for entry in _list(data, "items", depth):
        _need(
            isinstance(entry, list)
            and len(entry) == 2
            and type(entry[0]) is int
            and 0 <= entry[0] < dg.SIZE
            and isinstance(entry[1], list)
            and entry[1]
            and all(it.is_valid(i) for i in entry[1]),
            f"level {depth} bad item stack {entry!r}",
        )
        items[entry[0]] = tuple((i[0], i[1]) for i in entry[1])
    monsters = []
    for entry in _list(data, "monsters", depth):
        _need(
            isinstance(entry, list)
            and len(entry) == 5
            and all(type(v) is int for v in entry)
            and 0 <= entry[1] < len(mo.KINDS)
            and 0 <= entry[2] < WIDTH
            and 0 <= entry[3] < HEIGHT,
            f"level {depth} bad monster {entry!r}",
        )
        monsters.append(mo.Monster(*entry))
    return Level(
        depth,
        terrain,
        memory,
        tuple(tuple(r) for r in rooms),
        up,
        down,
        hidden,
        searches,
        locked,
        items,
        monsters,
    )


def _map_text(data: dict, key: str, depth: int) -> bytearray:
    text = data.get(key)
    _need(
        isinstance(text, str) and len(text) == dg.SIZE and text.isascii(),
        f"level {depth} {key} must be {dg.SIZE} ASCII characters",
    )
    return bytearray(text.encode("ascii"))


def _list(data: dict, key: str, depth: int) -> list:
    value = data.get(key)
    _need(isinstance(value, list), f"level {depth} {key} must be a list")
    return value
