"""The MCP server over streamable HTTP, as a route of the arena app (``/mcp``).

:class:`McpHttp` is the route's ASGI endpoint. Its session manager lives only while the
app runs (:meth:`McpHttp.running`, entered by the app's lifespan); a request outside
that gets a 503 that says so. Sessions and matches live in the serving process, so
``/mcp`` wants one worker or sticky sessions (a match id works from any session of that
process, see :mod:`playbench.mcp.matches`).

What one client can hold is bounded: a client address opens at most ``per_client``
sessions at once (429 past that, saying so), the process at most ``max_sessions``
(the SDK's 503); a session idle for ``idle_seconds`` is closed, and a request body is at
most ``max_body_bytes`` (an ``initialize`` padded to the arena's body limit held half a
megabyte a session).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from playbench.mcp.matches import MatchTable
from playbench.mcp.server import build_server

PATH = "/mcp"
NOT_RUNNING = "the MCP endpoint runs only while the server is up (its lifespan has not started)"
SESSION_HEADER = b"mcp-session-id"
#: defaults: sessions per client address, sessions in all, seconds idle, body bytes
PER_CLIENT = 8
MAX_SESSIONS = 1024
IDLE_SECONDS = 30 * 60
MAX_BODY_BYTES = 64 * 1024
TOO_MANY = 429


class McpHttp:
    """The ``/mcp`` endpoint: the MCP server of one app and its HTTP sessions."""

    def __init__(
        self,
        table: MatchTable | None = None,
        per_client: int = PER_CLIENT,
        max_sessions: int = MAX_SESSIONS,
        idle_seconds: float = IDLE_SECONDS,
        on_sessions: Callable[[int], None] | None = None,
    ) -> None:
        self.table = table if table is not None else MatchTable()
        self.server = build_server(self.table)
        self.per_client = per_client
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        #: told the number of open sessions after each request (the metrics)
        self.on_sessions = on_sessions
        self._manager: StreamableHTTPSessionManager | None = None
        #: the client address of each session this endpoint opened
        self._clients: dict[str, str] = {}
        #: opening requests under way per address (their sessions are not noted yet)
        self._opening: Counter[str] = Counter()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve sessions until the block ends (a session manager runs only once, so each
        run of the app gets a new one)."""
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
                self._clients.clear()

    def open_sessions(self) -> dict[str, str]:
        """The sessions still open, by id, with their client address."""
        manager = self._manager
        live: dict[str, Any] = {} if manager is None else manager._server_instances
        for gone in [session for session in self._clients if session not in live]:
            del self._clients[gone]
        return self._clients

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if manager is None:
            await JSONResponse({"error": NOT_RUNNING}, status_code=503)(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else ""
        opening = scope["method"] == "POST" and not any(
            name == SESSION_HEADER for name, _ in scope["headers"]
        )
        if opening:
            held = sum(1 for owner in self.open_sessions().values() if owner == address)
            if held + self._opening[address] >= self.per_client:
                await self._refuse(scope, receive, send, held)
                return
            send = self._noting(send, address)
            self._opening[address] += 1
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            if opening:
                self._opening[address] -= 1
                if self._opening[address] <= 0:
                    del self._opening[address]
            if self.on_sessions is not None:
                self.on_sessions(len(self.open_sessions()))

    def _noting(self, send: Send, address: str) -> Send:
        """``send``, noting the session id an opening request's answer names."""

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == SESSION_HEADER:
                        self._clients[value.decode("latin-1")] = address
            await send(message)

        return noting

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
