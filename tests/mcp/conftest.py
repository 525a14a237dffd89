"""MCP fixtures: a match table on a fresh database, SQLite or the test PostgreSQL (the
server tests' ``databases`` marker and fixtures, shared)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from playbench.server.store import Storage
from tests.server.conftest import (  # noqa: F401 (fixtures and hooks pytest finds here)
    database,
    postgres_admin,
    pytest_configure,
    pytest_generate_tests,
)


@pytest.fixture
def storage(tmp_path: Path, database: str | None) -> Iterator[Storage]:  # noqa: F811
    opened = Storage(database or f"sqlite:///{tmp_path / 'mcp.db'}")
    yield opened
    opened.close()
