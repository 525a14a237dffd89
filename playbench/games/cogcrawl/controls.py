"""Cogcrawl's keys, NetHack's where they can be.

``q`` quaffs, so ``Q`` quits; ``k`` is a vi-key move, so kick is ``K`` then a direction
key and chat is ``C`` then one; ``{`` opens a prompt for a raw seat reply; ``i`` shows the
pack, whose letters ``e q w W`` ask for. Its events in words are the turning points of a
run; the rest of a turn is told by the game's own message line, drawn with the map.
"""

import re
from collections.abc import Mapping
from typing import Any

from playbench.core.controls import Controls, PadButton, Panel
from playbench.games.cogcrawl.commands import ARROWS, VI_KEYS
from playbench.games.cogcrawl.constants import TURN_LIMIT
from playbench.games.cogcrawl.glyphs import WIDTH


def pack_lines(observation: Mapping[str, Any]) -> list[str]:
    """The pack as NetHack lists it: ``a - dagger (weapon, wielded)``."""
    lines = []
    for item in observation.get("pack", []):
        notes = [item.get("kind", "")]
        notes += [word for word in ("wielded", "worn") if item.get(word)]
        lines.append(f"{item['letter']} - {item['name']} ({', '.join(n for n in notes if n)})")
    return lines or ["Your pack is empty."]


#: events the message line already tells (a kill) or a seat's own words (what it says)
UNTOLD = frozenset({"killed", "say"})


def words(event: Mapping[str, Any], view: Mapping[str, Any]) -> str | None:
    """Every event in words: a hidden way found, a new level, how the run ends; "" for
    what the message line tells."""
    kind = event.get("type")
    if kind in UNTOLD:
        return ""
    if kind == "found":
        return f"you find a hidden way at x {event['x']}, y {event['y']}"
    if kind == "level":
        return f"you reach dungeon level {event['dl']}"
    if kind == "died":
        return f"you die: {event['cause']}"
    if kind == "left":
        return "you leave the dungeon: the run is over"
    if kind == "won":
        return "you carry off the Cogheart: you win"
    if kind == "out_of_turns":
        return f"out of turns: the run is over after {TURN_LIMIT:,} dungeon turns"
    return None


CONTROLS = Controls(
    keys={
        **{key: f"move {d}" for key, d in VI_KEYS.items()},
        **{key: f"move {d}" for key, d in ARROWS.items()},
        **{f"K{key}": f"kick {d}" for key, d in VI_KEYS.items()},
        **{f"C{key}": f"chat {d}" for key, d in VI_KEYS.items()},
        ">": "down",
        "<": "up",
        ",": "pickup",
        "s": "search",
        ".": "wait",
        "e": "eat ...",
        "q": "quaff ...",
        "w": "wield ...",
        "W": "wear ...",
        "_": "travel ...",
        "{": "...",
    },
    colors={
        "@": "white",
        "+": "yellow",
        "'": "yellow",
        "<": "cyan",
        ">": "cyan",
        "}": "red",
        "$": "yellow",
        "!": "magenta",
        "%": "green",
        ")": "cyan",
        "[": "cyan",
        '"': "magenta",
        **dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "red"),
    },
    help="hjklyubn move, < > stairs, , picks up, i pack",
    board_line=re.compile(f"[ -~]{{{WIDTH}}}"),
    panels={
        "i": Panel(
            "Your pack (e q w W ask for a letter)",
            pack_lines,
            source="pack",
            pick="letter",
            show=("letter", "name", "kind", "wielded", "worn"),
            empty="Your pack is empty.",
        )
    },
    pad=(
        PadButton("north-west", "y", "↖", 0),
        PadButton("north", "k", "↑", 1),
        PadButton("north-east", "u", "↗", 2),
        PadButton("west", "h", "←", 3),
        PadButton("wait", ".", "wait", 4),
        PadButton("east", "l", "→", 5),
        PadButton("south-west", "b", "↙", 6),
        PadButton("south", "j", "↓", 7),
        PadButton("south-east", "n", "↘", 8),
        PadButton("search", "s"),
        PadButton("pick up", ","),
        PadButton("stairs down", ">", "down >"),
        PadButton("stairs up", "<", "up <"),
        PadButton("pack", "i", "pack i"),
        PadButton("eat", "e"),
        PadButton("quaff", "q"),
        PadButton("wield", "w"),
        PadButton("wear", "W"),
    ),
    swipes={"up": "k", "down": "j", "left": "h", "right": "l"},
    seat_reply='{"actions": [{"do": "search"}], "say": "looking around"}',
    words=words,
    focus="@",
)
