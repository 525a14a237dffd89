from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.conftest import chat, tally
from tests.arena import arena

#: the scripted endpoint and the test game, as the agents' tests have them
__all__ = ["chat", "server", "tally"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with arena(tmp_path / "server-data") as url:
        yield url
