"""Pure ASGI wrappers: the request body limit, and the answers the arena's own layers
write themselves (each with the security headers every answer carries)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Scope = dict[str, Any]
ASGIApp = Any
Receive = Callable[[], Awaitable[dict[str, Any]]]
#: more fields for the 413 answer of a request (the agent-check puzzle on act and finish)
Extra = Callable[[Scope], Awaitable[dict[str, Any]]]

TOO_LARGE = 413
#: on every answer (the app's answers get them from ``guards.SecurityHeaders``)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)
JSON_HEADERS = ((b"content-type", b"application/json"), *SECURITY_HEADERS)


async def send_json(send: Any, status: int, body: bytes, *extra: tuple[bytes, bytes]) -> None:
    """Answer ``body`` (JSON bytes) with ``status``, the security headers and ``extra``."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*JSON_HEADERS, (b"content-length", b"%d" % len(body)), *extra],
        }
    )
    await send({"type": "http.response.body", "body": body})


#: a 413 leaves the rest of the body unread: the connection closes after it, so those
#: bytes are never read as a next request (and no request timer runs on them)
CLOSE = (b"connection", b"close")


class BodyLimit:
    """Answers 413 to a request body over ``limit`` bytes, declared or streamed, and closes
    the connection; a route named in ``routes`` (by method and path) has its own limit
    instead."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        extra: Extra | None = None,
        routes: Mapping[tuple[str, str], int] | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.extra = extra
        self.routes = dict(routes or {})

    async def _too_large(self, scope: Scope, send: Any, limit: int) -> None:
        body: dict[str, Any] = {"error": f"request body is over the limit of {limit} bytes"}
        if self.extra is not None:
            body.update(await self.extra(scope))
        await send_json(send, TOO_LARGE, json.dumps(body).encode(), CLOSE)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.routes.get((scope["method"], scope["path"]), self.limit)
        declared = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
                break
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = limit + 1
            if size > limit:
                await self._too_large(scope, send, limit)
                return
            await self.app(scope, receive, send)
            return
        await self._streamed(scope, receive, send, limit)

    async def _streamed(self, scope: Scope, receive: Any, send: Any, limit: int) -> None:
        """No Content-Length (chunked): read the body, counting, before the app sees it."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._too_large(scope, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands on ``body``, already read whole, then the connection's."""
    delivered = False

    async def replay() -> dict[str, Any]:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def read_body(receive: Receive) -> bytes:
    """A request's body, read whole."""
    message = await receive()
    body = message.get("body", b"")
    if not message.get("more_body", False):
        return body
    chunks = [body]
    while message.get("more_body", False):
        message = await receive()
        chunks.append(message.get("body", b""))
    return b"".join(chunks)
