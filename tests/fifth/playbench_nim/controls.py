"""Nim's keys: a b c take one stone from heap 1 2 3; ``t`` asks for a whole take."""

from playbench.core.controls import Controls

CONTROLS = Controls(
    keys={"a": "take 1 1", "b": "take 2 1", "c": "take 3 1", "t": "take ..."},
    help="a b c take one stone from heap 1 2 3, t takes more",
)
