"""The dungeon primitives: one handler per verb, and the single primitives legal now.

A handler carries out its primitive on the turn's state and lets time pass, or raises
:class:`PrimitiveFailed` (taking no time) when it cannot be done.
"""

from __future__ import annotations

from collections.abc import Callable

from playbench.games.cogcrawl.clock import pass_time
from playbench.games.cogcrawl.combat import WEAKENED, cog_attacks, roll
from playbench.games.cogcrawl.constants import (
    COGHEART_BONUS,
    CONFUSION_TURNS,
    EXTRA_HEALING_DICE,
    EXTRA_HEALING_MAX_GAIN,
    HEALING_DICE,
    HEALING_MAX_GAIN,
    KICK_ODDS,
    LEVEL_BONUS,
    NUTRITION_CAP,
    ORACLE_FEE,
    PACK_LETTERS,
    SEARCH_FINDS_ON,
    SLEEP_TURNS,
    STAGGER_ODDS,
)
from playbench.games.cogcrawl.dungeon import (
    DOOR_CLOSED_B,
    DOOR_OPEN_B,
    LAVA_B,
    ROCK_B,
    SIZE,
    STAIRS_DOWN_B,
    STAIRS_UP_B,
    WALKABLE_B,
    WIDTH,
    Level,
    Stack,
    generate,
    neighbours,
    passable_now,
    reachable,
    reveal,
    step_allowed,
    xy_of,
)
from playbench.games.cogcrawl.glyphs import DIRECTIONS, HEIGHT
from playbench.games.cogcrawl.items import (
    ARMOUR_KIND,
    COGHEART_KIND,
    CONFUSION,
    EXTRA_HEALING,
    FOOD_KIND,
    FOODS,
    GOLD_KIND,
    HEALING,
    OBJECT_DETECTION,
    POTION_KIND,
    POTIONS,
    SLEEPING,
    WEAPON_KIND,
    Item,
)
from playbench.games.cogcrawl.monsters import ORACLE
from playbench.games.cogcrawl.protocol import Primitive
from playbench.games.cogcrawl.sight import ITEM_BYTES, ITEM_GLYPH_BYTES, see
from playbench.games.cogcrawl.state import LEFT, PLAYING, WON, CogState, hunger_of, item_name
from playbench.games.cogcrawl.turn import PrimitiveFailed, Turn

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


def run_primitive(turn: Turn, primitive: Primitive) -> None:
    """Run one primitive and look around; raises :class:`PrimitiveFailed` (no time)."""
    HANDLERS[primitive.verb](turn, primitive)
    see(turn.s)


def wait(turn: Turn, _: Primitive) -> None:
    pass_time(turn)


def move(turn: Turn, primitive: Primitive) -> None:
    s = turn.s
    level = s.level
    if primitive.origin is not None and primitive.origin != (s.x, s.y):
        raise PrimitiveFailed("the cog is not where this travel was planned from")
    direction = primitive.dir or "n"
    staggered = s.confused > 0 and s.rng.below(STAGGER_ODDS) == 0
    if staggered:
        direction = s.rng.choice(list(DIRECTIONS))
    dx, dy = DIRECTIONS[direction]
    x, y = s.x + dx, s.y + dy
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
        raise PrimitiveFailed("the edge of the dungeon is in the way")
    here, there = s.cell, y * WIDTH + x
    if dx and dy and not step_allowed(level.terrain, here, there):
        raise PrimitiveFailed("no diagonal step into or out of a doorway")
    monster = level.monster_at(there)
    if monster is not None:
        if monster.info.peaceful or primitive.origin is not None:
            raise PrimitiveFailed(f"the {monster.info.name} is in the way")
        cog_attacks(turn, monster)
        pass_time(turn)
        return
    glyph = level.terrain[there]
    if glyph == DOOR_CLOSED_B:
        if there in level.locked:
            raise PrimitiveFailed("this door is locked")
        level.terrain[there] = DOOR_OPEN_B
        turn.message("The door opens.")
        pass_time(turn)
        return
    if glyph == LAVA_B:
        if staggered:
            raise PrimitiveFailed("you stagger to the edge of the lava and stop")
        s.x, s.y = x, y
        turn.message("You step into the lava and burn to a crisp.")
        turn.die("burned in lava")
        return
    if glyph not in WALKABLE_B:
        raise PrimitiveFailed(
            "solid rock is in the way" if glyph == ROCK_B else "a wall is in the way"
        )
    s.x, s.y = x, y
    stack = level.items.get(there)
    if stack:
        turn.message(f"You see here {stack_text(s, stack)}.")
    pass_time(turn)


def stack_text(state: CogState, stack: Stack) -> str:
    first = item_name(state, stack[0])
    return first if len(stack) == 1 else f"{first} and {len(stack) - 1} more"


