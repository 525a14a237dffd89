from __future__ import annotations

from collections.abc import Iterator

import pytest

from playbench.core import registry
from tests.agents.chat_server import ChatServer, serving
from tests.server.tally import Tally

TALLY = Tally()
KEY = "sk-test-key-never-written-0123456789"


@pytest.fixture
def tally(monkeypatch) -> Iterator[Tally]:
    """The test game Tally, registered with a bot, for the length of a test."""
    monkeypatch.setattr(TALLY, "bot", "tests.agents.tally_bot")
    registry.register(TALLY)
    yield TALLY
    registry._GAMES.pop(TALLY.slug, None)


@pytest.fixture
def chat(monkeypatch) -> Iterator[ChatServer]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serving() as server:
        yield server
