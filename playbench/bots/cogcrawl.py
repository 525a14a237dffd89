"""The Cogcrawl bot: the delver, seated through the pinned bot interface.

``make_bot(seed).act(view)`` answers a ``Match.view()`` with a seat reply object. The
delver reads only the view's observation; its memory is its notes, which the game
echoes back each turn, so the same bot plays in-process and through the session API.
``run_delver`` plays one whole run and counts what it reached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from playbench.core import Game, get_game
from playbench.core.match import Match
from playbench.games.cogcrawl.delver import delver_reply
from playbench.games.cogcrawl.state import WON

SLUG = "cogcrawl"


class DelverBot:
    """The delver as a bot. It needs no randomness; the seed is kept for the record."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        return delver_reply(view["observation"])


def make_bot(seed: int) -> DelverBot:
    return DelverBot(seed)


@dataclass
class DelverRun:
    """One whole run played by the delver."""

    seed: int
    turns: int
    primitives: int
    deepest: int
    cogheart: bool
    state: str
    score: int
    seconds: float
    xl: int = 1
    cause: str = ""


def run_delver(seed: int, max_turns: int = 3000, game: Game | None = None) -> DelverRun:
    """Play a run with the delver bot through ``Match``, up to ``max_turns`` seat turns.

    ``primitives`` counts the dungeon primitives executed (``last_plan.executed``);
    ``cause`` is the death's cause when the run ended in one.
    """
    start = time.perf_counter()
    match = Match.start(game or get_game(SLUG), seed)
    bot = make_bot(seed)
    turns = primitives = 0
    view = match.view()
    cause = ""
    while turns < max_turns and not view["gameOver"]:
        result = match.play(bot.act(view))
        cause = next((e["cause"] for e in result.events if e["type"] == "died"), cause)
        view = match.view()
        primitives += len(view["observation"]["last_plan"]["executed"])
        turns += 1
    observation = view["observation"]
    run = observation["run"]
    return DelverRun(
        seed=seed,
        turns=turns,
        primitives=primitives,
        deepest=run["deepest"],
        cogheart=run["state"] == WON,
        state=run["state"],
        score=run["score"],
        seconds=time.perf_counter() - start,
        xl=observation["status"]["xl"],
        cause=cause,
    )
