"""The built-in games. Importing a game package registers it."""

import importlib

#: one line per game, in the order the arena lists them
GAME_PACKAGES = (
    "delvewick",
    "gemswap",
    "chimestep",
    "cogcrawl",
)

for _package in GAME_PACKAGES:
    importlib.import_module(f"playbench.games.{_package}")
