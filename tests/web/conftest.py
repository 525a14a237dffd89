"""Browser tests: the arena's pages in Debian's Chromium, driven by Playwright.

The server is ``playbench serve`` with two worker processes on a free port of 127.0.0.1
and a temporary data folder, so a push must cross workers as it does in production. The
browser is the system's Chromium (``PLAYBENCH_CHROMIUM``, default ``/usr/bin/chromium``);
Playwright never downloads one. Without that browser the tests are skipped, except
under CI, where they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect, sync_playwright

from tests.web.serving import CHROMIUM_ARGS, ENV_CHROMIUM, chromium_path, serving

SERVER_WORKERS = 2
#: how long a wait on the page may last before the test fails: a bound for a page that
#: never gets there, not a pace; every wait is on an event or a state of the page, and a
#: busy machine only makes it come later (Playwright's own default is 5 s)
WAIT_MS = 120_000
expect.set_options(timeout=WAIT_MS)
VIEWPORT = {"width": 1300, "height": 900}
#: a phone held upright, as the touch tests play
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running ``playbench serve --workers 2``."""
    with serving(tmp_path_factory.mktemp("web-data"), SERVER_WORKERS) as base:
        yield base


@pytest.fixture(scope="session")
def one_worker_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of one worker, for pages that are looked at and played, not pushed to
    across workers (a worker starts faster on a busy machine)."""
    with serving(tmp_path_factory.mktemp("one-worker-data"), 1) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium under Playwright, one for each test module. Not one for the whole run:
    Playwright's sync API keeps an event loop running in this thread while it is open, and
    a test of another folder run after these (``asyncio.run``, ``anyio.run``) would find it."""
    executable = chromium_path()
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
    yield from _guarded(browser.new_context(base_url=server, viewport=VIEWPORT), server)


@pytest.fixture
def phone(browser: Browser, one_worker_server: str) -> Iterator[Page]:
    """As ``page``, on a touch screen 390x844 (a phone's), over the one-worker server."""
    context = browser.new_context(
        base_url=one_worker_server, viewport=PHONE, has_touch=True, is_mobile=True
    )
    yield from _guarded(context, one_worker_server)


def _guarded(context: BrowserContext, server: str) -> Iterator[Page]:
    elsewhere: list[str] = []

    def only_the_server(route: Route) -> None:
        url = route.request.url
        if url.startswith(f"{server}/") or url.startswith("data:"):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    context.set_default_timeout(WAIT_MS)
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
