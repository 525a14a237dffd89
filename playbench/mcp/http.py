"""The MCP server over streamable HTTP, as a route of the arena app (``/mcp``).

:class:`McpHttp` is the route's ASGI endpoint. Its session manager lives only while the
app runs (:meth:`McpHttp.running`, entered by the app's lifespan); a request outside
that gets a 503 that says so. Matches belong to the MCP session that made them (see
:mod:`playbench.mcp.matches`). Sessions live in the serving process, so ``/mcp`` wants
one worker or sticky sessions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from playbench.mcp.matches import MatchTable
from playbench.mcp.server import build_server

PATH = "/mcp"
NOT_RUNNING = "the MCP endpoint runs only while the server is up (its lifespan has not started)"


class McpHttp:
    """The ``/mcp`` endpoint: the MCP server of one app and its HTTP sessions."""

    def __init__(self, table: MatchTable | None = None) -> None:
        self.table = table if table is not None else MatchTable()
        self.server = build_server(self.table)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve sessions until the block ends (a session manager runs only once, so each
        run of the app gets a new one)."""
        # the arena answers any Host, as its other routes do; no DNS-rebinding allow-list
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if manager is None:
            await JSONResponse({"error": NOT_RUNNING}, status_code=503)(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)
