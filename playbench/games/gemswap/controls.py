"""Gem Swap's keys: each opens a prompt for the rest of its command; its hint and moves
in words (what the hint cost, which swaps there are)."""

import re
from collections.abc import Mapping
from typing import Any

from playbench.core.controls import Controls, PadButton
from playbench.core.wording import gained, plural
from playbench.games.gemswap.rules import HINT_COST

SWAP = "swap "


def words(event: Mapping[str, Any], view: Mapping[str, Any]) -> str | None:
    """Every event in words: the swap, each cascade with its points, the hint with its
    cost, the moves with the swaps themselves."""
    kind = event.get("type")
    if kind == "swap":
        first, second = event["cells"]
        return f"swapped {first} and {second}"
    if kind == "cascade":
        again = f"cascade x{event['step']}: " if event["step"] > 1 else ""
        return f"{again}{plural(len(event['cleared']), 'gem')} cleared{gained(event['points'])}"
    if kind == "select":
        return f"{event['cell']} picked: now swap it with a neighbour"
    if kind == "deselect":
        return "nothing picked"
    if kind == "reshuffle":
        return "no swap was left: the board is reshuffled"
    if kind == "gameOver":
        return f"game over: {event['score']} points" if "score" in event else "game over"
    if kind == "hint":
        return (
            f"hint: {event['swap']} lines up {event['gems']} gems "
            f"(the hint cost {event['cost']} points)"
        )
    if event.get("type") == "moves":
        swaps = [c.removeprefix(SWAP) for c in view.get("commands", []) if c.startswith(SWAP)]
        count = event["count"]
        some = "1 swap makes" if count == 1 else f"{count} swaps make"
        return f"{some} a line: {', '.join(swaps)}"
    return None


CONTROLS = Controls(
    keys={
        "s": "swap ...",
        "c": "select ...",
        "d": "deselect",
        "h": "hint",
        "m": "moves",
        ":": "...",
        "\n": "...",
    },
    colors={
        "R": "red",
        "G": "green",
        "B": "blue",
        "Y": "yellow",
        "P": "magenta",
        "O": "orange",
        "W": "white",
        "@": "white",
    },
    help=f"s swaps, c selects, d deselects, h hint (costs {HINT_COST}), m lists moves, : command",
    words=words,
    pad=(
        PadButton("hint", "h", f"hint (−{HINT_COST})"),
        PadButton("moves", "m"),
        PadButton("deselect", "d"),
    ),
    tap="select {cell}",
    board_line=re.compile(r" ?\d [RGBYPOW@ |+-]+"),
)
