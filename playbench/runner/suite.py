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

Every slot of a game (a seed with its options) must be another episode: where the game's
seed changes nothing (:attr:`~playbench.core.game.Game.seeded` false, Delvewick) two slots
of the same options are one episode counted twice, and such a suite is refused, naming the
slots.

A published suite also ships its ``baselines``: per game, the random agent's and the
reference's score on every slot, played on the same slots under the same budgets. The
reference on a slot is the higher of the project's bot and the best known play the
project records for that slot (Delvewick's shipped level solutions; no other game has a
figure above its bot, and no human baseline is recorded for any slot), and
``referenceSource`` says in words where a game's reference figures come from. They set
each game's scale: an agent's normalised score on a slot is
``(score - random mean) / (reference mean - random mean)`` (the random agent's mean over
the game's slots is 0, the reference's 1), and a bench's headline is the mean over games of
each game's mean normalised score (:mod:`playbench.runner.bench`).

A suite's ``hash`` is the SHA-256 of its canonical JSON (keys sorted, no spaces) without
its baselines, so two results of the same hash played the same games, seeds, options and
limits; the baselines are figures of that same suite, measured once it was fixed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from playbench.agents import LlmSettings
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.registry import get_game
from playbench.runner.seeds import parse_seeds

SUITES = Path(str(resources.files("playbench") / "runner" / "suites"))
DEFAULT_SUITE = "suite-v2"
GAME_KEYS = ("seeds", "options", "maxSteps", "harness")
#: the keys a game of a suite may add
OPTIONAL_KEYS = ("optionsBySeed", "maxTurns", "maxTokens")
#: the suite's key of its baselines, which its hash leaves out
BASELINES = "baselines"
#: the keys of one game's baselines
BASELINE_KEYS = ("random", "reference", "referenceAgent")
#: the key a game's baselines may add: where its reference figures come from, in words
REFERENCE_SOURCE = "referenceSource"


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


def normalise(score: float, random: float, reference: float) -> float:
    """``score`` on the scale where ``random`` is 0 and ``reference`` is 1."""
    return (score - random) / (reference - random)


