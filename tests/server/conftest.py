"""Server fixtures: a fresh app per test on a temporary data folder, and every game.

The test-only game ``tally`` is registered for the server tests (and removed after), so
the server is covered before the real games land; every registered game joins the
``slug`` parametrization with no new code.

Tests marked ``databases("sqlite", "postgresql")`` run once per database. The PostgreSQL
cases use the server named by ``PLAYBENCH_TEST_DATABASE_URL`` (a SQLAlchemy URL), each in a
schema of its own that is dropped after the test. Without that variable they are skipped,
unless ``CI`` is set: there its absence fails them, so CI never skips them silently.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text

from playbench.core import all_games, registry
from playbench.server import Settings, create_app
from tests.server.tally import Tally

TALLY = Tally()
ENV_TEST_DATABASE = "PLAYBENCH_TEST_DATABASE_URL"
SQLITE = "sqlite"
POSTGRESQL = "postgresql"


def served_slugs() -> list[str]:
    return [game.slug for game in all_games() if game.slug != TALLY.slug] + [TALLY.slug]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "slug" in metafunc.fixturenames:
        metafunc.parametrize("slug", served_slugs())
    marker = metafunc.definition.get_closest_marker("databases")
    if marker is not None and "database" in metafunc.fixturenames:
        metafunc.parametrize("database", marker.args, indirect=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "databases(*names): run the test once per database (sqlite, postgresql)"
    )


@pytest.fixture(autouse=True, scope="package")
def tally_registered() -> Iterator[None]:
    registry.register(TALLY)
    yield
    registry._GAMES.pop(TALLY.slug, None)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An engine on the test PostgreSQL database, for creating and dropping schemas."""
    url = os.environ.get(ENV_TEST_DATABASE)
    if not url:
        reason = f"{ENV_TEST_DATABASE} is not set: no PostgreSQL server to test against"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI must run the PostgreSQL cases; see .ci/postgres)")
        pytest.skip(reason)
    engine = create_engine(url)
    yield engine
    engine.dispose()


@pytest.fixture
def database(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The database URL of the test: None for SQLite in the data folder (the default),
    else a fresh PostgreSQL schema, dropped after the test."""
    if getattr(request, "param", SQLITE) == SQLITE:
        yield None
        return
    admin: Engine = request.getfixturevalue("postgres_admin")
    schema = f"test_{uuid.uuid4().hex}"
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = admin.url.update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture
def settings(tmp_path: Path, database: str | None) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=database)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
