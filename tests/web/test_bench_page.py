"""``/bench`` in Chromium: results put in the data folder are shown once the server has
re-simulated their replays, a result whose replay does not verify is refused, and the
report opens (served, its replays in ``/replay``; and offline, on a phone's width)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from playbench.cli import main
from playbench.core.rng import draw_seed
from playbench.runner.bench import read_bench
from playbench.runner.charts import PIXELS
from tests.benches import change_a_line, small_bench
from tests.web.layout import DESKTOP, PHONE, layout_problems, viewing
from tests.web.reports import follow_a_replay_link
from tests.web.serving import serving


@dataclass(frozen=True)
class Shelf:
    data: Path
    good: Path
    seeds: list[int]


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Shelf:
    """A random agent's bench on two drawn seeds (its report beside it), and a copy of it
    with one replay's reward changed."""
    root = tmp_path_factory.mktemp("bench-shelf")
    seed = draw_seed() // 2
    data = root / "data"
    good = data / "bench" / "random-two"
    games = ("gem-swap", "delvewick")
    small_bench(root / "two-games.json", good, games, f"{seed}-{seed + 1}", 300)
    assert main(["report", str(good), "--out", str(good / "report")]) == 0
    tampered = data / "bench" / "tampered"
    shutil.copytree(good, tampered)
    change_a_line(tampered / "gem-swap" / "replays" / f"gem-swap-{seed}.jsonl", 2, "reward", 5)
    return Shelf(data, good, [seed, seed + 1])


@pytest.fixture(scope="module")
def server(shelf: Shelf) -> Iterator[str]:
    with serving(shelf.data, workers=1) as base:
        yield base


def test_the_page_shows_only_the_result_that_verifies(page: Page, shelf: Shelf, server: str):
    bench = read_bench(shelf.good)
    page.goto("/bench")
    rows = page.get_by_test_id("bench-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-id", "random-two")
    expect(rows.first.get_by_test_id("headline")).to_have_text(
        f"{bench['headline']['meanProgress']:.3f}"
    )
    gem_swap = bench["games"]["gem-swap"]
    expect(rows.first.locator('td[data-game="gem-swap"]')).to_contain_text(
        f"{gem_swap['meanProgress']:.3f}"
    )
    unofficial = page.get_by_test_id("bench-unofficial")
    expect(unofficial).to_have_attribute("data-hash", bench["suite"]["hash"])
    expect(unofficial).to_contain_text("unofficial")
    expect(page.get_by_test_id("bench-suite")).to_have_count(0)
    refused = page.get_by_test_id("bench-refused")
    expect(refused).to_contain_text("tampered")
    expect(refused).to_contain_text(f"gem-swap-{shelf.seeds[0]}.jsonl")
    expect(refused).not_to_contain_text(str(shelf.data))
    answer = httpx.get(f"{server}/api/bench").json()
    assert [result["id"] for result in answer["results"]] == ["random-two"]
    assert answer["results"][0]["headline"] == bench["headline"]
    assert [item["id"] for item in answer["refused"]] == ["tampered"]
    assert "step 2" in answer["refused"][0]["problem"]
    for path in ("report/", "files/gem-swap/replays/gem-swap-0.jsonl"):
        assert httpx.get(f"{server}/bench/tampered/{path}").status_code == 404


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_fits_a_desktop_and_a_phone(browser: Browser, server: str, viewport):
    with viewing(browser, server, viewport) as page:
        page.goto("/bench")
        expect(page.get_by_test_id("bench-row")).to_have_count(1)
        assert layout_problems(page) == []


def test_the_report_opens_and_its_replays_play_in_the_replay_page(page: Page, shelf: Shelf):
    page.goto("/bench")
    page.get_by_role("link", name="report").click()
    expect(page.locator("h1")).to_have_text("playbench report")
    images = page.locator("img")
    expect(images).to_have_count(2 + 2)  # headline, progress and a score spread per game
    follow_a_replay_link(page, "random-two", shelf.good, "random", "gem-swap")


def test_the_report_file_works_offline_on_a_phone(browser: Browser, shelf: Shelf):
    context = browser.new_context(viewport=PHONE, offline=True)
    try:
        page = context.new_page()
        page.goto((shelf.good / "report" / "index.html").as_uri())
        expect(page.locator("h1")).to_have_text("playbench report")
        widths = page.locator("img").evaluate_all(
            "images => images.map(image => image.complete ? image.naturalWidth : 0)"
        )
        assert widths == [PIXELS[0]] * 4
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        # the tables fit the phone's width themselves (no sideways scroll inside them)
        page.locator("summary", has_text="random").click()
        for table in ("headline", "episodes"):
            inside = page.get_by_test_id(table).evaluate(
                "t => t.scrollWidth - t.parentElement.clientWidth"
            )
            assert inside <= 0, (table, inside)
        # opened as a file, a replay link is the replay file itself, and it opens
        link = page.locator("a.replay").first
        href = link.get_attribute("href") or ""
        assert href.endswith(".jsonl") and (shelf.good / "report" / href).resolve().is_file()
        expect(page.locator("#episodes + p")).to_contain_text("Opened as a file")
    finally:
        context.close()
