"""The error family every door of playbench speaks.

Each error says what was wrong in words a client can act on. The HTTP layer maps them
to 4xx answers; nothing a client sends turns into a 500.
"""

from __future__ import annotations


class PlaybenchError(Exception):
    """Base of every error playbench raises on purpose."""


class UnknownGameError(PlaybenchError, LookupError):
    """No game is registered under that slug."""

    def __init__(self, slug: str, known: list[str]) -> None:
        super().__init__(f"unknown game {slug!r}; known games: {', '.join(known) or 'none'}")
        self.slug = slug
        self.known = known


class OptionsError(PlaybenchError, ValueError):
    """A seed or the options given to ``new`` are not acceptable."""


class CommandError(PlaybenchError, ValueError):
    """A text command does not parse under the game's grammar."""


class StateError(PlaybenchError, ValueError):
    """A serialized state is malformed or does not belong to this game."""
