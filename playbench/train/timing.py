"""The server's own time for each OpenEnv call, as a Prometheus histogram.

``playbench_openenv_seconds{game, door, call}`` counts, for every call an OpenEnv app
answers, the seconds from the call reaching the app to its answer leaving it:

- over HTTP (``door="http"``), from the request's arrival at the app to the last byte of
  its answer, ``call`` the route's last segment (``step``, ``reset``, ``state``, ...);
- over the WebSocket (``door="ws"``), from a message's delivery to the app to the next
  message the app sends (OpenEnv answers each message with one), ``call`` the message's
  ``type`` (``step``, ``reset``, ``state``, ``close``).

The time a call waits before it reaches the app (in the socket, or for the event loop
while other calls are answered) is the client's to see: ``benchmarks/rollouts.py`` gives
both.
"""

from __future__ import annotations

import re
import time
from typing import Any

from prometheus_client import Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CALLS = Histogram(
    "playbench_openenv_seconds",
    "seconds an OpenEnv call spent in the server, from reaching the app to its answer",
    ["game", "door", "call"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
)
#: the calls named by a label (any other is ``other``: the label set stays bounded)
NAMED = frozenset({"step", "reset", "state", "close", "health", "schema", "metadata", "mcp"})
OTHER = "other"
#: a WebSocket message's type, read from its head without parsing the whole message
MESSAGE_TYPE = re.compile(r'\s*\{\s*"type"\s*:\s*"([a-z_]{1,16})"')


def call_name(name: str) -> str:
    return name if name in NAMED else OTHER


class CallClock:
    """An ASGI layer over one game's OpenEnv app that times every call it answers."""

    def __init__(self, app: ASGIApp, game: str, clock: Any = time.perf_counter) -> None:
        self.app = app
        self.game = game
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = self.clock()
        call = call_name(scope["path"].rstrip("/").rsplit("/", 1)[-1])
        sample = CALLS.labels(self.game, "http", call)

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                sample.observe(self.clock() - started)

        await self.app(scope, receive, timed_send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        pending: list[tuple[float, str]] = []

        async def timed_receive() -> Message:
            message = await receive()
            if message["type"] == "websocket.receive":
                text = message.get("text") or ""
                found = MESSAGE_TYPE.match(text)
                pending.append((self.clock(), call_name(found.group(1) if found else "")))
            return message

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "websocket.send" and pending:
                started, call = pending.pop(0)
                CALLS.labels(self.game, "ws", call).observe(self.clock() - started)

        await self.app(scope, timed_receive, timed_send)
