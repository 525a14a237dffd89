"""The arena server: ``playbench.server:app`` (built on first use from the environment).

The names here are looked up when first used, so that importing a module of this package
(the MCP server uses :mod:`playbench.server.store`) does not build the app's modules.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "app", "create_app", "create_asgi"]

_app: Any = None


def __getattr__(name: str) -> Any:
    global _app
    if name == "app":
        if _app is None:
            from playbench.server.factory import create_asgi

            _app = create_asgi()
        return _app
    if name in ("create_app", "create_asgi"):
        from playbench.server import factory

        return getattr(factory, name)
    if name == "Settings":
        from playbench.server.settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