@dataclass(frozen=True, slots=True)
class Baseline:
    """One game's scale: the random agent's and the reference's score by seed."""

    random: dict[int, float]
    reference: dict[int, float]
    reference_agent: str
    #: where the reference figures come from, in words ("" where the suite does not say)
    reference_source: str = ""

    @property
    def random_mean(self) -> float:
        return sum(self.random.values()) / len(self.random)

    @property
    def reference_mean(self) -> float:
        return sum(self.reference.values()) / len(self.reference)

    def normalised(self, score: float) -> float:
        """``score`` on the game's scale: the random mean is 0, the reference's 1."""
        return normalise(score, self.random_mean, self.reference_mean)

    def describe(self) -> JSON:
        """What ``bench.json`` records of the scale, per game (the reference's source stays
        in the suite: a result written before it was named stays sound)."""
        return {
            "random": round(self.random_mean, 4),
            "reference": round(self.reference_mean, 4),
            "referenceAgent": self.reference_agent,
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
    baseline: Baseline | None = None

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
        """What ``bench.json`` records about the suite: what it plays, not its baselines."""
        return {**played(self.data), "hash": self.hash}

    @property
    def baselines(self) -> dict[str, Baseline] | None:
        """Every game's scale, or None unless the suite ships one for every game."""
        found = {entry.game: entry.baseline for entry in self.games}
        if any(baseline is None for baseline in found.values()):
            return None
        return {slug: baseline for slug, baseline in found.items() if baseline is not None}


def played(data: JSON) -> JSON:
    """A suite's data without its baselines: what its hash covers."""
    return {key: value for key, value in data.items() if key != BASELINES}


def suite_hash(data: JSON) -> str:
    canonical = json.dumps(played(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@cache
def _shipped_baselines() -> dict[str, dict[str, Baseline]]:
    found = {}
    for name in shipped_suites():
        suite = load_suite(name)
        if suite.baselines is not None:
            found[suite.hash] = suite.baselines
    return found


def shipped_baselines(hash_: str) -> dict[str, Baseline] | None:
    """The baselines of the shipped suite of hash ``hash_``; None when no shipped suite
    has that hash or it ships none. Figures are scaled by these alone: a result's own
    files never set its scale."""
    return _shipped_baselines().get(hash_)


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
    baselines = data.get(BASELINES, {})
    if not isinstance(baselines, dict) or not set(baselines) <= set(games):
        raise SuiteError(
            f"{where}: its {BASELINES} must be a JSON object with an entry per game it plays"
        )
    found = [_game(slug, entry, where) for slug, entry in games.items()]
    found = [
        dataclasses.replace(entry, baseline=_baseline(entry, baselines[entry.game], where))
        if entry.game in baselines
        else entry
        for entry in found
    ]
    return Suite(name, suite_hash(data), data, found)


def _scores(slug: str, key: str, data: Any, seeds: list[int], where: str) -> dict[int, float]:
    if (
        not isinstance(data, dict)
        or sorted(data) != sorted(str(seed) for seed in seeds)
        or not all(type(value) in (int, float) for value in data.values())
    ):
        raise SuiteError(
            f"{where}: the {key} baseline of {slug} must give a number for each of its "
            f"seeds {', '.join(map(str, seeds))}, by seed"
        )
    return {int(seed): value for seed, value in data.items()}


def _baseline(entry: SuiteGame, data: Any, where: str) -> Baseline:
    slug = entry.game
    if (
        not isinstance(data, dict)
        or not set(BASELINE_KEYS) <= set(data)
        or not set(data) <= {*BASELINE_KEYS, REFERENCE_SOURCE}
    ):
        raise SuiteError(
            f"{where}: the baselines of {slug} must have the keys {BASELINE_KEYS} "
            f"and may have {REFERENCE_SOURCE!r}"
        )
    agent = data["referenceAgent"]
    if not isinstance(agent, str) or not agent:
        raise SuiteError(f"{where}: the referenceAgent of {slug} must name an agent")
    source = data.get(REFERENCE_SOURCE, "")
    if not isinstance(source, str) or (REFERENCE_SOURCE in data and not source.strip()):
        raise SuiteError(
            f"{where}: the {REFERENCE_SOURCE} of {slug} must say in words where its "
            "reference figures come from"
        )
    baseline = Baseline(
        _scores(slug, "random", data["random"], entry.seeds, where),
        _scores(slug, "reference", data["reference"], entry.seeds, where),
        agent,
        source,
    )
    if baseline.reference_mean <= baseline.random_mean:
        raise SuiteError(
            f"{where}: on {slug} the reference's mean ({baseline.reference_mean:g}) is not "
            f"above the random agent's ({baseline.random_mean:g}): no scale to score on"
        )
    return baseline


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
    _distinct(game, listed, options, by_seed, where)
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


def _distinct(
    game: Game, seeds: list[int], options: JSON, by_seed: dict[int, JSON], where: str
) -> None:
    """Refuse two slots that play the same episode: in a game whose seed changes nothing,
    two slots whose options start the same game (``{}`` and ``{"startLevel": 1}`` alike,
    by the fingerprint of their first state); seeds are distinct already."""
    if game.seeded:
        return
    first: dict[str, int] = {}
    for seed in seeds:
        content = game.fingerprint(game.new(seed, {**options, **by_seed.get(seed, {})} or None))
        if content in first:
            raise SuiteError(
                f"{where}: {game.slug} plays one episode twice, on the slots of seeds "
                f"{first[content]} and {seed}: the seed of {game.name} changes nothing, so "
                "give each slot other options (optionsBySeed)"
            )
        first[content] = seed


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
