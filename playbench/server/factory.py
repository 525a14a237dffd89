"""The ASGI app: one router per resource, the error handlers, the body limit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from playbench import __version__
from playbench.mcp.http import PATH as MCP_PATH
from playbench.mcp.http import McpHttp
from playbench.server import errors
from playbench.server.middleware import BareEndpoint, BodyLimit
from playbench.server.routes import agent_check, docs, games, leaderboard, sessions
from playbench.server.services import build_services
from playbench.server.settings import Settings

DESCRIPTION = (
    "Deterministic, seeded games for AI agents. The stateless API hands out sealed "
    "states; the session API stores a game per token and plays it by text commands."
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app over ``settings`` (default: from the environment)."""
    settings = settings or Settings.from_env()
    services = build_services(settings)
    mcp_door = McpHttp()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with mcp_door.running():
            yield
        services.close()

    app = FastAPI(
        title="playbench arena", version=__version__, description=DESCRIPTION, lifespan=lifespan
    )
    app.state.services = services
    for module in (games, sessions, agent_check, leaderboard, docs):
        app.include_router(module.router)
    app.add_route(MCP_PATH, mcp_door, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    errors.install(app)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes, extra=errors.puzzle_for)
    return app


def create_asgi(settings: Settings | None = None) -> Any:
    """The app as served: :func:`create_app`, plus the bare endpoint if the benchmark asks."""
    settings = settings or Settings.from_env()
    app = create_app(settings)
    if settings.bench_bare_file is not None:
        return BareEndpoint(app, settings.bench_bare_file.read_bytes())
    return app
