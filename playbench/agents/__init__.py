"""Agents: the seats ``playbench run`` puts at a game.

``random`` plays a uniformly random legal action, ``bot`` the game's baseline from
``playbench.bots``, ``llm`` a language model on an OpenAI-compatible endpoint. Any of
them plays in-process or on a playbench server (:mod:`playbench.agents.remote`).
"""

from __future__ import annotations

from playbench.agents.base import Agent, AgentError, Table, Turn
from playbench.agents.bot import BotAgent
from playbench.agents.llm import Budget, LlmAgent, LlmSettings
from playbench.agents.random_agent import RandomAgent
from playbench.core.game import Game

#: the names ``playbench run --agent`` takes
AGENTS = ("random", "bot", "llm")

__all__ = [
    "AGENTS",
    "Agent",
    "AgentError",
    "BotAgent",
    "LlmAgent",
    "LlmSettings",
    "RandomAgent",
    "Table",
    "Turn",
    "make_agent",
]


def make_agent(
    kind: str,
    game: Game,
    llm: LlmSettings | None = None,
    budget: Budget | None = None,
    concurrency: int | None = None,
) -> Agent:
    """An agent of ``kind`` for ``game``; :class:`AgentError` for an unknown kind, a game
    without a bot, or ``llm`` without its settings. ``budget`` and ``concurrency`` (the
    calls in flight this process allows) apply to the model."""
    if kind == "random":
        return RandomAgent(game)
    if kind == "bot":
        return BotAgent(game)
    if kind == "llm":
        if llm is None:
            raise AgentError("the llm agent needs a model: pass --model")
        if concurrency is None:
            return LlmAgent(game, llm, budget)
        return LlmAgent(game, llm, budget, concurrency)
    raise AgentError(f"unknown agent {kind!r}; agents: {', '.join(AGENTS)}")
