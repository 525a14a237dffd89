"""Delvewick's keys: arrows and WASD move, space or ``.`` waits."""

from playbench.core.controls import Controls

CONTROLS = Controls(
    keys={
        "KEY_UP": "up",
        "KEY_DOWN": "down",
        "KEY_LEFT": "left",
        "KEY_RIGHT": "right",
        "w": "up",
        "s": "down",
        "a": "left",
        "d": "right",
        " ": "wait",
        ".": "wait",
    }
)
