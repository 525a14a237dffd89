"""What a seat sees of a Cogcrawl run: the observation object, the text screen and the
run's progress.

The observation and the screen show the remembered map (never hidden things, the RNG or
unseen monsters) with the cog and the monsters in view drawn on it.
"""

from __future__ import annotations

from typing import Any

from playbench.games.cogcrawl.constants import NOT_HUNGRY
from playbench.games.cogcrawl.dungeon import LEVELS, WIDTH
from playbench.games.cogcrawl.glyphs import COG
from playbench.games.cogcrawl.items import ARMOUR_KIND, WEAPON_KIND, glyph
from playbench.games.cogcrawl.monsters import Monster
from playbench.games.cogcrawl.sight import ITEM_GLYPH_BYTES, memory_rows, visible_monsters
from playbench.games.cogcrawl.state import (
    DEAD,
    LEFT,
    OUT_OF_TURNS,
    PLAYING,
    WON,
    CogState,
    armour_class,
    hunger_of,
    item_name,
    plan_copy,
)

RUN_WORDS = {
    PLAYING: "playing",
    WON: "won: the Cogheart is yours",
    DEAD: "dead",
    LEFT: "left the dungeon",
    OUT_OF_TURNS: "out of turns",
}


def drawn_map(state: CogState, visible: list[Monster] | None = None) -> list[str]:
    """The remembered map with visible monsters and the cog drawn on it."""
    rows = memory_rows(state.level)
    marks = [(m.x, m.y, m.info.glyph) for m in visible or visible_monsters(state)]
    marks.append((state.x, state.y, COG))
    for x, y, mark in marks:
        row = rows[y]
        rows[y] = f"{row[:x]}{mark}{row[x + 1 :]}"
    return rows


def pack_entries(state: CogState) -> list[dict[str, Any]]:
    entries = []
    for letter in sorted(state.pack):
        item = state.pack[letter]
        entry: dict[str, Any] = {
            "letter": letter,
            "name": item_name(state, item),
            "kind": item[0],
        }
        if item[0] == WEAPON_KIND:
            entry["wielded"] = letter == state.wielded
        elif item[0] == ARMOUR_KIND:
            entry["worn"] = letter == state.worn
        entries.append(entry)
    return entries


def observe(state: CogState) -> dict[str, Any]:
    level = state.level
    cog = state.cell
    visible = visible_monsters(state)
    monsters = [
        {
            "x": m.x,
            "y": m.y,
            "glyph": m.info.glyph,
            "name": m.info.name,
            "peaceful": m.info.peaceful,
        }
        for m in sorted(visible, key=lambda m: (m.y, m.x))
    ]
    items = [
        {
            "x": cell % WIDTH,
            "y": cell // WIDTH,
            "glyph": glyph(stack[0]),
            "name": item_name(state, stack[0]),
        }
        for cell, stack in sorted(level.items.items())
        if level.memory[cell] in ITEM_GLYPH_BYTES
    ]
    underfoot = [
        {"glyph": glyph(item), "name": item_name(state, item)} for item in level.items.get(cog, ())
    ]
    wielded = state.pack[state.wielded] if state.wielded else None
    worn = state.pack[state.worn] if state.worn else None
    return {
        "turn": state.turn,
        "dungeon_turn": state.dungeon_turn,
        "status": {
            "dl": state.dl,
            "hp": state.hp,
            "max_hp": state.max_hp,
            "xl": state.xl,
            "ac": armour_class(state),
            "gold": state.gold,
            "hunger": hunger_of(state.nutrition),
            "wielded": item_name(state, wielded) if wielded else None,
            "worn": item_name(state, worn) if worn else None,
            "confused": state.confused > 0,
        },
        "position": {"x": state.x, "y": state.y},
        "map": drawn_map(state, visible),
        "monsters": monsters,
        "items": items,
        "underfoot": underfoot,
        "terrain_underfoot": chr(level.terrain[cog]),
        "pack": pack_entries(state),
        "messages": list(state.messages),
        "last_plan": plan_copy(state.last_plan),
        "notes": state.notes,
        "fallback": state.fallback,
        "retry": state.retry,
        "run": {
            "state": state.run,
            "score": state.score,
            "progress": progress(state),
            "deepest": state.deepest,
        },
    }


def status_lines(state: CogState) -> list[str]:
    hunger = hunger_of(state.nutrition)
    first = (
        f"Dlvl:{state.dl} $:{state.gold} HP:{state.hp}({state.max_hp}) "
        f"AC:{armour_class(state)} Xp:{state.xl}/{state.xp} T:{state.dungeon_turn}"
    )
    if hunger != NOT_HUNGRY:
        first += f" {hunger}"
    if state.confused:
        first += " Conf"
    wielded = item_name(state, state.pack[state.wielded]) if state.wielded else "nothing"
    worn = item_name(state, state.pack[state.worn]) if state.worn else "nothing"
    second = (
        f"Wielding {wielded}; wearing {worn}. Score:{state.score} "
        f"Turn:{state.turn} [{RUN_WORDS[state.run]}]"
    )
    return [first, second]


def render(state: CogState) -> str:
    """Messages on top, the map, then two status lines, as a terminal roguelike shows it."""
    lines = list(state.messages) or [""]
    lines.extend(drawn_map(state))
    lines.extend(status_lines(state))
    return "\n".join(lines)


def progress(state: CogState) -> float:
    """(Deepest level reached - 1) / 10: 0 on DL1 at the start, 0.9 on reaching DL10;
    taking the Cogheart (on DL10) is 1.0."""
    return 1.0 if state.run == WON else (state.deepest - 1) / LEVELS
