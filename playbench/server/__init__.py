"""The arena server: ``playbench.server:app`` (built on first use from the environment)."""

from __future__ import annotations

from typing import Any

from playbench.server.factory import create_app, create_asgi
from playbench.server.settings import Settings

__all__ = ["Settings", "app", "create_app", "create_asgi"]

_app: Any = None


def __getattr__(name: str) -> Any:
    global _app
    if name == "app":
        if _app is None:
            _app = create_asgi()
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
