"""What a seat sees of a Cogcrawl run: the observation object and the text screen.

Both show the remembered map (never hidden things, the RNG or unseen monsters) with the
cog and the monsters in view drawn on it.
"""

from __future__ import annotations

from typing import Any

from playbench.games.cogcrawl import items as it
from playbench.games.cogcrawl import rules as ru
from playbench.games.cogcrawl.dungeon import WIDTH
from playbench.games.cogcrawl.glyphs import COG

RUN_WORDS = {
    ru.PLAYING: "playing",
    ru.WON: "won: the Cogheart is yours",
    ru.DEAD: "dead",
    ru.LEFT: "left the dungeon",
    ru.OUT_OF_TURNS: "out of turns",
}


def drawn_map(state: ru.CogState, visible: list | None = None) -> list[str]:
    """The remembered map with visible monsters and the cog drawn on it."""
    rows = ru.memory_rows(state.level)
    marks = [(m.x, m.y, m.info.glyph) for m in visible or ru.visible_monsters(state)]
    marks.append((state.x, state.y, COG))
    for x, y, glyph in marks:
        row = rows[y]
        rows[y] = f"{row[:x]}{glyph}{row[x + 1 :]}"
    return rows


def pack_entries(state: ru.CogState) -> list[dict[str, Any]]:
    entries = []
    for letter in sorted(state.pack):
        item = state.pack[letter]
        entry: dict[str, Any] = {
            "letter": letter,
            "name": ru.item_name(state, item),
            "kind": item[0],
        }
        if item[0] == it.WEAPON_KIND:
            entry["wielded"] = letter == state.wielded
        elif item[0] == it.ARMOUR_KIND:
            entry["worn"] = letter == state.worn
        entries.append(entry)
    return entries


def observe(state: ru.CogState) -> dict[str, Any]:
    level = state.level
    cog = state.cell
    visible = ru.visible_monsters(state)
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
            "glyph": it.glyph(stack[0]),
            "name": ru.item_name(state, stack[0]),
        }
        for cell, stack in sorted(level.items.items())
        if level.memory[cell] in ru.ITEM_GLYPH_BYTES
    ]
    underfoot = [
        {"glyph": it.glyph(item), "name": ru.item_name(state, item)}
        for item in level.items.get(cog, ())
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
            "ac": ru.armour_class(state),
            "gold": state.gold,
            "hunger": ru.hunger_of(state.nutrition),
            "wielded": ru.item_name(state, wielded) if wielded else None,
            "worn": ru.item_name(state, worn) if worn else None,
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
        "last_plan": ru.plan_copy(state.last_plan),
        "notes": state.notes,
        "say": state.say,
        "fallback": state.fallback,
        "retry": state.retry,
        "run": {
            "state": state.run,
            "score": state.score,
            "progress": ru.progress(state),
            "deepest": state.deepest,
        },
    }


def status_lines(state: ru.CogState) -> list[str]:
    hunger = ru.hunger_of(state.nutrition)
    first = (
        f"Dlvl:{state.dl} $:{state.gold} HP:{state.hp}({state.max_hp}) "
        f"AC:{ru.armour_class(state)} Xp:{state.xl}/{state.xp} T:{state.dungeon_turn}"
    )
    if hunger != ru.NOT_HUNGRY:
        first += f" {hunger}"
    if state.confused:
        first += " Conf"
    wielded = ru.item_name(state, state.pack[state.wielded]) if state.wielded else "nothing"
    worn = ru.item_name(state, state.pack[state.worn]) if state.worn else "nothing"
    second = (
        f"Wielding {wielded}; wearing {worn}. Score:{state.score} "
        f"Turn:{state.turn} [{RUN_WORDS[state.run]}]"
    )
    return [first, second]


def render(state: ru.CogState) -> str:
    """Messages on top, the map, then two status lines, as a terminal roguelike shows it."""
    lines = list(state.messages) or [""]
    lines.extend(drawn_map(state))
    lines.extend(status_lines(state))
    return "\n".join(lines)
