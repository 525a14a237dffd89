"""Browser tests: the arena's pages in Debian's Chromium, driven by Playwright.

The server is ``playbench serve`` with two worker processes on a free port of 127.0.0.1
and a temporary data folder, so a push must cross workers as it does in production. The
browser is the system's Chromium (``PLAYBENCH_CHROMIUM``, default ``/usr/bin/chromium``);
Playwright never downloads one. Without that browser the tests are skipped, except
under CI, where they fail.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, sync_playwright

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
SERVER_WORKERS = 2
START_SECONDS = 60.0
VIEWPORT = {"width": 1300, "height": 900}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running ``playbench serve --workers 2``."""
    data = tmp_path_factory.mktemp("web-data")
    port = _free_port()
    log = (data / "serve.log").open("w")
    command = [sys.executable, "-m", "playbench.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data", str(data), "--workers", str(SERVER_WORKERS)]
    command += ["--no-access-log", "--log-level", "warning"]
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_SECONDS
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited: {(data / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{base}/api/games", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer within a minute")
            time.sleep(0.1)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = Path(os.environ.get(ENV_CHROMIUM) or DEFAULT_CHROMIUM)
    if not executable.exists():
        message = f"no Chromium at {executable} (set {ENV_CHROMIUM}, or apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A fresh browser context (own cookies and storage) with the server as base URL.
    A script error on the page fails the test, and so does any request to another host
    (it is refused, as it would be offline: the pages use no CDN)."""
    context = browser.new_context(base_url=server, viewport=VIEWPORT)
    elsewhere: list[str] = []

    def only_the_server(route: Route) -> None:
        url = route.request.url
        if url.startswith(f"{server}/") or url.startswith("data:"):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    context.route("**/*", only_the_server)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], errors
    assert elsewhere == [], elsewhere


@pytest.fixture
def api(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=10.0) as client:
        yield client
