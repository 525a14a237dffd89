"""The Delvewick text grammar: ``up down left right wait`` and their first letters."""

from __future__ import annotations

from playbench.core.errors import CommandError
from playbench.core.game import Action, Command

WAIT = "wait"
MOVES = ("up", "down", "left", "right")
VALID = "up, down, left, right, wait (or u, d, l, r, w)"

_ACTIONS: dict[str, Action] = {}
for _word in MOVES:
    _ACTIONS[_word] = _ACTIONS[_word[0]] = {"type": "move", "dir": _word}
_ACTIONS[WAIT] = _ACTIONS[WAIT[0]] = {"type": WAIT}

COMMANDS = [
    Command("up | u", "move up (dig, collect or enter; never push vertically)", "up"),
    Command("down | d", "move down", "d"),
    Command("left | l", "move left, pushing a resting boulder or geode into empty space", "left"),
    Command("right | r", "move right, pushing a resting boulder or geode into empty space", "r"),
    Command("wait | w", "stay put and let the world tick once", "wait"),
]


def command_text(action: object) -> str:
    """The command of an action: ``up``, ``down``, ``left``, ``right`` or ``wait``."""
    for word in (*MOVES, WAIT):
        if action == _ACTIONS[word]:
            return word
    raise CommandError(f"{action!r} is not a Delvewick action")


def parse_command(text: object) -> Action:
    """Turn ``text`` into an action; case and surrounding whitespace do not matter."""
    if not isinstance(text, str):
        raise CommandError(f"a command must be text; valid commands: {VALID}")
    action = _ACTIONS.get(text.strip().lower())
    if action is None:
        raise CommandError(f"unknown command {text.strip()!r}; valid commands: {VALID}")
    return dict(action)
