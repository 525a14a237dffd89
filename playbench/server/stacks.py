"""The HTTP server stacks that ``playbench serve`` runs the app on.

uvicorn with httptools and uvloop is the default: with the connection guards of
:mod:`playbench.server.connections` it bounds what one client can hold (idle and slow
connections time out, a request's head bounded as it arrives, a cap per worker that idle
connections make room under), which granian cannot be told to do (it never
closes a connection that has not sent a byte, nor a request whose body trickles in, and
always names itself in a ``server`` header).
granian stays selectable, with its header timeout set from the same limits, and so does
uvicorn on its pure-Python h11 parser (guarded like the default). No connection cap can
hold on granian: it accepts connections in its Rust runtime and hands the app only
requests (an ASGI scope names the peer, but no event marks a connection opening or
closing, and a connection that never sends a byte never reaches the app), and granian
2.8 has no setting for connections in all or per address (``backpressure`` bounds
requests in flight per worker, not connections held); ``playbench serve`` says so when
it starts granian. Every stack imports the
app from ``playbench.server:app`` in each worker, so every worker reads the same
settings from the environment.

A worker watches the ``playbench serve`` process that started it and stops when that
process is gone (``kill -9`` of the master), so no orphan goes on serving the port.
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass
from typing import Any

from playbench.server.connections import H11_HEAD_BYTES, ConnectionLimits, guarded_protocol
from playbench.server.heads import HEAD_BYTES

APP = "playbench.server:app"
#: uvicorn's (http, loop) for each uvicorn stack
UVICORN = {"uvicorn": ("httptools", "uvloop"), "h11": ("h11", "asyncio")}
#: the pid of the ``playbench serve`` process, for its workers
MASTER_PID_ENV = "PLAYBENCH_SERVE_PID"
#: seconds between a worker's looks at its master, and before it stops the hard way
ORPHAN_CHECK_SECONDS = 0.5
ORPHAN_GRACE_SECONDS = 10.0
#: what ``playbench serve --server granian`` says on stderr as it starts
GRANIAN_UNGUARDED = (
    "on granian only the header timeout (the shorter of --keep-alive and "
    "--request-timeout) and the head's size (64 KiB in all) hold: --max-connections, "
    "--max-connections-per-address and "
    "--max-connections-per-group do not apply, since granian accepts connections in its "
    "own runtime, tells the app only of requests and has no setting for any of these "
    "caps; cap connections per client in a proxy in front, or serve on uvicorn"
)
#: granian's bounds on its header read timeout, in milliseconds
GRANIAN_HEADER_TIMEOUT_MS = (1, 60_000)
#: the smallest read buffer hyper (granian's HTTP/1 parser) takes; a head must fit in it
MIN_BUFFER_BYTES = 8192


@dataclass(frozen=True, slots=True)
class ServeOptions:
    server: str
    host: str
    port: int
    workers: int
    log_level: str
    access_log: bool
    backlog: int
    limits: ConnectionLimits


def run(options: ServeOptions) -> None:
    """Serve the app until interrupted."""
    os.environ[MASTER_PID_ENV] = str(os.getpid())
    if options.server == "granian":
        _granian(options)
    else:
        _uvicorn(options)


def _granian(options: ServeOptions) -> None:
    from granian.constants import Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.log import LogLevels
    from granian.server import Server

    limits = options.limits
    low, high = GRANIAN_HEADER_TIMEOUT_MS
    header_ms = round(min(limits.idle_seconds, limits.request_seconds) * 1000)
    Server(
        APP,
        address=options.host,
        port=options.port,
        interface=Interfaces.ASGI,
        workers=options.workers,
        loop=Loops.uvloop,
        backlog=options.backlog,
        # hyper's read buffer bounds the head: a head past it is answered 431 and closed
        http1_settings=HTTP1Settings(
            keep_alive=True,
            header_read_timeout=max(low, min(high, header_ms)),
            max_buffer_size=max(MIN_BUFFER_BYTES, HEAD_BYTES),
        ),
        log_level=LogLevels(options.log_level),
        log_access=options.access_log,
    ).serve()


#: how long a uvicorn worker may take to answer its master's health check
WORKER_START_SECONDS = 60


def _uvicorn(options: ServeOptions) -> None:
    import uvicorn

    uvicorn.run(APP, **uvicorn_options(options))


def uvicorn_options(options: ServeOptions) -> dict[str, Any]:
    """``uvicorn.run``'s keyword arguments for a uvicorn stack (the benchmarks serve their
    reference apps with the same)."""
    http, loop = UVICORN[options.server]
    return {
        "host": options.host,
        "port": options.port,
        "workers": options.workers,
        "http": guarded_protocol(http, options.limits),
        "loop": loop,
        "log_level": options.log_level,
        "access_log": options.access_log,
        "backlog": options.backlog,
        "timeout_keep_alive": options.limits.idle_seconds,
        "h11_max_incomplete_event_size": H11_HEAD_BYTES,
        "server_header": False,
        # a worker still importing the app on a busy machine is not a hung one: uvicorn's
        # default of 5 s restarted workers that were still starting, over and over
        "timeout_worker_healthcheck": WORKER_START_SECONDS,
        # the app reads X-Forwarded-For itself, from the proxies --forwarded-allow-ips names
        "proxy_headers": False,
    }


async def stop_when_orphaned() -> None:
    """In a worker of ``playbench serve``: once its master is gone, stop this worker
    (SIGTERM, its server's graceful stop; then, if still running, exit)."""
    master = os.environ.get(MASTER_PID_ENV)
    if master is None or int(master) == os.getpid():
        return
    while os.getppid() == int(master):
        await asyncio.sleep(ORPHAN_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.sleep(ORPHAN_GRACE_SECONDS)
    os._exit(1)
