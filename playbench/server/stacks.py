"""The HTTP server stacks that ``playbench serve`` runs the app on.

granian (a Rust HTTP server) serves the arena best on the measured workloads: about the
same CPU per action request as uvicorn with httptools, and a p99 that stays bounded under
overload where uvicorn's reached seconds (see benchmarks/RESULTS.md). uvicorn with
httptools and uvloop, and uvicorn on its pure-Python h11 parser, stay selectable. Every
stack imports the app from ``playbench.server:app`` in each worker, so every worker reads
the same settings from the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

APP = "playbench.server:app"
#: uvicorn's (http, loop) for each uvicorn stack
UVICORN = {"uvicorn": ("httptools", "uvloop"), "h11": ("h11", "asyncio")}


@dataclass(frozen=True, slots=True)
class ServeOptions:
    server: str
    host: str
    port: int
    workers: int
    log_level: str
    access_log: bool
    backlog: int
    keep_alive_seconds: int


def run(options: ServeOptions) -> None:
    """Serve the app until interrupted."""
    if options.server == "granian":
        _granian(options)
    else:
        _uvicorn(options)


def _granian(options: ServeOptions) -> None:
    from granian.constants import Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.log import LogLevels
    from granian.server import Server

    Server(
        APP,
        address=options.host,
        port=options.port,
        interface=Interfaces.ASGI,
        workers=options.workers,
        loop=Loops.uvloop,
        backlog=options.backlog,
        http1_settings=HTTP1Settings(keep_alive=True),
        log_level=LogLevels(options.log_level),
        log_access=options.access_log,
    ).serve()


def _uvicorn(options: ServeOptions) -> None:
    import uvicorn

    http, loop = UVICORN[options.server]
    uvicorn.run(
        APP,
        host=options.host,
        port=options.port,
        workers=options.workers,
        http=http,
        loop=loop,
        log_level=options.log_level,
        access_log=options.access_log,
        backlog=options.backlog,
        timeout_keep_alive=options.keep_alive_seconds,
    )
