"""``bot``: the game's baseline player from ``playbench.bots``.

Every game's bot module exposes ``make_bot(seed) -> Bot`` whose ``act(view)`` returns a
JSON action (for Cogcrawl a seat reply) from the view alone; :data:`BOT_MODULES` is the
one place that says which module plays which game.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from playbench.agents.base import AgentError, ScriptedAgent
from playbench.core.game import JSON, Action, Game

#: game slug -> the module with its ``make_bot``
BOT_MODULES = {
    "delvewick": "playbench.bots.delvewick",
    "chimestep": "playbench.bots.chimestep",
    "gem-swap": "playbench.bots.gemswap",
    "cogcrawl": "playbench.bots.cogcrawl",
}


class Bot(Protocol):
    def act(self, view: JSON) -> Action: ...


def bot_factory(slug: str) -> Any:
    """The ``make_bot`` of the game's bot module; :class:`AgentError` when there is none."""
    path = BOT_MODULES.get(slug)
    if path is None:
        raise AgentError(f"no bot module is known for the game {slug!r}")
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
        self.make_bot = bot_factory(game.slug)

    def reset(self, seed: int) -> None:
        self.bot = self.make_bot(seed)

    def act(self, view: JSON) -> Action:
        return self.bot.act(view)
