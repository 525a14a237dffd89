"""Nim's text grammar: ``take H N``."""

from __future__ import annotations

from typing import Any

from playbench.core import Command, CommandError

COMMANDS = [Command("take H N", "take N stones (1-3) from heap H (1-3)", "take 2 3")]


def parse_command(text: str) -> dict[str, Any]:
    words = text.split()
    if len(words) != 3 or words[0] != "take" or not all(w.isdigit() for w in words[1:]):
        raise CommandError(f"expected 'take H N', got {text!r}")
    return {"type": "take", "heap": int(words[1]), "count": int(words[2])}


def command_text(action: Any) -> str:
    if not isinstance(action, dict) or action.get("type") != "take":
        raise CommandError(f"not a Nim action: {action!r}")
    return f"take {action['heap']} {action['count']}"
