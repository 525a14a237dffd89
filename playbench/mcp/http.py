"""The MCP server over streamable HTTP, as a route of the arena app (``/mcp``).

:class:`McpHttp` is the route's ASGI endpoint. Its session manager lives only while the
app runs (:meth:`McpHttp.running`, entered by the app's lifespan); a request outside
that gets a 503 that says so. A session lives in the host that opened it (the SDK keeps
its streams in memory: route a session's requests to its host, by ``Mcp-Session-Id``),
but its matches live in the database, so a match id works from any session on any host
(:mod:`playbench.mcp.matches`).

What one client can hold is bounded: a client address opens at most ``per_client``
sessions at once, counted over every host on the database (429 past that, saying so),
a process at most ``max_sessions`` (the SDK's 503); a session idle for ``idle_seconds``
is closed, and a request body is at most ``max_body_bytes`` (an ``initialize`` padded to
the arena's body limit held half a megabyte a session).

The endpoint counts its sessions itself, from what the SDK answers: a session is open
from the answer that names it until a ``DELETE`` of it succeeds, a request naming it is
answered 404 (the SDK forgot it), or it has been idle for ``idle_seconds`` (the SDK
closes it then). Each is a row of ``mcp_sessions`` with its address and when it was last
seen (refreshed at most every ``idle_seconds / 10``), so a host that stops without
closing its sessions holds their places only until they would have idled out.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from playbench.mcp.matches import MatchTable
from playbench.mcp.server import build_server
from playbench.server.store import ADDRESS_CHARS, Storage

PATH = "/mcp"
NOT_RUNNING = "the MCP endpoint runs only while the server is up (its lifespan has not started)"
SESSION_HEADER = b"mcp-session-id"
#: defaults: sessions per client address, sessions in all, seconds idle, body bytes
PER_CLIENT = 8
MAX_SESSIONS = 1024
IDLE_SECONDS = 30 * 60
MAX_BODY_BYTES = 64 * 1024
TOO_MANY = 429
NOT_FOUND = 404
#: a session's row is refreshed when it was last seen this share of the idle time ago
SEEN_SHARE = 10
#: the id of a place held for a session being opened
OPENING_PREFIX = "opening:"


class SessionBook:
    """The MCP sessions of every host on the database, by client address."""

    def __init__(
        self,
        storage: Storage,
        per_client: int,
        idle_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self.per_client = per_client
        self.idle_seconds = idle_seconds
        self.clock = clock
        storage.make_mcp_locks()

    def hold(self, client: str) -> tuple[str | None, int]:
        """Hold a place for a session from ``client``: its id (None when the address is
        at its cap) and the sessions the address held before."""
        now = self.clock()
        place = OPENING_PREFIX + secrets.token_hex(16)
        client = client[:ADDRESS_CHARS]  # what a trusted proxy named may be any text
        # a row is refreshed at most every tenth of the idle time: it outlives the session
        expired = now - self.idle_seconds * (1 + 1 / SEEN_SHARE)
        held, before = self.storage.hold_mcp_session(place, client, now, expired, self.per_client)
        return (place if held else None), before

    def name(self, place: str, session_id: str) -> None:
        """The place ``place`` is the session ``session_id`` now."""
        self.storage.rename_mcp_session(place, session_id)

    def seen(self, session_id: str) -> None:
        self.storage.touch_mcp_session(session_id, self.clock())

    def release(self, *ids: str) -> None:
        self.storage.release_mcp_sessions(ids)


class McpHttp:
    """The ``/mcp`` endpoint: the MCP server of one app and its HTTP sessions."""

    def __init__(
        self,
        table: MatchTable,
        per_client: int = PER_CLIENT,
        max_sessions: int = MAX_SESSIONS,
        idle_seconds: float = IDLE_SECONDS,
        on_sessions: Callable[[int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.table = table
        self.server = build_server(table)
        self.book = SessionBook(table.storage, per_client, idle_seconds)
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        #: told the number of sessions open in this process after each request (metrics)
        self.on_sessions = on_sessions
        self.clock = clock
        self._manager: StreamableHTTPSessionManager | None = None
        #: this process's open sessions: when each was last used, and last noted in the book
        self._open: dict[str, list[float]] = {}

    @property
    def per_client(self) -> int:
        return self.book.per_client

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve sessions until the block ends (a session manager runs only once, so each
        run of the app gets a new one); the sessions still open are released after."""
        # the arena answers any Host, as its other routes do; no DNS-rebinding allow-list
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_sessions=self.max_sessions,
            session_idle_timeout=self.idle_seconds,
            max_request_body_size=MAX_BODY_BYTES,
        )
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None
                closing = list(self._open)
                self._open.clear()
                await run_in_threadpool(self.book.release, *closing)

    def open_sessions(self) -> int:
        """The sessions open in this process (the idle ones dropped)."""
        idle = [
            session
            for session, (used, _noted) in self._open.items()
            if self.clock() - used >= self.idle_seconds
        ]
        for session in idle:
            del self._open[session]
        return len(self._open)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if manager is None:
            await JSONResponse({"error": NOT_RUNNING}, status_code=503)(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else ""
        session = next(
            (value.decode("latin-1") for name, value in scope["headers"] if name == SESSION_HEADER),
            None,
        )
        place = None
        if session is None and scope["method"] == "POST":
            place, held = await run_in_threadpool(self.book.hold, address)
            if place is None:
                await self._refuse(scope, receive, send, held)
                return
        answer = Answer(send)
        try:
            await manager.handle_request(scope, receive, answer)
        finally:
            await self._after(scope["method"], session, place, answer)
            if self.on_sessions is not None:
                self.on_sessions(self.open_sessions())

    async def _after(
        self, method: str, session: str | None, place: str | None, answer: Answer
    ) -> None:
        """Note what the answer did to the sessions: opened one, closed one, or used one."""
        now = self.clock()
        if place is not None:
            opened = answer.session if answer.status < 400 else None
            if opened is None:
                await run_in_threadpool(self.book.release, place)
            else:
                self._open[opened] = [now, now]
                await run_in_threadpool(self.book.name, place, opened)
            return
        if session is None:
            return
        closed = answer.status == NOT_FOUND or (method == "DELETE" and answer.status < 400)
        if closed:
            self._open.pop(session, None)
            await run_in_threadpool(self.book.release, session)
            return
        times = self._open.get(session)
        if times is not None:
            times[0] = now
            if now - times[1] >= self.idle_seconds / SEEN_SHARE:
                times[1] = now
                await run_in_threadpool(self.book.seen, session)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, held: int) -> None:
        message = (
            f"this address already has {held} MCP sessions open, the most it may: close one "
            f"(DELETE /mcp) or reuse it; an idle one closes after {self.idle_seconds / 60:g} "
            "minutes"
        )
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}
        await JSONResponse(body, status_code=TOO_MANY, headers={"Retry-After": "60"})(
            scope, receive, send
        )


class Answer:
    """``send``, noting the status of the answer and the session id it names."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.status = 500
        self.session: str | None = None

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            for name, value in message.get("headers", []):
                if name.lower() == SESSION_HEADER:
                    self.session = value.decode("latin-1")
        await self.send(message)
