"""The report ``playbench report`` writes, drawn from the shipped results (the random
agent's and the bot's, ``docs/bench/``), read in Chromium on two phones and a desktop:
every table header, cell and cell label keeps its words whole, nothing is wider than its
box or the window, and the page passes the arena's own layout check."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from playbench.cli import main
from tests.web.layout import DESKTOP, broken_words, layout_problems

SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "bench"
PHONES = {"390x844": {"width": 390, "height": 844}, "360x740": {"width": 360, "height": 740}}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report"
    assert main(["report", str(SHIPPED / "random"), str(SHIPPED / "bot"), "--out", str(out)]) == 0
    return out / "index.html"


@contextmanager
def _opened(
    browser: Browser, report: Path, viewport: dict[str, int], phone: bool
) -> Iterator[Page]:
    context = browser.new_context(viewport=viewport, has_touch=phone, is_mobile=phone, offline=True)
    try:
        page = context.new_page()
        page.goto(report.as_uri())
        expect(page.locator("h1")).to_have_text("playbench report")
        for summary in page.locator("summary").all():  # every agent's episodes, opened
            summary.click()
        expect(page.locator("details[open]")).to_have_count(2)
        yield page
    finally:
        context.close()


@pytest.mark.parametrize("size", PHONES)
def test_on_a_phone_every_table_reads_as_labelled_rows_of_whole_words(
    browser: Browser, report: Path, size: str
):
    with _opened(browser, report, PHONES[size], phone=True) as page:
        read, problems = broken_words(page)
        assert problems == []
        assert layout_problems(page) == []
        # the rows stand as cards: no header row, each value beside its column's name
        expect(page.locator("th").first).to_be_hidden()
        labels = page.locator("td .label")
        assert read > 0 and read == 2 * labels.count()  # every cell shows its label
        first = page.get_by_test_id("headline").locator("tbody tr").first
        expect(first.locator("td").nth(1)).to_have_text("normalised score0.000")
        episode = page.get_by_test_id("episodes").first.locator("tbody tr").first
        expect(episode.locator(".label")).to_have_text(
            ["game", "seed", "score", "progress", "outcome", "replay"]
        )


def test_on_a_desktop_the_headers_stand_above_whole_words(browser: Browser, report: Path):
    with _opened(browser, report, DESKTOP, phone=False) as page:
        read, problems = broken_words(page)
        assert problems == []
        assert layout_problems(page) == []
        expect(page.locator("td .label").first).to_be_hidden()
        heads = page.get_by_test_id("headline").locator("th")
        expect(heads).to_have_text(
            [
                *["agent", "normalised score", "95% interval", "mean progress", "95% interval"],
                *["episodes", "played by"],
            ]
        )
        assert read == page.locator("th, td").count()


def test_the_check_sees_a_header_broken_mid_word(browser: Browser, report: Path):
    """The report squeezed as it was once drawn (columns narrower than their words, any
    break allowed): the check finds the broken words."""
    with _opened(browser, report, DESKTOP, phone=False) as page:
        page.add_style_tag(
            content="table { width: 300px !important; table-layout: fixed; }"
            " th, td, .word { overflow-wrap: anywhere; white-space: normal !important; }"
        )
        _read, problems = broken_words(page)
        assert any('th "normalised score": "normalised" is broken' in line for line in problems)
