"""A real playbench server for the runner and agent tests: uvicorn in a thread on
127.0.0.1 (a free port), over a temporary data folder."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from playbench.server import Settings, create_app

START_SECONDS = 10.0


@contextmanager
def arena(data: Path, **settings: Any) -> Iterator[str]:
    """The URL of a server on a fresh data folder (and ``settings``), for the block."""
    app = create_app(Settings(data_dir=data, **settings))
    config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=START_SECONDS)
        sock.close()


def enrol(url: str, name: str, monkeypatch: Any) -> str:
    """Register player ``name`` on the server at ``url`` and put its key where
    ``playbench run --player`` reads it (``PLAYBENCH_PLAYER_KEY``); the key."""
    import httpx

    reply = httpx.post(f"{url}/api/players", json={"name": name}, timeout=START_SECONDS)
    assert reply.status_code == 201, reply.text
    key = reply.json()["key"]
    monkeypatch.setenv("PLAYBENCH_PLAYER_KEY", key)
    return key
