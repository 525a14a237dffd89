"""Time passing: after each dungeon turn the monsters act, the cog grows hungrier and
regenerates, and the turn limit is checked.

Monsters act in a fixed order: one next to the cog attacks; one that can see the cog
steps to the free cell nearest it; one that cannot wanders one turn in WANDER_ODDS.
"""

from __future__ import annotations

from playbench.core import Rng
from playbench.games.cogcrawl.combat import monster_attacks
from playbench.games.cogcrawl.constants import (
    FAINT_ODDS,
    FAINT_TURNS,
    FAINTING,
    HUNGRY,
    REGEN_NUMERATOR,
    STARVED_BELOW,
    TURN_LIMIT,
    WANDER_ODDS,
    WEAK,
)
from playbench.games.cogcrawl.dungeon import WALKABLE_B, WIDTH, Level, neighbours, step_allowed
from playbench.games.cogcrawl.monsters import Monster
from playbench.games.cogcrawl.sight import can_see
from playbench.games.cogcrawl.state import OUT_OF_TURNS, PLAYING, hunger_of
from playbench.games.cogcrawl.turn import Turn

HUNGER_MESSAGES = {
    HUNGRY: "You are beginning to feel hungry.",
    WEAK: "You are beginning to feel weak.",
    FAINTING: "You are fainting from lack of food.",
}


def regen_period(xl: int) -> int:
    return REGEN_NUMERATOR // (xl + 2) + 1


def pass_time(turn: Turn, turns: int = 1) -> None:
    """Let ``turns`` dungeon turns go by: monsters act, hunger, regeneration, the limit.

    A faint adds its helpless turns; no new faint starts while the cog is out.
    """
    s = turn.s
    remaining = turns
    fainted = 0
    while remaining > 0 and s.run == PLAYING:
        remaining -= 1
        monsters_act(turn)
        if s.run != PLAYING:
            return
        s.dungeon_turn += 1
        if s.confused:
            s.confused -= 1
        lost = hunger(turn, can_faint=fainted == 0)
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
            turn.message(f"The dungeon turn limit of {TURN_LIMIT} is reached.")
            turn.event("out_of_turns")


def hunger(turn: Turn, can_faint: bool) -> int:
    """One turn of hunger; returns how many turns the cog spends fainted."""
    s = turn.s
    before = hunger_of(s.nutrition)
    s.nutrition -= 1
    after = hunger_of(s.nutrition)
    if s.nutrition < STARVED_BELOW:
        turn.message("You die from starvation.")
        turn.die("starved")
        return 0
    if after != before:
        turn.message(HUNGER_MESSAGES[after])
    if can_faint and after == FAINTING and s.rng.below(FAINT_ODDS) == 0:
        turn.message("You faint from lack of food.")
        return s.rng.randint(*FAINT_TURNS)
    return 0


def monsters_act(turn: Turn) -> None:
    s = turn.s
    level = s.level
    cog = s.cell
    for monster in list(level.monsters):
        kind = monster.info
        if kind.peaceful:
            continue
        cell = monster.y * WIDTH + monster.x
        if abs(monster.x - s.x) <= 1 and abs(monster.y - s.y) <= 1:
            if step_allowed(level.terrain, cell, cog):
                monster_attacks(turn, monster)
                if s.run != PLAYING:
                    return
            continue
        if not kind.moves:
            continue
        if can_see(level, cog, monster.x, monster.y):
            chase(level, monster, s.x, s.y)
        elif s.rng.below(WANDER_ODDS) == 0:
            wander(s.rng, level, monster, cog)


def free_for_monster(level: Level, here: int, there: int, cog: int) -> bool:
    return (
        level.terrain[there] in WALKABLE_B
        and there != cog
        and step_allowed(level.terrain, here, there)
        and level.monster_at(there) is None
    )


def chase(level: Level, monster: Monster, cx: int, cy: int) -> None:
    """Step to the free neighbour nearest the cog (Chebyshev, then Manhattan distance)."""
    here = monster.y * WIDTH + monster.x
    cog = cy * WIDTH + cx
    best = (
        max(abs(monster.x - cx), abs(monster.y - cy)),
        abs(monster.x - cx) + abs(monster.y - cy),
    )
    target = None
    for _, there in neighbours(here):
        if not free_for_monster(level, here, there, cog):
            continue
        x, y = there % WIDTH, there // WIDTH
        score = (max(abs(x - cx), abs(y - cy)), abs(x - cx) + abs(y - cy))
        if score < best:
            best, target = score, there
    if target is not None:
        monster.x, monster.y = target % WIDTH, target // WIDTH


def wander(rng: Rng, level: Level, monster: Monster, cog: int) -> None:
    here = monster.y * WIDTH + monster.x
    options = [c for _, c in neighbours(here) if free_for_monster(level, here, c, cog)]
    if options:
        target = rng.choice(options)
        monster.x, monster.y = target % WIDTH, target // WIDTH
