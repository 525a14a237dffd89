"""The play pages speak to a person: words for events, keys and phases, a legend, a hint of
what to click, and controls that rest once the game is over."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.web.test_pages import record, session_id, wait_moves


@pytest.fixture(scope="module")
def server(one_worker_server: str) -> str:
    return one_worker_server


def test_chimestep_says_how_long_until_play_and_holds_the_hop(
    page: Page, api: httpx.Client
) -> None:
    page.goto("/play/chimestep?seed=7")
    wait_moves(page, 0)
    sid = session_id(page)
    expect(page.locator("[data-phase]")).to_have_attribute("data-phase", "Press space to start")
    page.get_by_test_id("board").focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    # the hop is not sent into the intro: the page says how long to wait, in seconds
    expect(page.locator("#messages li.info")).to_have_text(
        re.compile(r"^Wait \d\.\d s: play has not started yet\. Your hop down-left goes")
    )
    expect(page.locator("[data-phase]")).to_have_attribute("data-phase", "Get ready")
    expect(page.locator("[data-countdown]")).to_have_text(re.compile(r"^play starts in \d\.\d s$"))
    expect(page.locator("#fields")).to_contain_text("phase")
    # the world's clock runs on its own; the held hop goes the moment play begins
    expect(page.get_by_test_id("status")).to_have_text("playing", timeout=15_000)
    expect(page.locator("[data-chick]")).to_have_attribute("data-chick", "1,0")
    expect(page.locator("[data-phase]")).to_have_count(0)
    expect(page.locator("#messages li.refused")).to_have_count(0)
    stored = record(api, sid)
    assert stored["observation"]["position"] == {"row": 1, "col": 0}
    keys = page.locator("#keys").inner_text()
    assert "hop up-left" in keys and "upLeft" not in keys and "downRight" not in keys
    assert "← hop up-left" in keys and "↓ hop down-left" in keys


def test_gem_swap_hints_the_clicks_and_rests_its_buttons_once_over(
    page: Page, api: httpx.Client
) -> None:
    page.goto("/play/gem-swap?seed=11")
    wait_moves(page, 0)
    sid = session_id(page)
    expect(page.locator("#guide")).to_contain_text("Click a gem, then a neighbouring gem")
    keys = page.locator("#keys").inner_text()
    assert "h hint" in keys and ": Enter type a command" in keys and "seat reply" not in keys
    board = page.get_by_test_id("board").bounding_box()
    cells = page.locator("[data-cell]").evaluate_all(
        """cells => { const boxes = cells.map(c => c.getBoundingClientRect());
        return [Math.min(...boxes.map(b => b.left)), Math.max(...boxes.map(b => b.right))]; }"""
    )
    assert board is not None
    assert abs((cells[0] + cells[1]) / 2 - (board["x"] + board["width"] / 2)) <= 2
    page.get_by_role("button", name="Moves").click()  # a question: no move made
    expect(page.locator("#messages li").first).to_have_text(
        re.compile(r"^\d+ swaps? can make a line now\. [A-H]\d (right|down)")
    )
    page.get_by_role("button", name="hint", exact=True).click()
    wait_moves(page, 1)
    expect(page.locator("#messages li").first).to_contain_text("the hint cost 50 points")
    answer = record(api, sid)["observation"]["hint"]
    expect(page.locator("#fields")).to_contain_text(f"{answer['swap']} ({answer['gems']} gems)")
    while not (stored := record(api, sid))["gameOver"]:
        swap = next(c for c in stored["commands"] if c.startswith("swap"))
        page.locator("#command").fill(swap)
        page.locator("#command").press("Enter")
        wait_moves(page, stored["moves"] + 1)
    expect(page.get_by_test_id("status")).to_have_text("over")
    for name in ("hint", "moves", "deselect"):
        expect(page.get_by_role("button", name=name)).to_be_disabled()
    expect(page.locator("#command")).to_be_disabled()
    expect(page.locator("#finish-form")).to_be_visible()


def test_delvewick_has_a_legend_and_tells_events_in_words(page: Page) -> None:
    page.goto("/play/delvewick?seed=7")
    wait_moves(page, 0)
    legend = page.locator("#legend")
    expect(legend.locator(".legend-item canvas")).to_have_count(8)
    for words in ("boulder", "gem", "exit, closed", "exit, open", "Oil: your lamp"):
        expect(legend).to_contain_text(words)
    page.get_by_test_id("board").focus()
    page.keyboard.press("ArrowUp")  # into the wall: refused
    expect(page.locator("#messages li.refused")).to_have_count(1)
    refusal = page.locator("#messages li.refused").inner_text()
    assert refusal.startswith("Not done (up): ") and "·" not in refusal


def test_cogcrawl_keys_in_words_a_say_hint_and_a_map_that_fills_the_stage(page: Page) -> None:
    page.goto("/play/cogcrawl?seed=7")
    wait_moves(page, 0)
    keys = page.locator("#keys").inner_text()
    assert "Page Up" in keys and "Page Down" in keys
    assert "PPAGE" not in keys and "NPAGE" not in keys and "{ …" not in keys
    assert "{ type a seat reply (raw JSON)" in keys and "quaff: pick an item" in keys
    expect(page.locator("#say-panel .note")).to_be_visible()
    expect(page.locator("#say-panel .note")).to_contain_text('"say" of a seat reply')
    board = page.get_by_test_id("board").bounding_box()
    canvas = page.locator("#board canvas").bounding_box()
    assert board is not None and canvas is not None
    # the explored rooms in cells of 30 px, not the whole 80 x 21 map in cells of 10
    assert canvas["height"] >= 300 and canvas["width"] <= board["width"]
    # the seat reply box is closed and empty until a person opens it
    expect(page.locator("#raw")).to_be_hidden()
    page.locator("#raw-form summary").click()
    assert page.locator("#raw").input_value() == ""
    page.locator("#raw").fill('{"actions": [{"do": "search"}], "say": "hello"}')
    page.locator("#raw-send").click()
    wait_moves(page, 1)
    expect(page.locator("#say")).to_have_text("hello")
    expect(page.locator("#say-panel .note")).to_be_hidden()
