"""The creatures of Cogcrawl: one table of kinds, and the small mutable record of one.

Letters follow NetHack. Deeper levels draw from harder kinds (``depth`` is the first
level a kind appears on). The Oracle is a kind of its own: peaceful, still, never
generated at random.
"""

from __future__ import annotations

from dataclasses import dataclass

#: experience for a kill grows by this much per monster level on top of 1 + level^2
EXPERIENCE_PER_LEVEL = 2


@dataclass(frozen=True, slots=True)
class MonsterKind:
    """One kind of creature: its letter, strength and attack."""

    name: str
    glyph: str
    depth: int
    level: int
    ac: int
    dice: int
    sides: int
    verb: str
    moves: bool = True
    peaceful: bool = False

    @property
    def experience(self) -> int:
        """Experience (and score) for a kill: 1 + level^2 + EXPERIENCE_PER_LEVEL * (level + 1)."""
        return 1 + self.level * self.level + EXPERIENCE_PER_LEVEL * (self.level + 1)


KINDS: tuple[MonsterKind, ...] = (
    MonsterKind("sewer rat", "r", 1, 0, 7, 1, 3, "bites"),
    MonsterKind("jackal", "j", 1, 0, 7, 1, 2, "bites"),
    MonsterKind("lichen", "F", 1, 0, 9, 1, 1, "touches", moves=False),
    MonsterKind("kobold", "k", 2, 0, 10, 1, 4, "hits"),
    MonsterKind("gnome", "g", 2, 1, 10, 1, 6, "hits"),
    MonsterKind("cave spider", "s", 3, 1, 3, 1, 2, "bites"),
    MonsterKind("hill orc", "o", 4, 1, 10, 1, 6, "hits"),
    MonsterKind("giant ant", "a", 5, 2, 3, 1, 4, "bites"),
    MonsterKind("dwarf", "h", 5, 2, 10, 1, 8, "hits"),
    MonsterKind("gnome lord", "G", 6, 3, 10, 1, 8, "hits"),
    MonsterKind("human zombie", "Z", 6, 4, 8, 1, 8, "hits"),
    MonsterKind("wolf", "d", 7, 5, 4, 2, 4, "bites"),
    MonsterKind("owlbear", "Y", 8, 5, 5, 2, 6, "claws"),
    MonsterKind("troll", "T", 9, 7, 4, 2, 6, "hits"),
    MonsterKind("Oracle", "@", 0, 12, 0, 0, 0, "", moves=False, peaceful=True),
)
ORACLE = len(KINDS) - 1
#: kinds the generator may place: every hostile one
HOSTILE = tuple(i for i, kind in enumerate(KINDS) if not kind.peaceful)
#: a level draws kinds whose depth is within this many levels above it
DEPTH_WINDOW = 4
#: hit points of a level-0 creature are 1..LEVEL0_HP; others roll level d8
LEVEL0_HP = 4
HIT_DIE = 8


class Monster:
    """One creature on a level. ``ident`` is unique on its level and never reused."""

    __slots__ = ("hp", "ident", "kind", "x", "y")

    def __init__(self, ident: int, kind: int, x: int, y: int, hp: int) -> None:
        self.ident = ident
        self.kind = kind
        self.x = x
        self.y = y
        self.hp = hp

    def copy(self) -> Monster:
        return Monster(self.ident, self.kind, self.x, self.y, self.hp)

    @property
    def info(self) -> MonsterKind:
        return KINDS[self.kind]

    def to_json(self) -> list[int]:
        return [self.ident, self.kind, self.x, self.y, self.hp]


def kinds_for_depth(depth: int) -> tuple[int, ...]:
    """The hostile kinds a level of this depth may hold."""
    return tuple(
        i for i in HOSTILE if KINDS[i].depth <= depth and KINDS[i].depth > depth - DEPTH_WINDOW
    )
