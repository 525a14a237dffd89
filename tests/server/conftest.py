"""Server fixtures: a fresh app per test on a temporary data folder, and every game.

The test-only game ``tally`` is registered for the server tests (and removed after), so
the server is covered before the real games land; every registered game joins the
``slug`` parametrization with no new code.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from playbench.core import all_games, registry
from playbench.server import Settings, create_app
from tests.server.tally import Tally

TALLY = Tally()


def served_slugs() -> list[str]:
    return [game.slug for game in all_games() if game.slug != TALLY.slug] + [TALLY.slug]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "slug" in metafunc.fixturenames:
        metafunc.parametrize("slug", served_slugs())


@pytest.fixture(autouse=True, scope="package")
def tally_registered() -> Iterator[None]:
    registry.register(TALLY)
    yield
    registry._GAMES.pop(TALLY.slug, None)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
