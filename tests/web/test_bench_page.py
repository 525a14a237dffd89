"""``/bench`` in Chromium: results put in the data folder are shown once the server has
re-simulated their replays, a result whose replay does not verify is refused, and the
report opens (served, its replays in ``/replay``; and offline, on a phone's width)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from playbench.cli import main
from playbench.core.rng import draw_seed
from playbench.runner.bench import read_bench
from playbench.runner.charts import PIXELS
from tests.web.layout import DESKTOP, PHONE, layout_problems, viewing
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
    suite = {
        "name": "two-games",
        "description": "a drawn pair of seeds",
        "games": {
            slug: {"seeds": f"{seed}-{seed + 1}", "options": {}, "maxSteps": 300, "harness": {}}
            for slug in ("gem-swap", "delvewick")
        },
    }
    (root / "suite.json").write_text(json.dumps(suite))
    data = root / "data"
    good = data / "bench" / "random-two"
    command = ["bench", "--agent", "random", "--suite", str(root / "suite.json")]
    assert main([*command, "--workers", "1", "--out", str(good)]) == 0
    assert main(["report", str(good), "--out", str(good / "report")]) == 0
    tampered = data / "bench" / "tampered"
    shutil.copytree(good, tampered)
    replay = tampered / "gem-swap" / "replays" / f"gem-swap-{seed}.jsonl"
    lines = replay.read_text().splitlines()
    step = json.loads(lines[2])
    step["reward"] += 5
    lines[2] = json.dumps(step)
    replay.write_text("\n".join(lines) + "\n")
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
    expect(page.get_by_test_id("bench-suite")).to_have_attribute("data-suite", "two-games")
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
    record = json.loads((shelf.good / "gem-swap" / "runs.jsonl").read_text().splitlines()[0])
    page.locator("summary", has_text="random").click()  # the episodes' details
    link = page.locator(f'a.replay[data-replay$="gem-swap-{record["seed"]}.jsonl"]')
    link.click()
    served = f"/bench/random-two/files/gem-swap/replays/gem-swap-{record['seed']}.jsonl"
    expect(page).to_have_url(re.compile(re.escape("/replay?src=" + quote(served)) + "$"))
    total = record["steps"]
    expect(page.locator("#position")).to_have_text(f"0 / {total}")
    page.locator("#last").click()
    expect(page.locator("#position")).to_have_text(f"{total} / {total}")
    expect(page.get_by_test_id("score")).to_have_text(str(record["score"]))
    expect(page.locator("#problem")).to_be_hidden()


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
    finally:
        context.close()