def search(turn: Turn, _: Primitive) -> None:
    s = turn.s
    level = s.level
    for _, cell in neighbours(s.cell):
        if cell not in level.hidden:
            continue
        count = level.searches.get(cell, 0) + 1
        if count < SEARCH_FINDS_ON:
            level.searches[cell] = count
            continue
        found = level.hidden[cell]
        reveal(level, cell)
        turn.message(
            "You find a hidden door." if found == DOOR_CLOSED_B else "You find a hidden passage."
        )
        turn.event("found", x=cell % WIDTH, y=cell // WIDTH)
    pass_time(turn)


def pickup(turn: Turn, _: Primitive) -> None:
    s = turn.s
    level = s.level
    stack = level.items.get(s.cell)
    if not stack:
        raise PrimitiveFailed("there is nothing here to pick up")
    left = []
    for item in stack:
        category = item[0]
        if category == GOLD_KIND:
            s.gold += item[1]
            s.score += item[1]
            turn.message(f"{item_name(s, item)}.")
            continue
        letter = next((c for c in PACK_LETTERS if c not in s.pack), None)
        if category == COGHEART_KIND:
            if letter is not None:
                s.pack[letter] = item
            s.score += COGHEART_BONUS
            s.run = WON
            turn.message("You take the Cogheart! It thrums in your hands. You win.")
            turn.event("won")
            continue
        if letter is None:
            left.append(item)
            turn.message(f"Your pack is full; you leave the {item_name(s, item)}.")
            continue
        s.pack[letter] = item
        turn.message(f"{letter} - {item_name(s, item)}.")
    if left:
        level.items[s.cell] = tuple(left)
    else:
        del level.items[s.cell]
    if s.run == PLAYING:
        pass_time(turn)


def pack_item(s: CogState, primitive: Primitive, category: str, verb: str) -> Item:
    """The pack item a primitive names, which must be of ``category``."""
    item = s.pack.get(primitive.item or "")
    if item is None:
        raise PrimitiveFailed(f"no item {primitive.item!r} in the pack")
    if item[0] != category:
        raise PrimitiveFailed(f"you cannot {verb} the {item_name(s, item)}")
    return item


def eat(turn: Turn, primitive: Primitive) -> None:
    s = turn.s
    item = pack_item(s, primitive, FOOD_KIND, "eat")
    food = FOODS[item[1]]
    del s.pack[primitive.item]
    s.nutrition = min(NUTRITION_CAP, s.nutrition + food.nutrition)
    turn.message(f"You eat the {food.name}.")
    pass_time(turn, food.turns)


def quaff(turn: Turn, primitive: Primitive) -> None:
    s = turn.s
    item = pack_item(s, primitive, POTION_KIND, "drink")
    kind = item[1]
    looks = item_name(s, item)
    del s.pack[primitive.item]
    s.identified[kind] = True
    turn.message(f"You drink the {looks}. It was a potion of {POTIONS[kind]}.")
    extra = 0
    if kind in (HEALING, EXTRA_HEALING):
        dice, gain = (
            (HEALING_DICE, HEALING_MAX_GAIN)
            if kind == HEALING
            else (EXTRA_HEALING_DICE, EXTRA_HEALING_MAX_GAIN)
        )
        s.hp += roll(s.rng, *dice)
        if s.hp > s.max_hp:
            s.max_hp += gain
            s.hp = s.max_hp
        turn.message("You feel better.")
    elif kind == SLEEPING:
        extra = s.rng.randint(*SLEEP_TURNS)
        turn.message("You fall asleep.")
    elif kind == CONFUSION:
        s.confused += s.rng.randint(*CONFUSION_TURNS)
        turn.message("Huh, what? Where am I?")
    elif kind == OBJECT_DETECTION:
        level = s.level
        for cell, stack in level.items.items():
            level.memory[cell] = ITEM_BYTES[stack[0][0]]
        turn.message("You sense the presence of objects.")
    else:
        level = s.level
        memory, terrain = level.memory, level.terrain
        for cell in range(SIZE):
            if memory[cell] == ROCK_B:
                memory[cell] = terrain[cell]
        turn.message("A map coalesces in your mind!")
    pass_time(turn, 1 + extra)


#: wield and wear: the item kind, the state slot they fill, what is said when it is filled
EQUIP = {
    "wield": (WEAPON_KIND, "wielded", "wielding", "{letter} - {name} (weapon in hand)."),
    "wear": (ARMOUR_KIND, "worn", "wearing", "You are now wearing the {name}."),
}


def equip(turn: Turn, primitive: Primitive) -> None:
    """Wield a weapon or wear armour from the pack: one turn, a worse choice allowed."""
    s = turn.s
    kind, slot, doing, message = EQUIP[primitive.verb]
    item = pack_item(s, primitive, kind, primitive.verb)
    name = item_name(s, item)
    if getattr(s, slot) == primitive.item:
        raise PrimitiveFailed(f"you are already {doing} the {name}")
    setattr(s, slot, primitive.item)
    turn.message(message.format(letter=primitive.item, name=name))
    pass_time(turn)


def kick(turn: Turn, primitive: Primitive) -> None:
    s = turn.s
    if hunger_of(s.nutrition) in WEAKENED:
        raise PrimitiveFailed("you are too weak to kick")
    dx, dy = DIRECTIONS[primitive.dir or "n"]
    if dx and dy:
        raise PrimitiveFailed("you cannot kick diagonally")
    x, y = s.x + dx, s.y + dy
    level = s.level
    cell = y * WIDTH + x
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT) or level.terrain[cell] != DOOR_CLOSED_B:
        raise PrimitiveFailed("there is no closed door there to kick")
    if s.rng.below(KICK_ODDS) == 0:
        level.terrain[cell] = DOOR_OPEN_B
        level.locked.discard(cell)
        turn.message("WHAMM! The door crashes open!")
    else:
        turn.message("WHAMM!")
    pass_time(turn)


