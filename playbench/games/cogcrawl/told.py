"""What a turn told the seat, from the codes Cogcrawl's C kernel keeps: the messages in
words and the ``last_plan`` record, exactly as the rules write them (``actions.py``,
``clock.py``, ``combat.py``, ``seat.py``).

The kernel (``playbench/kernels/cogcrawl.h``) keeps a message as a code and two integers
(its ``MS_`` enum, in :data:`MESSAGES`' order) and the last plan as the action indices of
the primitive run and the entry dropped, and why the queue stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playbench.games.cogcrawl.actions import DIRECTION_WORDS
from playbench.games.cogcrawl.clock import HUNGER_MESSAGES
from playbench.games.cogcrawl.constants import MAX_MESSAGES, ORACLE_FEE, TURN_LIMIT
from playbench.games.cogcrawl.glyphs import DIRECTIONS
from playbench.games.cogcrawl.items import APPEARANCES, CATEGORIES, FOODS, POTIONS, Item
from playbench.games.cogcrawl.learning import ACTIONS
from playbench.games.cogcrawl.monsters import KINDS
from playbench.games.cogcrawl.protocol import Primitive
from playbench.games.cogcrawl.seat import describe, trim_messages
from playbench.games.cogcrawl.start import WELCOME
from playbench.games.cogcrawl.state import (
    EMPTY_PLAN,
    FAINTING,
    HUNGRY,
    WEAK,
    CogState,
    item_name,
    plan_copy,
)

#: the ``hunger`` codes the kernel keeps, 1..3
HUNGERS = (None, HUNGRY, WEAK, FAINTING)
#: eat, quaff, wield, wear: the verb a refusal says, and what is already done
USE_VERBS = ("eat", "drink", "wield", "wear")
DOINGS = (None, None, "wielding", "wearing")
DIRECTION_NAMES = tuple(DIRECTIONS)


def item_of(code: int) -> Item:
    """An item kept as category * 256 + index (category 1..6)."""
    return CATEGORIES[code // 256 - 1], code % 256


def _answer(code: int) -> str:
    if code == -2:
        return "There are no stairs down on this level."
    if code == -1:
        return "You are standing on the stairs down."
    return f"The stairs down lie to the {DIRECTION_WORDS[DIRECTION_NAMES[code]]}."


def _looks(s: CogState, kind: int, known: int) -> str:
    """What a potion was called as it was drunk: its appearance until it was known."""
    return f"potion of {POTIONS[kind]}" if known else f"{APPEARANCES[s.appearances[kind]]} potion"


Say = Callable[[CogState, int, int], str]

#: the words of each message code, in the order of cogcrawl.h's MS_ enum
MESSAGES: tuple[Say, ...] = (
    lambda s, a, b: WELCOME,
    lambda s, a, b: "The door opens.",
    lambda s, a, b: "You step into the lava and burn to a crisp.",
    lambda s, a, b: "You die...",
    lambda s, a, b: f"You see here {item_name(s, (CATEGORIES[a - 1], b))}.",
    lambda s, a, b: "You find a hidden door.",
    lambda s, a, b: "You find a hidden passage.",
    lambda s, a, b: f"{item_name(s, ('gold', a))}.",
    lambda s, a, b: "You take the Cogheart! It thrums in your hands. You win.",
    lambda s, a, b: f"Your pack is full; you leave the {item_name(s, (CATEGORIES[a - 1], b))}.",
    lambda s, a, b: f"{chr(ord('a') + a)} - {item_name(s, item_of(b))}.",
    lambda s, a, b: f"You eat the {FOODS[a].name}.",
    lambda s, a, b: f"You drink the {_looks(s, a, b)}. It was a potion of {POTIONS[a]}.",
    lambda s, a, b: "You feel better.",
    lambda s, a, b: "You fall asleep.",
    lambda s, a, b: "Huh, what? Where am I?",
    lambda s, a, b: "You sense the presence of objects.",
    lambda s, a, b: "A map coalesces in your mind!",
    lambda s, a, b: f"{chr(ord('a') + a)} - {item_name(s, ('weapon', b))} (weapon in hand).",
    lambda s, a, b: f"You are now wearing the {item_name(s, ('armour', a))}.",
    lambda s, a, b: "WHAMM! The door crashes open!",
    lambda s, a, b: "WHAMM!",
    lambda s, a, b: f"The Oracle takes {ORACLE_FEE} gold and says: {_answer(a)}",
    lambda s, a, b: "You climb out of the dungeon, leaving the Cogheart behind.",
    lambda s, a, b: f"You reach level {a} for the first time.",
    lambda s, a, b: f"You miss the {KINDS[a].name}.",
    lambda s, a, b: f"You hit the {KINDS[a].name}.",
    lambda s, a, b: f"You kill the {KINDS[a].name}!",
    lambda s, a, b: f"Welcome to experience level {a}.",
    lambda s, a, b: f"The {KINDS[a].name} misses.",
    lambda s, a, b: f"The {KINDS[a].name} {KINDS[a].verb}!",
    lambda s, a, b: f"The dungeon turn limit of {TURN_LIMIT} is reached.",
    lambda s, a, b: "You die from starvation.",
    lambda s, a, b: HUNGER_MESSAGES[HUNGERS[a]],
    lambda s, a, b: "You faint from lack of food.",
)
#: the reasons a primitive fails (said in a message with a capital and a full stop)
REASONS: tuple[Say, ...] = (
    lambda s, a, b: "the edge of the dungeon is in the way",
    lambda s, a, b: "no diagonal step into or out of a doorway",
    lambda s, a, b: f"the {KINDS[a].name} is in the way",
    lambda s, a, b: "this door is locked",
    lambda s, a, b: "you stagger to the edge of the lava and stop",
    lambda s, a, b: "solid rock is in the way",
    lambda s, a, b: "a wall is in the way",
    lambda s, a, b: "there is nothing here to pick up",
    lambda s, a, b: f"you cannot {USE_VERBS[a]} the {item_name(s, item_of(b))}",
    lambda s, a, b: f"you are already {DOINGS[a]} the {item_name(s, item_of(b))}",
    lambda s, a, b: "you are too weak to kick",
    lambda s, a, b: "you cannot kick diagonally",
    lambda s, a, b: "there is no closed door there to kick",
    lambda s, a, b: "there is nobody there to talk to",
    lambda s, a, b: f"the Oracle wants {ORACLE_FEE} gold and you have {a}",
    lambda s, a, b: "you can't go down here",
    lambda s, a, b: "you can't go up here",
)
FIRST_REASON = len(MESSAGES)
#: the interruption kinds: none, hit, a monster came into view, the primitive failed
NONE, HIT, VIEW, FAILED = range(4)


def words(s: CogState, code: int, a: int, b: int) -> str:
    """Message ``code`` with its arguments, in words."""
    if code < FIRST_REASON:
        return MESSAGES[code](s, a, b)
    reason = REASONS[code - FIRST_REASON](s, a, b)
    return f"{reason[0].upper()}{reason[1:]}."


def messages(s: CogState, total: int, ring: list[int]) -> list[str]:
    """The turn's messages: ``total`` were made, the last MAX_MESSAGES kept in ``ring``
    (code, a, b each, by message number modulo MAX_MESSAGES)."""
    first = max(0, total - MAX_MESSAGES)
    said = [None] * first + [
        words(s, *ring[3 * (n % MAX_MESSAGES) : 3 * (n % MAX_MESSAGES) + 3])
        for n in range(first, total)
    ]
    return trim_messages(said) if total > MAX_MESSAGES else said


def primitive(action: int) -> Primitive:
    """The primitive of learning action ``action``."""
    (entry,) = ACTIONS.actions[action]["actions"]
    return Primitive(entry["do"], dir=entry.get("dir"), item=entry.get("item"))


def last_plan(
    s: CogState, executed: int, dropped: int, why: int, about: list[int]
) -> dict[str, Any]:
    """The ``last_plan`` of a one-primitive turn: the primitive run (action index or -1),
    the entry dropped (or -1), why the queue stopped and its integers (the kind that came
    into view; the action that failed, the reason's code and its two arguments)."""
    plan = plan_copy(EMPTY_PLAN)
    if executed >= 0:
        plan["executed"] = [primitive(executed).to_json()]
    if dropped >= 0:
        entry = primitive(dropped)
        plan["dropped"] = [
            {"index": 0, "do": entry.verb, "reason": f"no item {entry.item!r} in the pack"}
        ]
    if why == HIT:
        plan["interrupted"] = "the cog was hit"
    elif why == VIEW:
        plan["interrupted"] = f"a {KINDS[about[0]].name} came into view"
    elif why == FAILED:
        action, code, a, b = about[:4]
        reason = REASONS[code - FIRST_REASON](s, a, b)
        plan["interrupted"] = f"{describe(primitive(action))} failed: {reason}"
    return plan
