"""Gem Swap's keys: each opens a prompt for the rest of its command."""

from playbench.core.controls import Controls

CONTROLS = Controls(
    keys={
        "s": "swap ...",
        "c": "select ...",
        "d": "deselect",
        "h": "hint",
        "m": "moves",
        ":": "...",
        "\n": "...",
    }
)
