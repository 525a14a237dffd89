"""The arena's ``/openenv`` mount: every game's OpenEnv environment at
``/openenv/<slug>/...``, built at the first request that reaches it.

``openenv-core`` loads Gradio when it is imported (seconds of CPU), so the arena does
not import it at start: the first request under ``/openenv`` imports it in a worker
thread (the event loop serves everything else meanwhile) and builds one
:func:`~playbench.train.openenv.openenv_app` per registered game. Without the ``train``
extra, every request there is answered 501 with the extra to install.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Mount
from starlette.types import Receive, Scope, Send

from playbench.core.registry import all_games
from playbench.train import TRAIN_EXTRA

#: where the arena mounts the environments
PREFIX = "/openenv"


def _build() -> Starlette | None:
    try:
        from playbench.train.openenv import openenv_app
    except ImportError:
        return None
    from playbench.train.timing import CallClock

    return Starlette(
        routes=[
            Mount(f"/{game.slug}", CallClock(openenv_app(game), game.slug)) for game in all_games()
        ]
    )


class OpenEnvMount:
    """An ASGI app that builds the games' OpenEnv apps once, at its first request."""

    def __init__(self) -> None:
        self.inner: Starlette | None = None
        self.built = False
        self.lock: asyncio.Lock | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return
        if not self.built:
            await self._build()
        if self.inner is None:
            await self._missing(scope, receive, send)
            return
        await self.inner(scope, receive, send)

    async def _build(self) -> None:
        if self.lock is None:
            self.lock = asyncio.Lock()
        async with self.lock:
            if not self.built:
                self.inner = await run_in_threadpool(_build)
                self.built = True

    async def _missing(self, scope: Scope, receive: Receive, send: Send) -> Any:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1011, "reason": TRAIN_EXTRA[:120]})
            return
        await JSONResponse({"error": TRAIN_EXTRA}, status_code=501)(scope, receive, send)
