from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.arena import arena


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with arena(tmp_path / "server-data") as url:
        yield url
