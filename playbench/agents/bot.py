"""``bot``: the game's baseline player, from the module the game names.

A game names its bot's module (:attr:`~playbench.core.game.Game.bot`; the built-in ones
are in ``playbench.bots``), which exposes ``make_bot(seed) -> Bot`` whose ``act(view)``
returns a JSON action (for Cogcrawl a seat reply) from the view alone.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from playbench.agents.base import AgentError, ScriptedAgent
from playbench.core.game import JSON, Action, Game


class Bot(Protocol):
    def act(self, view: JSON) -> Action: ...


def bot_factory(game: Game) -> Any:
    """The ``make_bot`` of the game's bot module; :class:`AgentError` when there is none."""
    slug, path = game.slug, game.bot
    if path is None:
        raise AgentError(f"the game {slug!r} names no bot")
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as error:
        if error.name != path:
            raise
        raise AgentError(f"the game {slug!r} has no bot yet: {path} does not exist") from None
    make_bot = getattr(module, "make_bot", None)
    if make_bot is None:
        raise AgentError(f"the game {slug!r} has no bot yet: {path} has no make_bot")
    return make_bot


class BotAgent(ScriptedAgent):
    """The game's bot, made afresh from each episode's seed."""

    name = "bot"
    bot: Bot

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.make_bot = bot_factory(game)

    def reset(self, seed: int) -> None:
        self.bot = self.make_bot(seed)

    def act(self, view: JSON) -> Action:
        return self.bot.act(view)
