"""Health, readiness and Prometheus metrics, with the official ``prometheus-client``.

- ``GET /healthz``: the process answers (no database read);
- ``GET /readyz``: the database commits a small write (checked at most once a second; 503
  with ``Retry-After`` and a generic reason when not, the driver's message only logged);
- ``GET /metrics``: the Prometheus text format, to the addresses ``--metrics-allow-ips``
  names (the loopback by default; 403 to anyone else).

The three are answered in front of the rate limits, so a scrape or a probe never spends a
client's tokens and a flood never hides the server's health.

Under ``playbench serve`` every worker writes its samples to files in the folder
``PROMETHEUS_MULTIPROC_DIR`` names (``playbench serve`` makes a fresh one before its
workers start), and a scrape of any worker adds up every worker's: the client's
multiprocess mode. Without it (one process, the tests) the samples stay in memory.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.concurrency import run_in_threadpool

from playbench.server.connections import Proxies
from playbench.server.middleware import SECURITY_HEADERS, ASGIApp, Scope, send_json

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: read once, as the client does when it is imported: files shared by workers, or memory
MULTIPROCESS = bool(os.environ.get(MULTIPROC_ENV))
HEALTH_PATH = "/healthz"
#: seconds a readiness verdict stands (a probe flood costs one write a second)
READY_CHECK_SECONDS = 1.0
READY_RETRY_SECONDS = 5
NOT_READY = "the database does not take writes just now"
LOG = logging.getLogger("playbench.server")
READY_PATH = "/readyz"
METRICS_PATH = "/metrics"
#: the action route the fast path answers before the framework routes it
FAST_ROUTE = "/api/games/{slug}/action"
UNMATCHED = "unmatched"
#: the methods counted by name; any other is counted as ``other`` (h11 takes any token)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
OTHER_METHOD = "other"

REQUESTS = Counter(
    "playbench_requests",
    "HTTP requests answered, by route template, method and status",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "playbench_request_seconds",
    "seconds from a request's arrival to the end of its answer, by route template",
    ["route"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
)
REFUSED = Counter(
    "playbench_rate_limited",
    "requests refused 429 by a rate limit, by limit (address, session, new)",
    ["limit"],
)
OPEN_STREAMS = Gauge(
    "playbench_open_streams",
    "spectator event streams open",
    multiprocess_mode="livesum",
)
MCP_SESSIONS = Gauge(
    "playbench_mcp_sessions",
    "MCP sessions open over HTTP on this host",
    multiprocess_mode="livesum",
)
BENCH_CHECKS = Counter(
    "playbench_bench_checks",
    "bench results re-simulated (a result checked before is read from its stored verdict)",
)
BENCH_REPORTS = Counter(
    "playbench_bench_reports",
    "reports of verified bench results drawn, by outcome (drawn, failed)",
    ["outcome"],
)
COMMIT_BATCH = Histogram(
    "playbench_group_commit_batch",
    "write transactions carried by one SQLite group commit",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)


class SessionsCollector(Collector):
    """Stored sessions by state and the live MCP matches (read from the database at each
    scrape, so every process and every host on one database reports the same)."""

    def __init__(
        self, count: Callable[[], dict[str, int]], matches: Callable[[], int] | None = None
    ) -> None:
        self.count = count
        self.matches = matches

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "playbench_sessions", "stored sessions, open (unfinished) or finished", labels=["state"]
        )
        for state, value in sorted(self.count().items()):
            family.add_metric([state], value)
        yield family
        if self.matches is not None:
            yield GaugeMetricFamily(
                "playbench_mcp_matches", "MCP matches live on every host", value=self.matches()
            )


def exposition(extra: Collector | None = None) -> bytes:
    """Every sample of this server (all its workers' under multiprocess mode)."""
    if MULTIPROCESS:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    if extra is not None:
        registry.register(extra)
    return generate_latest(registry)


class _Everything(Collector):
    """The process's default registry, as a collector of another registry."""

    def collect(self) -> Iterable[Any]:
        return REGISTRY.collect()


#: the scope's key where a layer that answers before the framework's routing names the
#: route template it answered for
ANSWERED_ROUTE = "playbench.route"


def route_of(scope: Scope) -> str:
    """The route template a request matched (a bounded label), never its raw path."""
    answered = scope.get(ANSWERED_ROUTE)
    if answered is not None:
        return answered
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    raw = scope.get("path", "")
    if raw.startswith("/api/games/") and raw.endswith("/action"):
        return FAST_ROUTE
    return UNMATCHED


class Operations:
    """The outermost layer: answers the probes and the scrape, and counts every other
    request's route, status and latency."""

    def __init__(
        self,
        app: ASGIApp,
        ready: Callable[[], None],
        sessions: Collector,
        allowed: Proxies,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.app = app
        self.ready = ready
        self.sessions = sessions
        self.allowed = allowed
        self.clock = clock
        #: the samples of each (route, method, status), looked up once (a label lookup
        #: cost more than the counting)
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == HEALTH_PATH:
            await send_json(send, 200, b'{"status":"ok"}')
            return
        if path == READY_PATH:
            await self._ready(send)
            return
        if path == METRICS_PATH:
            await self._metrics(scope, send)
            return
        start = self.clock()
        status = 500

        async def counting(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, counting)
        finally:
            method = scope["method"]
            key = (route_of(scope), method if method in METHODS else OTHER_METHOD, status)
            children = self._children.get(key)
            if children is None:
                route, label, _status = key
                children = REQUESTS.labels(route, label, str(status)), LATENCY.labels(route)
                self._children[key] = children
            children[0].inc()
            children[1].observe(self.clock() - start)

    async def _ready(self, send: Any) -> None:
        try:
            await run_in_threadpool(self.ready)
        except Exception as error:
            LOG.warning("not ready: %s", " ".join(str(error).split()))
            body = _json({"status": "not ready", "error": NOT_READY})
            await send_json(send, 503, body, (b"retry-after", b"%d" % READY_RETRY_SECONDS))
            return
        await send_json(send, 200, b'{"status":"ready"}')

    async def _metrics(self, scope: Scope, send: Any) -> None:
        client = scope.get("client")
        if client is None or client[0] not in self.allowed:
            body = _json({"error": "metrics are served only to the addresses the host allows"})
            await send_json(send, 403, body)
            return
        body = await run_in_threadpool(exposition, self.sessions)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", CONTENT_TYPE_LATEST.encode()),
                    (b"content-length", b"%d" % len(body)),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


class ReadyCheck:
    """``check`` (raising when the database is not ready), run at most once every
    ``seconds``: probes in between, however many, hear the last verdict."""

    def __init__(
        self,
        check: Callable[[], None],
        seconds: float = READY_CHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.check = check
        self.seconds = seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._at = -math.inf
        self._error: Exception | None = None

    def __call__(self) -> None:
        with self._lock:
            if self.clock() - self._at >= self.seconds:
                try:
                    self.check()
                    self._error = None
                except Exception as error:
                    self._error = error
                self._at = self.clock()
            if self._error is not None:
                raise self._error


def mark_worker_gone() -> None:
    """In multiprocess mode, drop this process's live gauges (at its lifespan's end)."""
    if MULTIPROCESS:
        multiprocess.mark_process_dead(os.getpid())
