"""The ASGI app: one router per resource, the error handlers, the body limit, and the
hot action route's fast path in front."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from playbench import __version__
from playbench.core.registry import all_games
from playbench.mcp.http import PATH as MCP_PATH
from playbench.mcp.http import McpHttp
from playbench.mcp.matches import MatchTable
from playbench.server import errors, metrics
from playbench.server.connections import Proxies
from playbench.server.guards import RateLimit, SecurityHeaders
from playbench.server.middleware import ASGIApp, BodyLimit
from playbench.server.routes import (
    agent_check,
    bench,
    docs,
    games,
    human,
    leaderboard,
    missing,
    pages,
    players,
    sessions,
    spectate,
)
from playbench.server.services import Services, build_services
from playbench.server.settings import Settings
from playbench.server.stacks import stop_when_orphaned
from playbench.train.mount import PREFIX as OPENENV_PATH
from playbench.train.mount import OpenEnvMount

#: the arena exports no OpenTelemetry: skip FastAPI's per-request look for a provider
NO_TELEMETRY = {"tracing": False, "metrics": False, "logs": False}
DESCRIPTION = (
    "Deterministic, seeded games for AI agents. The stateless API hands out sealed "
    "states; the session API stores a game per token and plays it by text commands."
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app over ``settings`` (default: from the environment)."""
    settings = settings or Settings.from_env()
    services = build_services(settings)
    matches = MatchTable(
        services.storage,
        per_owner=settings.mcp_matches_per_client,
        total=settings.mcp_matches,
        per_client=settings.mcp_matches_per_address,
    )
    mcp_door = McpHttp(matches, on_sessions=metrics.MCP_SESSIONS.set)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        chores = [
            asyncio.create_task(prune_on_schedule(services)),
            asyncio.create_task(stop_when_orphaned()),
        ]
        try:
            async with mcp_door.running():
                settle_heap()
                yield
        finally:
            for chore in chores:
                chore.cancel()
            services.close()
            metrics.mark_worker_gone()

    def front(inner: ASGIApp) -> ASGIApp:
        acting = sessions.SessionFastPath(
            SecurityHeaders(inner), services=services, limit=settings.max_body_bytes
        )
        fast = games.ActionFastPath(acting, sealer=services.sealer, limit=settings.max_body_bytes)
        limited = errors.Unavailable(
            RateLimit(
                fast,
                per_address=services.addresses,
                per_session=services.session_tokens,
                extra=errors.puzzle_for,
                new_sessions=services.new_sessions,
            )
        )
        operated = metrics.Operations(
            limited,
            ready=metrics.ReadyCheck(services.storage.check_writes),
            sessions=metrics.SessionsCollector(services.storage.session_counts, matches.__len__),
            allowed=Proxies(settings.metrics_allow_ips),
        )
        if not settings.forwarded_allow_ips:
            return operated
        return ProxyHeadersMiddleware(operated, trusted_hosts=list(settings.forwarded_allow_ips))

    app = Arena(
        front=front,
        telemetry=NO_TELEMETRY,
        title="playbench arena",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.services = services
    modules = (
        games,
        sessions,
        players,
        agent_check,
        leaderboard,
        spectate,
        docs,
        human,
        bench,
        pages,
    )
    for module in modules:
        app.include_router(module.router)
    app.add_route(MCP_PATH, mcp_door, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    app.mount(OPENENV_PATH, OpenEnvMount())
    errors.install(app)
    missing.install(app)
    app.add_middleware(
        BodyLimit,
        limit=settings.max_body_bytes,
        extra=errors.puzzle_for,
        routes={("POST", bench.PUBLISH_PATH): settings.max_bench_bytes},
    )
    return app


def settle_heap() -> None:
    """Leave out of every later garbage collection what the worker holds from its start
    to its end (modules, the games' tables, the app): a full collection would otherwise
    walk all of it, pausing every request (about 170 ms a time on two cores, several
    times a second under load), and find nothing to free."""
    all_games()
    gc.collect()
    gc.freeze()


class Arena(FastAPI):
    """FastAPI behind the arena's own layers: the trusted proxies' word on who the client
    is (only with ``--forwarded-allow-ips``), the probes, the scrape and the request
    metrics, the rate limits, then the fast paths of the stateless action and of the
    session act and new (a well-formed request is answered there, before FastAPI's
    routing, error pages and body limit, which every other request passes as usual), then
    the security headers of every answer the framework writes (the layers' own answers
    carry them already)."""

    def __init__(self, *, front: Callable[[ASGIApp], ASGIApp], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.door = front(super().__call__)

    def openapi(self) -> dict[str, Any]:
        """FastAPI's schema, its integer bounds put back exact (FastAPI reads every bound
        as a float, and a seed's 2**63 prints as 9.223372036854776e+18, which a reader
        takes for 9,223,372,036,854,776,000)."""
        if self.openapi_schema is None:
            _exact_bounds(super().openapi())
        return self.openapi_schema  # type: ignore[return-value]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["app"] = self  # as Starlette does: the layers' own answers look up services
        await self.door(scope, receive, send)


BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _exact_bounds(schema: Any) -> None:
    """Every bound of ``schema`` with no fraction written as an integer, in place."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in BOUNDS and isinstance(value, float) and value.is_integer():
                schema[key] = int(value)
            else:
                _exact_bounds(value)
    elif isinstance(schema, list):
        for item in schema:
            _exact_bounds(item)


async def prune_on_schedule(services: Services) -> None:
    """Prune stale sessions and spent puzzles now and then (never when the interval is 0)."""
    every = services.settings.prune_every_minutes * 60
    if every <= 0:
        return
    while True:
        await asyncio.sleep(every)
        await run_in_threadpool(services.prune)


def create_asgi(settings: Settings | None = None) -> Any:
    """The app as every server stack runs it (``playbench.server:app``): the same app the
    tests drive, nothing mounted for benchmarks (they serve their own reference app)."""
    return create_app(settings)
