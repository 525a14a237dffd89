"""The things of Cogcrawl: food, potions, weapons, armour, gold and the Cogheart.

An item is a plain pair ``(category, index)``; for gold the index is the number of
coins. Pairs are immutable, so a stack (a tuple of pairs) is shared freely between
states. Potion kinds wear a per-run appearance until the cog quaffs one.
"""

from __future__ import annotations

from dataclasses import dataclass

from playbench.games.cogcrawl.glyphs import ARMOUR, COGHEART, FOOD, GOLD, POTION, WEAPON

Item = tuple[str, int]

GOLD_KIND = "gold"
FOOD_KIND = "food"
POTION_KIND = "potion"
WEAPON_KIND = "weapon"
ARMOUR_KIND = "armour"
COGHEART_KIND = "cogheart"
CATEGORIES = (GOLD_KIND, FOOD_KIND, POTION_KIND, WEAPON_KIND, ARMOUR_KIND, COGHEART_KIND)
GLYPHS = {
    GOLD_KIND: GOLD,
    FOOD_KIND: FOOD,
    POTION_KIND: POTION,
    WEAPON_KIND: WEAPON,
    ARMOUR_KIND: ARMOUR,
    COGHEART_KIND: COGHEART,
}


@dataclass(frozen=True, slots=True)
class Food:
    name: str
    nutrition: int
    turns: int


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    dice: int
    sides: int
    bonus: int
    to_hit: int
    depth: int


@dataclass(frozen=True, slots=True)
class Armour:
    name: str
    ac: int
    depth: int


FOODS: tuple[Food, ...] = (
    Food("food ration", 800, 5),
    Food("cram ration", 600, 3),
    Food("lembas wafer", 800, 2),
    Food("apple", 50, 1),
    Food("carrot", 50, 1),
    Food("fortune cookie", 40, 1),
)
FOOD_RATION = 0

HEALING = 0
EXTRA_HEALING = 1
SLEEPING = 2
CONFUSION = 3
OBJECT_DETECTION = 4
MAGIC_MAPPING = 5
POTIONS: tuple[str, ...] = (
    "healing",
    "extra healing",
    "sleeping",
    "confusion",
    "object detection",
    "magic mapping",
)
APPEARANCES: tuple[str, ...] = (
    "murky",
    "bubbly",
    "smoky",
    "milky",
    "fizzy",
    "cloudy",
    "ruby",
    "amber",
    "violet",
    "golden",
)

WEAPONS: tuple[Weapon, ...] = (
    Weapon("dagger", 1, 4, 0, 2, 1),
    Weapon("short sword", 1, 6, 0, 0, 1),
    Weapon("mace", 1, 6, 1, 0, 2),
    Weapon("axe", 1, 6, 0, 0, 2),
    Weapon("spear", 1, 8, 0, 0, 3),
    Weapon("long sword", 1, 8, 0, 1, 4),
    Weapon("battle-axe", 2, 5, 0, 0, 6),
)
DAGGER = 0

ARMOURS: tuple[Armour, ...] = (
    Armour("leather armour", 2, 1),
    Armour("helmet", 1, 1),
    Armour("ring mail", 3, 2),
    Armour("scale mail", 4, 4),
    Armour("chain mail", 5, 6),
    Armour("splint mail", 6, 8),
)
LEATHER_ARMOUR = 0

COGHEART_ITEM: Item = (COGHEART_KIND, 0)


def glyph(item: Item) -> str:
    return GLYPHS[item[0]]


def name(item: Item, appearances: list[int], identified: list[bool]) -> str:
    """What the cog calls the item: an unidentified potion goes by its appearance."""
    category, index = item
    if category == GOLD_KIND:
        return f"{index} gold piece" if index == 1 else f"{index} gold pieces"
    if category == FOOD_KIND:
        return FOODS[index].name
    if category == POTION_KIND:
        if identified[index]:
            return f"potion of {POTIONS[index]}"
        return f"{APPEARANCES[appearances[index]]} potion"
    if category == WEAPON_KIND:
        return WEAPONS[index].name
    if category == ARMOUR_KIND:
        return ARMOURS[index].name
    return "the Cogheart"


def is_valid(item: object) -> bool:
    """True for a well-formed item pair (as read back from JSON)."""
    if not (isinstance(item, tuple | list) and len(item) == 2):
        return False
    category, index = item
    if type(index) is not int or not isinstance(category, str):
        return False
    limits = {
        GOLD_KIND: None,
        FOOD_KIND: len(FOODS),
        POTION_KIND: len(POTIONS),
        WEAPON_KIND: len(WEAPONS),
        ARMOUR_KIND: len(ARMOURS),
        COGHEART_KIND: 1,
    }
    if category not in limits:
        return False
    limit = limits[category]
    return index > 0 if limit is None else 0 <= index < limit
