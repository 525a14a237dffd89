"""Nim's spec."""

from playbench_nim import commands

DESCRIPTION = "Three seeded heaps of stones; you and the house take 1 to 3 from one heap."
GOAL = "Take the last stone."
SCORING = "1 a stone you take, 10 for the last stone."
RULES = ["The house answers every take with one drawn from the seeded generator."]
ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"const": "take"},
        "heap": {"type": "integer", "minimum": 1, "maximum": 3},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
    },
    "required": ["type", "heap", "count"],
}
COMMANDS = commands.COMMANDS
OBSERVATION = {"heaps": "stones per heap", "board": "a row per heap", "status": "the run"}
