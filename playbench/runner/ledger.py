"""What the episodes of this process have spent so far, per game (turns, calls and
tokens), read by the progress display and ``--max-cost``; its ``stop`` asks every
episode to stop after its turn."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from playbench.core.game import JSON


@dataclass(frozen=True, slots=True)
class Spend:
    """Turns, calls and tokens: an episode's, a game's or a run's."""

    turns: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @classmethod
    def of(cls, counts: JSON | None) -> Spend:
        """The spend of a seat's counts (``runs.jsonl``'s ``llm`` block)."""
        counts = counts or {}
        return cls(
            counts.get("turns", 0),
            counts.get("calls", 0),
            counts.get("promptTokens", 0),
            counts.get("completionTokens", 0),
        )

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.turns + other.turns,
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )

    def __sub__(self, other: Spend) -> Spend:
        return Spend(
            self.turns - other.turns,
            self.calls - other.calls,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
        )


@dataclass(slots=True)
class Ledger:
    """The process's spend per game; ``over`` (the run's ``--max-cost``) is asked after
    every turn, and a ``True`` sets ``stop``."""

    games: dict[str, Spend] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    over: Callable[[], bool] | None = None

    def add(self, game: str, before: JSON | None, after: JSON | None) -> None:
        """Count what a turn spent: the agent's counts ``after`` it less ``before``."""
        if after is None:
            return
        with self.lock:
            held = self.games.get(game, Spend())
            self.games[game] = held + (Spend.of(after) - Spend.of(before))
        if self.over is not None and self.over():
            self.stop.set()

    def reading(self, game: str) -> Spend:
        with self.lock:
            return self.games.get(game, Spend())


#: what this process's episodes spent, and its stop sign
LEDGER = Ledger()
