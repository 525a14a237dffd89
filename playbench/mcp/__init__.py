"""The MCP door: playbench's games as Model Context Protocol tools and resources.

:mod:`playbench.mcp.server` builds the server, :mod:`playbench.mcp.matches` holds the
matches it plays, :mod:`playbench.mcp.http` mounts it at ``/mcp`` on the arena app.
Modules here import the SDK as ``mcp`` (absolute imports only: this package is
``playbench.mcp``, never the SDK).
"""
