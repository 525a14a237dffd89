"""Games by slug. Each game package registers its singleton when imported."""

from __future__ import annotations

import importlib

from playbench.core.errors import UnknownGameError
from playbench.core.game import Game

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    if game.slug in _GAMES and _GAMES[game.slug] is not game:
        raise ValueError(f"a game is already registered as {game.slug!r}")
    _GAMES[game.slug] = game
    return game


def _load() -> None:
    importlib.import_module("playbench.games")


def get_game(slug: str) -> Game:
    _load()
    try:
        return _GAMES[slug]
    except KeyError:
        raise UnknownGameError(slug, sorted(_GAMES)) from None


def all_games() -> list[Game]:
    """Every registered game, in registration order."""
    _load()
    return list(_GAMES.values())
