"""The random agent's and the bot's mean scores, which ``info["normalised_score"]`` is
normalised between (random 0, bot 1).

The figures are data, ``baselines.json`` beside this module, made once by
``benchmarks/gym_baselines.py`` (which says how: the seeds, the step caps, the players) and
read here. Each game has its figures for its default options (key ``""``) and Delvewick for
each start level (``"startLevel=3"``); other options (a custom level) are normalised by
the game's default figures. A game with no figures at all (one added after the file was
made, until the script is run for it) has a normalised score of 0 throughout, and :func:`figures`
None.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("baselines.json")


@cache
def table() -> dict[str, Any]:
    """Every game's figures, as ``baselines.json`` holds them."""
    return json.loads(PATH.read_text(encoding="utf-8"))["games"]


def options_key(options: Mapping[str, Any] | None) -> str | None:
    """The key of a set of options in the table: ``""`` for none, ``name=value`` pairs
    sorted and joined by commas for plain values, None for anything else (a custom level)."""
    if not options:
        return ""
    if not all(isinstance(value, int | str) for value in options.values()):
        return None
    return ",".join(f"{name}={options[name]}" for name in sorted(options))


def figures(slug: str, options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The random and bot means of a game under ``options``, else under its defaults;
    None for a game without figures."""
    games = table()
    if slug not in games:
        return None
    key = options_key(options)
    return games[slug].get(key, games[slug][""]) if key is not None else games[slug][""]


def _nothing(score: float) -> float:
    return 0.0


def normaliser(slug: str, options: Mapping[str, Any] | None) -> Callable[[float], float]:
    """Score -> (score - random mean) / (bot mean - random mean) (0 without figures)."""
    found = figures(slug, options)
    if found is None:
        return _nothing
    low, span = found["random"], found["bot"] - found["random"]
    return lambda score: (score - low) / span
