"""Blows: the cog's attack on a monster, a monster's on the cog, and experience.

The cog hits when TO_HIT_BASE + XL + monster AC + weapon to-hit > d20; a monster hits
when MONSTER_TO_HIT_BASE + its level + the cog's AC > d20. A kill gives experience (and
score); enough experience raises the experience level and maximum hit points.
"""

from __future__ import annotations

from playbench.core import Rng
from playbench.games.cogcrawl.constants import (
    BARE_HANDS,
    D20,
    HP_PER_XL_DIE,
    MAX_XL,
    MONSTER_TO_HIT_BASE,
    TO_HIT_BASE,
    XL_FIRST_STEP,
)
from playbench.games.cogcrawl.items import WEAPONS
from playbench.games.cogcrawl.monsters import Monster
from playbench.games.cogcrawl.state import FAINTING, WEAK, armour_class, hunger_of
from playbench.games.cogcrawl.turn import Turn

WEAKENED = frozenset({WEAK, FAINTING})


def roll(rng: Rng, dice: int, sides: int) -> int:
    return sum(rng.randint(1, sides) for _ in range(dice))


def xl_threshold(xl: int) -> int:
    """Experience needed to reach XL ``xl + 1``."""
    return XL_FIRST_STEP << (xl - 1)


def cog_attacks(turn: Turn, monster: Monster) -> None:
    s = turn.s
    kind = monster.info
    weapon = WEAPONS[s.pack[s.wielded][1]] if s.wielded is not None else None
    to_hit = TO_HIT_BASE + s.xl + kind.ac + (weapon.to_hit if weapon else 0)
    if to_hit <= s.rng.randint(1, D20):
        turn.message(f"You miss the {kind.name}.")
        return
    if weapon is None:
        damage = roll(s.rng, *BARE_HANDS)
    else:
        damage = roll(s.rng, weapon.dice, weapon.sides) + weapon.bonus
    if hunger_of(s.nutrition) in WEAKENED:
        damage = max(1, damage // 2)
    monster.hp -= damage
    if monster.hp > 0:
        turn.message(f"You hit the {kind.name}.")
        return
    s.level.monsters.remove(monster)
    turn.message(f"You kill the {kind.name}!")
    turn.event("killed", monster=kind.name)
    gain_experience(turn, kind.experience)


def gain_experience(turn: Turn, points: int) -> None:
    s = turn.s
    s.xp += points
    s.score += points
    while s.xl < MAX_XL and s.xp >= xl_threshold(s.xl):
        s.xl += 1
        gain = s.rng.randint(1, HP_PER_XL_DIE)
        s.max_hp += gain
        s.hp += gain
        turn.message(f"Welcome to experience level {s.xl}.")


def monster_attacks(turn: Turn, monster: Monster) -> None:
    s = turn.s
    kind = monster.info
    if MONSTER_TO_HIT_BASE + kind.level + armour_class(s) <= s.rng.randint(1, D20):
        turn.message(f"The {kind.name} misses.")
        return
    damage = roll(s.rng, kind.dice, kind.sides)
    s.hp -= damage
    turn.hit = True
    turn.message(f"The {kind.name} {kind.verb}!")
    if s.hp <= 0:
        turn.die(f"killed by a {kind.name}")
