"""``playbench serve`` in a child process and the system's Chromium, for the browser
tests and the screenshots."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from playbench.server.settings import ENV_RATE_NEW_PER_ADDRESS, ENV_RATE_PER_ADDRESS

#: a two-worker server on a busy shared machine can take more than a minute to start
START_SECONDS = 300.0
ENV_CHROMIUM = "PLAYBENCH_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> Path:
    """Debian's Chromium, or the one ``PLAYBENCH_CHROMIUM`` names (never a download)."""
    return Path(os.environ.get(ENV_CHROMIUM) or DEFAULT_CHROMIUM)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True, slots=True)
class Served:
    """A running ``playbench serve``: its base URL, its process and its log file."""

    base: str
    process: subprocess.Popen
    log_path: Path


@contextmanager
def serve_process(
    data: Path, *args: str, log_name: str = "serve.log", env: dict[str, str] | None = None
) -> Iterator[Served]:
    """``playbench serve ARGS`` on a free port of 127.0.0.1 over ``data`` (its output in
    ``data/log_name``; ``env`` added to this process's environment), stopped (the whole
    process group) on exit."""
    port = free_port()
    log_path = data / log_name
    command = [sys.executable, "-m", "playbench.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data", str(data), *args]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )
        served = Served(f"http://127.0.0.1:{port}", process, log_path)
        try:
            _wait_ready(process, served.base, log_path)
            yield served
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def quiet(workers: int) -> list[str]:
    """The arguments of a server of ``workers`` that logs warnings and errors only."""
    return ["--workers", str(workers), "--no-access-log", "--log-level", "warning"]


@contextmanager
def serving(data: Path, workers: int) -> Iterator[str]:
    """The base URL of ``playbench serve`` with ``workers`` over ``data``."""
    # the pages' tests are many people at one address: a session-scoped server would
    # otherwise refuse their new games and requests past the address's bursts (tests/server
    # test those)
    unlimited = {ENV_RATE_NEW_PER_ADDRESS: "0", ENV_RATE_PER_ADDRESS: "0"}
    with serve_process(data, *quiet(workers), env=unlimited) as served:
        yield served.base


def _wait_ready(process: subprocess.Popen, base: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log_path.read_text()}")
        try:
            # the probe spends no rate-limit token (the tests count them)
            if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not answer within {START_SECONDS:g} s")
        time.sleep(0.1)
