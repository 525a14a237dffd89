"""The page as a person sees it: one check for every page of the arena (``layout.js``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, Page

CHECK = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")
WORDS = (Path(__file__).parent / "whole_words.js").read_text(encoding="utf-8")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def layout_problems(page: Page) -> list[str]:
    """What is wrong with the page as drawn now: a page wider than its window, something
    cut off or drawn over something else, a panel with nothing in it."""
    return page.evaluate(CHECK)


def broken_words(page: Page) -> tuple[int, list[str]]:
    """How many table headers, cells and cells' labels are shown, and where one of them
    breaks a word across lines or is wider than its box, or anything reaches past the
    window's sides."""
    found = page.evaluate(WORDS)
    return found["read"], found["problems"]


@contextmanager
def viewing(
    browser: Browser, base: str, viewport: dict[str, int], not_found: str | None = None
) -> Iterator[Page]:
    """A fresh page of ``viewport`` on the server; a console error or a script error on it
    fails the caller when the block ends (but the 404 of the page at path ``not_found``,
    which is meant to answer it)."""
    context = browser.new_context(base_url=base, viewport=viewport)
    page = context.new_page()
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        missing = not_found is not None and message.location.get("url") == base + not_found
        if message.type == "error" and not (missing and "404" in message.text):
            errors.append(f"console: {message.text} at {message.location}")

    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(f"script: {error}"))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], errors
