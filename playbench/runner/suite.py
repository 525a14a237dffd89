"""Benchmark suites: what ``playbench bench`` plays, fixed in one published file.

A suite is a JSON object: ``name``, ``description`` and ``games``, which maps each game's
slug to its ``seeds`` (as ``--seeds`` takes them), ``options``, ``maxSteps`` and
``harness`` (settings of the language model's harness, by the names a run's ``llm`` block
records them, e.g. ``{"maxTokens": 512}``; other agents have no harness), and may give
``optionsBySeed`` (options of one episode, laid over ``options``: ``{"3": {"startLevel":
3}}``) and a model's budgets per episode, ``maxTurns`` (model calls) and ``maxTokens``
(prompt plus completion tokens), which end an episode ``truncated``. The suites
shipped with playbench are ``playbench/runner/suites/<name>.json``; ``--suite`` takes one
of their names or the path of a suite file.

A suite's ``hash`` is the SHA-256 of its canonical JSON (keys sorted, no spaces), so two
results of the same hash played the same games, seeds, options and limits.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from playbench.agents import LlmSettings
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.runner.seeds import parse_seeds

SUITES = Path(str(resources.files("playbench") / "runner" / "suites"))
DEFAULT_SUITE = "suite-v1"
GAME_KEYS = ("seeds", "options", "maxSteps", "harness")
#: the keys a game of a suite may add
OPTIONAL_KEYS = ("optionsBySeed", "maxTurns", "maxTokens")


class SuiteError(PlaybenchError):
    """A suite that cannot be found or read."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: the harness settings a suite may fix: every field of the model's settings but the
#: model, its endpoint and its key, by the names ``run.json`` records them
HARNESS_FIELDS = {
    _camel(item.name): item.name
    for item in dataclasses.fields(LlmSettings)
    if item.name not in ("model", "base_url", "api_key_env")
}


@dataclass(frozen=True, slots=True)
class SuiteGame:
    """One game of a suite."""

    game: str
    seeds: list[int]
    options: JSON
    max_steps: int
    harness: JSON
    options_by_seed: dict[int, JSON] = dataclasses.field(default_factory=dict)
    max_turns: int | None = None
    max_tokens: int | None = None

    def options_of(self, seed: int) -> JSON:
        """The options of the episode of ``seed``."""
        return {**self.options, **self.options_by_seed.get(seed, {})}

    def llm_settings(self, llm: LlmSettings | None) -> LlmSettings | None:
        """The model's settings with this game's harness settings applied."""
        if llm is None or not self.harness:
            return llm
        return dataclasses.replace(
            llm, **{HARNESS_FIELDS[key]: value for key, value in self.harness.items()}
        )


@dataclass(frozen=True, slots=True)
class Suite:
    """A suite read and checked: its name, hash, the file's data and its games."""

    name: str
    hash: str
    data: JSON
    games: list[SuiteGame]

    def describe(self) -> JSON:
        """What ``bench.json`` records about the suite."""
        return {**self.data, "hash": self.hash}


def suite_hash(data: JSON) -> str:
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def shipped_suites() -> list[str]:
    """The names of the suites shipped with playbench."""
    return sorted(path.stem for path in SUITES.glob("*.json"))


def load_suite(name_or_path: str) -> Suite:
    """A shipped suite by name, or a suite file by path; :class:`SuiteError` in one line
    when it cannot be found or read."""
    path = SUITES / f"{name_or_path}.json"
    if not path.is_file():
        path = Path(name_or_path)
        if not path.is_file():
            raise SuiteError(
                f"no suite {name_or_path!r}: give one of {', '.join(shipped_suites())} "
                "or the path of a suite file"
            )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SuiteError(f"cannot read the suite {path}: {error}") from None
    return read_suite(data, str(path))


def read_suite(data: Any, where: str = "the suite") -> Suite:
    """Check a suite's data: :class:`SuiteError` naming what is wrong."""
    if not isinstance(data, dict):
        raise SuiteError(f"{where} is not a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise SuiteError(f"{where} has no name")
    games = data.get("games")
    if not isinstance(games, dict) or not games:
        raise SuiteError(f"{where} lists no games")
    return Suite(
        name, suite_hash(data), data, [_game(slug, entry, where) for slug, entry in games.items()]
    )


def _game(slug: str, entry: Any, where: str) -> SuiteGame:
    game = get_game(slug)
    if (
        not isinstance(entry, dict)
        or not set(GAME_KEYS) <= set(entry)
        or not set(entry) <= {*GAME_KEYS, *OPTIONAL_KEYS}
    ):
        raise SuiteError(
            f"{where}: {slug} must have the keys {', '.join(GAME_KEYS)} and may have "
            f"{', '.join(OPTIONAL_KEYS)}"
        )
    seeds = entry["seeds"]
    if not isinstance(seeds, str):
        raise SuiteError(f"{where}: the seeds of {slug} must be text such as 0-9")
    max_steps = entry["maxSteps"]
    if type(max_steps) is not int or max_steps < 1:
        raise SuiteError(f"{where}: the maxSteps of {slug} must be a whole number, at least 1")
    options, harness = entry["options"], entry["harness"]
    if not isinstance(options, dict) or not isinstance(harness, dict):
        raise SuiteError(f"{where}: the options and harness of {slug} must be JSON objects")
    unknown = sorted(set(harness) - set(HARNESS_FIELDS))
    if unknown:
        raise SuiteError(
            f"{where}: {slug} has unknown harness settings {', '.join(unknown)}; "
            f"known: {', '.join(HARNESS_FIELDS)}"
        )
    listed = parse_seeds(seeds)
    budgets = {}
    for key in ("maxTurns", "maxTokens"):
        value = entry.get(key)
        if value is not None and (type(value) is not int or value < 1):
            raise SuiteError(f"{where}: the {key} of {slug} must be a whole number, at least 1")
        budgets[key] = value
    by_seed = _options_by_seed(slug, entry.get("optionsBySeed", {}), listed, where)
    # the game refuses bad options for any seed: one try checks them
    game.new(listed[0], options or None)
    for seed, extra in by_seed.items():
        game.new(seed, {**options, **extra})
    return SuiteGame(
        game.slug,
        listed,
        options,
        max_steps,
        harness,
        by_seed,
        budgets["maxTurns"],
        budgets["maxTokens"],
    )


def _options_by_seed(slug: str, data: Any, seeds: list[int], where: str) -> dict[int, JSON]:
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: the optionsBySeed of {slug} must be a JSON object")
    found: dict[int, JSON] = {}
    for key, extra in data.items():
        if not key.isdigit() or int(key) not in seeds:
            raise SuiteError(
                f"{where}: optionsBySeed of {slug} names {key!r}, which is no seed it plays"
            )
        if not isinstance(extra, dict):
            raise SuiteError(f"{where}: optionsBySeed[{key!r}] of {slug} must be a JSON object")
        found[int(key)] = extra
    return found
