"""Cogcrawl's text grammar and terminal keys.

Every command becomes a reply object, the same thing a seat sends: ``"travel 5 6"`` is
``{"actions": [{"do": "travel", "x": 5, "y": 6}]}``. Several commands may be joined with
``;`` into one reply. A line beginning with ``{`` is passed on as raw reply text
(``{"reply": line}``) for the seat protocol to read.

Bare single letters are NetHack's: ``h j k l y u b n`` move (so a bare ``n`` is
south-east), ``s`` searches, ``,`` picks up, ``.`` waits, ``>``/``<`` take stairs.
Compass directions are given as arguments (``move n``, ``kick w``) or bare when they
cannot be mistaken (``ne``, ``north``).
"""

from __future__ import annotations

from typing import Any

from playbench.core import CommandError
from playbench.core.game import COMMAND_BYTES
from playbench.games.cogcrawl.glyphs import DIRECTIONS, HEIGHT, WIDTH
from playbench.games.cogcrawl.protocol import MAX_REPLY_BYTES

VI_KEYS = {"h": "w", "j": "s", "k": "n", "l": "e", "y": "nw", "u": "ne", "b": "sw", "n": "se"}
WORDS = {
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "northeast": "ne",
    "northwest": "nw",
    "southeast": "se",
    "southwest": "sw",
}
BARE_DIRECTIONS = {"ne", "nw", "se", "sw"}
ARROWS = {
    "KEY_UP": "n",
    "KEY_DOWN": "s",
    "KEY_LEFT": "w",
    "KEY_RIGHT": "e",
    "KEY_HOME": "nw",
    "KEY_PPAGE": "ne",
    "KEY_END": "sw",
    "KEY_NPAGE": "se",
}
ALIASES = {
    ">": "down",
    "<": "up",
    ",": "pickup",
    "s": "search",
    ".": "wait",
    "_": "travel",
    "talk": "chat",
    "drink": "quaff",
    "get": "pickup",
    "go": "move",
}
PLAIN = ("down", "up", "pickup", "search", "wait")
WITH_DIR = ("move", "kick", "chat")
WITH_ITEM = ("eat", "quaff", "wield", "wear")
SEPARATOR = ";"
RAW_START = "{"
#: the seat protocol's cap on one reply
RAW_REPLY_BYTES = MAX_REPLY_BYTES


def is_raw(text: str) -> bool:
    """True for a line that is a raw seat reply (it starts with ``{``)."""
    return text.lstrip().startswith(RAW_START)


def command_limit(text: str) -> int:
    """A raw seat reply may be as long as the seat protocol allows."""
    return RAW_REPLY_BYTES if is_raw(text) else COMMAND_BYTES


def command_text(action: object) -> str:
    """The command of a reply: its entries joined with ``;`` (``move n; search``), or the
    raw text of ``{"reply": ...}``."""
    if isinstance(action, dict) and set(action) == {"reply"} and isinstance(action["reply"], str):
        return action["reply"]
    entries = action.get("actions") if isinstance(action, dict) and len(action) == 1 else None
    if isinstance(entries, list) and entries:
        return f"{SEPARATOR} ".join(_entry_text(entry) for entry in entries)
    raise CommandError(f"{action!r} is no reply the text grammar can write")


def _entry_text(entry: object) -> str:
    if isinstance(entry, dict):
        verb = entry.get("do")
        if verb in PLAIN and len(entry) == 1:
            return verb
        if verb in WITH_DIR and set(entry) == {"do", "dir"} and entry["dir"] in DIRECTIONS:
            return f"{verb} {entry['dir']}"
        item = entry.get("item")
        if verb in WITH_ITEM and set(entry) == {"do", "item"} and isinstance(item, str):
            return f"{verb} {item}"
        x, y = entry.get("x"), entry.get("y")
        if verb == "travel" and set(entry) == {"do", "x", "y"} and type(x) is type(y) is int:
            return f"travel {x} {y}"
    raise CommandError(f"{entry!r} is no reply entry the text grammar can write")


def parse_command(text: object) -> dict[str, Any]:
    if not isinstance(text, str):
        raise CommandError(f"a command must be text, got {type(text).__name__}")
    line = text.strip()
    if line.startswith(RAW_START):
        return {"reply": line}
    parts = [part.strip() for part in line.split(SEPARATOR)]
    if not any(parts):
        raise CommandError("empty command; try 'move n', 'travel 5 6', 'search' or 'help'")
    return {"actions": [_one(part) for part in parts if part]}


def _one(text: str) -> dict[str, Any]:
    words = text.lower().split()
    head, args = words[0], words[1:]
    if head in VI_KEYS and not args:
        return {"do": "move", "dir": VI_KEYS[head]}
    if (head in BARE_DIRECTIONS or head in WORDS) and not args:
        return {"do": "move", "dir": WORDS.get(head, head)}
    verb = ALIASES.get(head, head)
    if verb in PLAIN:
        _arity(verb, args, 0)
        return {"do": verb}
    if verb in WITH_DIR:
        _arity(verb, args, 1, "a direction such as n, se or a vi-key")
        return {"do": verb, "dir": _direction(args[0])}
    if verb in WITH_ITEM:
        _arity(verb, args, 1, "a pack letter a..z")
        letter = args[0]
        if len(letter) != 1 or not "a" <= letter <= "z":
            raise CommandError(f"{verb} needs a pack letter a..z, got {args[0]!r}")
        return {"do": verb, "item": letter}
    if verb == "travel":
        _arity(verb, args, 2, f"x (0..{WIDTH - 1}) and y (0..{HEIGHT - 1})")
        try:
            x, y = int(args[0]), int(args[1])
        except ValueError:
            raise CommandError(f"travel needs two whole numbers, got {' '.join(args)!r}") from None
        return {"do": "travel", "x": x, "y": y}
    raise CommandError(
        f"unknown command {text!r}; commands: move DIR, travel X Y, down, up, pickup, "
        "eat L, quaff L, wield L, wear L, kick DIR, search, chat DIR, wait, "
        "vi-keys h j k l y u b n, or a raw JSON reply starting with {"
    )


def _arity(verb: str, args: list[str], count: int, what: str = "") -> None:
    if len(args) != count:
        needs = f"needs {what}" if count else "takes no argument"
        raise CommandError(f"{verb} {needs}, got {' '.join(args) or 'nothing'!r}")


def _direction(word: str) -> str:
    direction = WORDS.get(word, VI_KEYS.get(word, word)) if word not in DIRECTIONS else word
    if direction not in DIRECTIONS:
        raise CommandError(f"{word!r} is not a direction: use n s e w ne nw se sw or a vi-key")
    return direction
