"""Games by slug, found by entry point.

Every installed distribution that declares a game in the entry point group
``playbench.games`` (``slug = "package.module:GAME"``, where ``GAME`` is the game's one
instance) has it listed by every door: playbench declares its four built-in games the
same way, in ``pyproject.toml``. Games are loaded on first use, the built-ins first and
then the others, each by slug; :func:`register` adds one in-process (tests).
"""

from __future__ import annotations

import tomllib
import warnings
from importlib import metadata
from pathlib import Path

from playbench.core.errors import UnknownGameError
from playbench.core.game import Game

#: the entry point group of games
GROUP = "playbench.games"
#: the distribution whose games come first
HOME = "playbench"
SOURCE_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

_GAMES: dict[str, Game] = {}
_loaded = False


class GameLoadError(RuntimeError):
    """An installed game's entry point does not give a game."""


def register(game: Game) -> Game:
    if game.slug in _GAMES and _GAMES[game.slug] is not game:
        raise ValueError(f"a game is already registered as {game.slug!r}")
    _GAMES[game.slug] = game
    return game


def game_entry_points() -> list[metadata.EntryPoint]:
    """The installed entry points of the group: playbench's own, then every other
    distribution's, each by name."""
    found = list(metadata.entry_points(group=GROUP))
    home = [point for point in found if _dist_name(point) == HOME] or _source_entry_points()
    others = [point for point in found if _dist_name(point) != HOME]
    return sorted(home, key=_name) + sorted(others, key=_name)


def _name(point: metadata.EntryPoint) -> str:
    return point.name


def _dist_name(point: metadata.EntryPoint) -> str | None:
    return point.dist.name if point.dist is not None else None


def _source_entry_points() -> list[metadata.EntryPoint]:
    """The built-ins as the source checkout's ``pyproject.toml`` declares them, for an
    editable install whose metadata was written before the group existed."""
    if not SOURCE_PYPROJECT.is_file():
        return []
    project = tomllib.loads(SOURCE_PYPROJECT.read_text(encoding="utf-8")).get("project", {})
    declared = project.get("entry-points", {}).get(GROUP, {})
    if declared:
        warnings.warn(
            f"the installed metadata of {HOME} declares no {GROUP!r} entry points; the "
            f"built-in games are read from {SOURCE_PYPROJECT}: reinstall it (pip install -e .)",
            stacklevel=3,
        )
    return [metadata.EntryPoint(name, value, GROUP) for name, value in declared.items()]


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for point in game_entry_points():
        game = _game_of(point)
        if game.slug not in _GAMES:
            register(game)


def _game_of(point: metadata.EntryPoint) -> Game:
    where = f"the game entry point {point.name} = {point.value!r}"
    try:
        game = point.load()
    except (ImportError, AttributeError) as error:
        raise GameLoadError(f"{where} does not load: {error}") from error
    if not isinstance(game, Game):
        raise GameLoadError(f"{where} gives a {type(game).__name__}, not a playbench Game")
    if game.slug != point.name:
        raise GameLoadError(f"{where} gives the game {game.slug!r}: the names must agree")
    return game


def get_game(slug: str) -> Game:
    _load()
    try:
        return _GAMES[slug]
    except KeyError:
        raise UnknownGameError(slug, sorted(_GAMES)) from None


def all_games() -> list[Game]:
    """Every registered game: the built-ins, then the others, each by slug."""
    _load()
    return list(_GAMES.values())
