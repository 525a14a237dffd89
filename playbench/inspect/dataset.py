"""The samples of a task: one per episode (game, seed, options), from a suite.

A game's own task plays a suite made for it (``inspect-<slug>``: the seeds, options and
limits its task arguments give), so an Inspect result reads back as a bench folder
like any other; ``playbench/suite`` plays a published suite as it is. Each sample's
metadata says what its episode is and what bounds it: ``game``, ``seed``, ``options``
(the suite's, with its ``optionsBySeed`` for the seed), ``maxSteps`` (actions),
``maxTurns`` (model calls) and ``maxTokens`` (prompt plus completion tokens), and the
game's ``harness`` settings from the suite.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.runner.seeds import SeedError, parse_seeds
from playbench.runner.suite import Suite, read_suite

#: the model turns an episode of a game's own task may take by default, the bound the
#: models suite sets
DEFAULT_MAX_TURNS = 300
#: the actions an episode of a game's own task may take by default
DEFAULT_MAX_STEPS = 100_000


class TaskArgumentError(PlaybenchError, ValueError):
    """A task argument that cannot be used."""


def seeds_text(seeds: Any) -> str:
    """``-T seeds=...`` as text (Inspect reads ``-T seeds=3`` as a number)."""
    if type(seeds) is int:
        return str(seeds)
    if not isinstance(seeds, str):
        raise TaskArgumentError(f"seeds must be text such as 0-9 or 1,5,9, got {seeds!r}")
    try:
        parse_seeds(seeds)
    except SeedError as error:
        raise TaskArgumentError(str(error).replace("--seeds", "seeds")) from None
    return seeds


def options_of(options: Any) -> JSON:
    """``-T options=...``: a mapping, or JSON text of one (empty: none)."""
    if options is None or options == "":
        return {}
    if isinstance(options, str):
        try:
            options = json.loads(options)
        except json.JSONDecodeError as error:
            raise TaskArgumentError(f"options is not valid JSON: {error}") from None
    if not isinstance(options, dict):
        raise TaskArgumentError(f"options must be a JSON object, got {options!r}")
    return options


def _count(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < 1:
        raise TaskArgumentError(f"{name} must be a whole number, at least 1, got {value!r}")
    return value


def budgets_of(max_turns: Any, max_tokens: Any) -> JSON:
    """``maxTurns`` and ``maxTokens`` from task arguments (None: unbounded)."""
    return {
        "maxTurns": _count("max_turns", max_turns),
        "maxTokens": _count("max_tokens", max_tokens),
    }


def game_suite(slug: str, seeds: Any, options: Any, max_steps: Any, budgets: JSON) -> Suite:
    """The suite a game's own task plays: one game, on the seeds and options given, with
    its budgets."""
    game = get_game(slug)
    text = seeds_text(seeds)
    entry: JSON = {
        "seeds": text,
        "options": options_of(options),
        "maxSteps": _count("max_steps", max_steps),
        "harness": {},
    }
    entry.update({name: value for name, value in budgets.items() if value is not None})
    data = {
        "name": f"inspect-{game.slug}",
        "description": f"{game.name} on seeds {text}, as the task playbench/{slug} plays it",
        "games": {game.slug: entry},
    }
    return read_suite(data, f"the task playbench/{slug}")


def suite_budgets(suite: Suite) -> dict[str, JSON]:
    """Each game's budgets as its suite sets them."""
    return {
        entry.game: {"maxTurns": entry.max_turns, "maxTokens": entry.max_tokens}
        for entry in suite.games
    }


def samples(suite: Suite, budgets: dict[str, JSON]) -> MemoryDataset:
    """One sample per episode of ``suite``, game by game, seed by seed."""
    found = []
    for entry in suite.games:
        game = get_game(entry.game)
        for seed in entry.seeds:
            found.append(
                Sample(
                    id=f"{game.slug}-{seed}",
                    input=f"Play {game.name}, seed {seed}, through playbench's seat protocol.",
                    metadata={
                        "game": game.slug,
                        "seed": seed,
                        "options": entry.options_of(seed),
                        "maxSteps": entry.max_steps,
                        **budgets.get(entry.game, {}),
                        "harness": entry.harness,
                    },
                )
            )
    return MemoryDataset(found, name=suite.name)
