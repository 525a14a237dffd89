"""Pure ASGI guards around the app: rate limits and the security headers of every answer.

Rate limits are token buckets, one per client address and one per session token (the
``Authorization`` bearer or the browser's session cookie), and for session ``new`` one
more per address, all shared by every process and host on the database
(:mod:`playbench.server.quota`). A request finding its bucket empty is answered 429 with
``Retry-After`` (whole seconds) and never reaches the app. The defaults are far above
what an honest agent or a person sends; a rate of 0 turns a limit off.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from playbench.core.errors import UnknownGameError
from playbench.core.registry import get_game
from playbench.server.metrics import REFUSED
from playbench.server.middleware import SECURITY_HEADERS, ASGIApp, Extra, Scope, send_json

TOO_MANY = 429
SESSION_COOKIE_PREFIX = b"playbench_"
#: session ``new``: ``POST /games/{slug}/api/new``
NEW_PREFIX = "/games/"
NEW_SUFFIX = "/api/new"

#: on HTML answers: everything from this origin only (no CDN), inline styles for the docs
CONTENT_SECURITY_POLICY = (
    b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    b"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
    b"form-action 'self'"
)


@dataclass(frozen=True, slots=True)
class Rate:
    """``per_second`` tokens flow in, up to ``burst``; 0 per second is no limit."""

    per_second: float
    burst: float

    @property
    def on(self) -> bool:
        return self.per_second > 0


class Limiter(Protocol):
    """Token buckets by key (:class:`playbench.server.quota.SharedBuckets`)."""

    def take_here(self, key: str) -> float | None:
        """0.0: a token was taken; more: the seconds to wait; None: ask :meth:`take`."""

    def take(self, key: str) -> float:
        """0.0: a token was taken; more: the seconds to wait (blocking)."""


async def take(limiter: Limiter, key: str) -> float:
    """A token of ``limiter`` for ``key``: from memory when it can, else from the database
    in a worker thread."""
    wait = limiter.take_here(key)
    if wait is None:
        wait = await run_in_threadpool(limiter.take, key)
    return wait


def _session_key(scope: Scope) -> str | None:
    """A hash of the session token the request carries, if any."""
    for name, value in scope["headers"]:
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return hashlib.sha256(value[7:].strip()).hexdigest()
        if name == b"cookie" and SESSION_COOKIE_PREFIX in value:
            for part in value.split(b";"):
                key, _, token = part.strip().partition(b"=")
                if key.startswith(SESSION_COOKIE_PREFIX) and token:
                    return hashlib.sha256(token).hexdigest()
    return None


class RateLimit:
    """429 with ``Retry-After`` once a client address or a session token sends too fast."""

    def __init__(
        self,
        app: ASGIApp,
        per_address: Limiter | None,
        per_session: Limiter | None,
        extra: Extra | None = None,
        new_sessions: Limiter | None = None,
    ) -> None:
        self.app = app
        self.addresses = per_address
        self.sessions = per_session
        self.extra = extra
        #: session ``new`` per address (taken only for a game that exists)
        self.new_sessions = new_sessions

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wait = 0.0
        limit = "address"
        client = scope.get("client")
        address = client[0] if client else ""
        if self.addresses is not None:
            wait = await take(self.addresses, address)
        if not wait and self.sessions is not None:
            key = _session_key(scope)
            if key is not None:
                wait = await take(self.sessions, key)
                limit = "session"
        if not wait and self.new_sessions is not None and _is_new(scope):
            wait = await take(self.new_sessions, address)
            limit = "new"
        if wait:
            REFUSED.labels(limit).inc()
            await self._refuse(scope, send, wait, limit == "new")
            return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Any, wait: float, new: bool = False) -> None:
        seconds = max(1, math.ceil(wait))
        what = "new sessions from this address" if new else "requests"
        body: dict[str, Any] = {
            "error": f"too many {what}: slow down and retry in {seconds} s",
            "retryAfter": seconds,
        }
        if self.extra is not None:
            body.update(await self.extra(scope))
        retry = (b"retry-after", b"%d" % seconds)
        await send_json(send, TOO_MANY, json.dumps(body).encode(), retry)


def _is_new(scope: Scope) -> bool:
    """A session ``new`` of a game that exists (one of an unknown game is answered 404
    and spends no token)."""
    path = scope.get("path", "")
    if scope["method"] != "POST" or not path.startswith(NEW_PREFIX):
        return False
    slug, suffix = path[len(NEW_PREFIX) :].partition("/")[::2]
    if "/" + suffix != NEW_SUFFIX:
        return False
    try:
        get_game(slug)
    except UnknownGameError:
        return False
    return True


class SecurityHeaders:
    """Adds the security headers to every answer, a CSP to HTML ones, and drops any
    ``server`` header the app set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                present = {k.lower() for k, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                html = any(
                    k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers
                )
                if html and b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
