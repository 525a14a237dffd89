"""A game's API page read at a desktop's and a phone's width: names and code never broken
inside a word, nothing wider than its box; and the one 404 page a browser gets, where a
client that asks for JSON gets the API's error."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, expect

from playbench.core import all_games
from tests.web.layout import DESKTOP, PHONE, viewing

#: what a browser sends when it opens an address
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
MISSING = ["/nosuch", "/docs/api/nosuch", "/replay/deadbeef", "/watch/deadbeef", "/play/nosuch"]

#: code of one word drawn over more than one line; anything drawn past its box's edge
#: (a box that scrolls its own content is a box, not a spill)
BROKEN = """() => {
  const broken = [];
  for (const code of document.querySelectorAll("main code")) {
    const word = !/[\\s]/.test(code.textContent) && code.textContent.length < 40;
    if (word && code.getClientRects().length > 1) broken.push(code.textContent);
  }
  const spills = [];
  for (const box of document.querySelectorAll("main, main *")) {
    const style = getComputedStyle(box);
    const scrolls = ["auto", "scroll"].includes(style.overflowX);
    if (!scrolls && box.clientWidth > 0 && box.scrollWidth > box.clientWidth + 1) {
      spills.push(`${box.tagName} ${box.textContent.slice(0, 40)}`);
    }
  }
  const page = document.documentElement.scrollWidth <= innerWidth;
  return { broken, spills, page };
}"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_api_pages_keep_names_whole_and_inside_their_boxes(
    browser: Browser, one_worker_server: str, viewport: dict[str, int]
) -> None:
    with viewing(browser, one_worker_server, viewport) as page:
        for game in all_games():
            page.goto(f"/docs/api/{game.slug}")
            expect(page.locator("main h2").first).to_be_visible()
            found = page.evaluate(BROKEN)
            assert found == {"broken": [], "spills": [], "page": True}, (game.slug, found)


@pytest.mark.parametrize("path", MISSING)
def test_a_404_is_a_page_for_a_browser_and_json_for_a_client(
    browser: Browser, one_worker_server: str, path: str
) -> None:
    with viewing(browser, one_worker_server, DESKTOP, not_found=path) as page:
        answer = page.goto(path)
        assert answer is not None and answer.status == 404
        expect(page.locator("h1")).to_have_text("Not here")
        expect(page.locator("main a[href='/']")).to_be_visible()
    for accept in ("application/json", "*/*", None):
        headers = {"Accept": accept} if accept else {}
        client = httpx.get(f"{one_worker_server}{path}", headers=headers, timeout=10.0)
        assert client.status_code == 404, (path, accept)
        assert client.headers["content-type"].startswith("application/json"), (path, accept)
        assert client.json()["error"], (path, accept)
        assert client.json()["error"] != "Not Found", (path, accept)  # it says what is not
    html = httpx.get(f"{one_worker_server}{path}", headers={"Accept": BROWSER_ACCEPT})
    assert html.status_code == 404 and html.headers["content-type"].startswith("text/html")