def chat(turn: Turn, primitive: Primitive) -> None:
    s = turn.s
    dx, dy = DIRECTIONS[primitive.dir or "n"]
    monster = s.level.monster_at((s.y + dy) * WIDTH + s.x + dx)
    if monster is None or monster.kind != ORACLE:
        raise PrimitiveFailed("there is nobody there to talk to")
    if s.gold < ORACLE_FEE:
        raise PrimitiveFailed(f"the Oracle wants {ORACLE_FEE} gold and you have {s.gold}")
    s.gold -= ORACLE_FEE
    turn.message(f"The Oracle takes {ORACLE_FEE} gold and says: {oracle_answer(s)}")
    pass_time(turn)


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


def down(turn: Turn, _: Primitive) -> None:
    s = turn.s
    if s.level.terrain[s.cell] != STAIRS_DOWN_B:
        raise PrimitiveFailed("you can't go down here")
    enter(turn, s.dl + 1, going_down=True)


def up(turn: Turn, _: Primitive) -> None:
    s = turn.s
    if s.level.terrain[s.cell] != STAIRS_UP_B:
        raise PrimitiveFailed("you can't go up here")
    if s.dl == 1:
        s.run = LEFT
        turn.message("You climb out of the dungeon, leaving the Cogheart behind.")
        turn.event("left")
        return
    enter(turn, s.dl - 1, going_down=False)


def enter(turn: Turn, depth: int, going_down: bool) -> None:
    """Arrive on level ``depth`` (generated on first entry) by its stairs."""
    s = turn.s
    level = s.levels.get(depth)
    level = generate(s.seed, depth) if level is None else level.copy()
    s.levels[depth] = level
    s.dl = depth
    arrival = level.up if going_down else level.down
    assert arrival is not None
    s.x, s.y = xy_of(arrival)
    make_room(level, arrival)
    turn.event("level", dl=depth)
    if depth > s.deepest:
        s.deepest = depth
        s.score += LEVEL_BONUS
        turn.message(f"You reach level {depth} for the first time.")
    see(s)
    pass_time(turn)


def make_room(level: Level, cell: int) -> None:
    """Move a monster standing on the arrival cell to the nearest free walkable cell."""
    monster = level.monster_at(cell)
    if monster is None:
        return
    parents = reachable(level, cell, passable_now(level))
    for other in parents:
        if other != cell and level.monster_at(other) is None:
            monster.x, monster.y = xy_of(other)
            return


HANDLERS: dict[str, Callable[[Turn, Primitive], None]] = {
    "move": move,
    "wait": wait,
    "search": search,
    "pickup": pickup,
    "eat": eat,
    "quaff": quaff,
    "wield": equip,
    "wear": equip,
    "kick": kick,
    "chat": chat,
    "down": down,
    "up": up,
}


def legal_primitives(state: CogState) -> list[Primitive]:
    """Single primitives worth offering now, in a stable order (see Game.legal_actions)."""
    if state.run != PLAYING:
        return []
    level, cog = state.level, state.cell
    memory = level.memory
    out: list[Primitive] = []
    kicks: list[Primitive] = []
    chats: list[Primitive] = []
    weak = hunger_of(state.nutrition) in WEAKENED
    for name, cell in neighbours(cog):
        monster = level.monster_at(cell)
        if monster is not None and monster.info.peaceful:
            chats.append(Primitive("chat", dir=name))
            continue
        diagonal = len(name) == 2
        if diagonal and not step_allowed(level.terrain, cog, cell):
            continue
        glyph = memory[cell]
        if monster is not None or glyph in WALKABLE_B or glyph in ITEM_GLYPH_BYTES:
            out.append(Primitive("move", dir=name))
        elif glyph == DOOR_CLOSED_B:
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
    if terrain == STAIRS_DOWN_B:
        out.append(Primitive("down"))
    if terrain == STAIRS_UP_B:
        out.append(Primitive("up"))
    uses = (
        ("eat", FOOD_KIND, None),
        ("quaff", POTION_KIND, None),
        ("wield", WEAPON_KIND, state.wielded),
        ("wear", ARMOUR_KIND, state.worn),
    )
    for verb, category, current in uses:
        for letter in sorted(state.pack):
            if state.pack[letter][0] == category and letter != current:
                out.append(Primitive(verb, item=letter))
    return out
