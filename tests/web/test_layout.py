"""Every page at a desktop's width and a phone's: nothing wider than the window, nothing cut
off or drawn over something else, no console error, no empty panel."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from playbench.core.registry import all_games
from tests.server.helpers import Player
from tests.web.layout import DESKTOP, PHONE, layout_problems, viewing

SLUGS = [game.slug for game in all_games()]


@pytest.fixture(scope="module")
def server(one_worker_server: str) -> str:
    return one_worker_server


@dataclass(frozen=True)
class Sessions:
    """Sessions the pages show: three being played (ranked, so their replays are hidden;
    their live chips fill two lines on the home page), one practice game with a few moves,
    one finished and ranked."""

    playing: str
    practice: str
    finished_slug: str


@pytest.fixture(scope="module")
def sessions(server: str) -> Sessions:
    with httpx.Client(base_url=server, timeout=10.0) as client:
        for name in ("someone with a long name", "another long player name", "Ada"):
            ranked = Player(client, "delvewick", seed=None, player=name)  # type: ignore[arg-type]
            assert ranked.act("down").status_code == 200
        practice = Player(client, "gem-swap", seed=7)  # type: ignore[arg-type]
        for command in ("swap D2 right", "hint", "swap A3 down"):
            assert practice.act(command).json()["results"][0]["ok"]
        done = Player(client, "gem-swap", seed=None, player="Ada")  # type: ignore[arg-type]
        while not done.last.get("gameOver"):
            swap = next(c for c in done.last["commands"] if c.startswith("swap"))
            done.act(swap)
        finished = done.post("finish", {"rating": 8, "review": "a fine match-3 " * 10})
        assert finished.status_code == 200, finished.text
    return Sessions(ranked.last["sessionId"], practice.last["sessionId"], "gem-swap")


def _moves(page: Page, moves: int) -> None:
    expect(page.get_by_test_id("board")).to_have_attribute("data-moves", str(moves))


def _home(page: Page, _: Sessions) -> None:
    page.goto("/")
    expect(page.locator("[data-thumb] canvas, [data-thumb] svg")).to_have_count(len(SLUGS))
    expect(page.locator('[data-live="delvewick"] a').nth(2)).to_be_visible()
    # the cards of a row have their buttons on one line, live chips or not
    rows: dict[int, set[int]] = {}
    for card in page.get_by_test_id("game-card").all():
        top = round(card.bounding_box()["y"])  # type: ignore[index]
        links = round(card.locator(".card-links").bounding_box()["y"])  # type: ignore[index]
        rows.setdefault(top, set()).add(links)
    assert all(len(tops) == 1 for tops in rows.values()), rows


def _play(slug: str) -> Callable[[Page, Sessions], None]:
    def visit(page: Page, _: Sessions) -> None:
        page.goto(f"/play/{slug}?seed=7")
        _moves(page, 0)

    return visit


def _watch(page: Page, sessions: Sessions) -> None:
    page.goto(f"/watch/{sessions.playing}")
    _moves(page, 1)


def _replay(page: Page, sessions: Sessions) -> None:
    page.goto(f"/replay/{sessions.practice}")
    expect(page.locator("#position")).to_have_text("0 / 3")


def _replay_file(page: Page, _: Sessions) -> None:
    page.goto("/replay")


def _leaderboard(page: Page, sessions: Sessions) -> None:
    page.goto(f"/leaderboard/{sessions.finished_slug}")
    expect(page.get_by_test_id("leaderboard-row")).to_have_count(1)


def _swagger(page: Page, _: Sessions) -> None:
    page.goto("/docs")
    expect(page.locator(".swagger-ui .title")).to_contain_text("playbench arena")
    expect(page.locator('nav.arena-bar a[href="/"]')).to_have_text("← playbench arena")


def _api_page(page: Page, _: Sessions) -> None:
    page.goto("/docs/api/cogcrawl")
    expect(page.locator('header.top a.brand[href="/"]')).to_be_visible()


def _bench(page: Page, _: Sessions) -> None:
    page.goto("/bench")
    expect(page.locator("h1")).to_be_visible()
    page.wait_for_load_state("networkidle")


def _bench_play(page: Page, _: Sessions) -> None:
    page.goto("/bench/play/quick")
    expect(page.get_by_test_id("episode")).to_have_count(12)


MISSING = "/play/no-such-game"


def _missing(page: Page, _: Sessions) -> None:
    page.goto(MISSING)
    expect(page.locator("h1")).to_have_text("Not here")


PAGES: dict[str, Callable[[Page, Sessions], None]] = {
    "home": _home,
    **{f"play-{slug}": _play(slug) for slug in SLUGS},
    "watch": _watch,
    "replay": _replay,
    "replay-file": _replay_file,
    "leaderboard": _leaderboard,
    "bench": _bench,
    "bench-play": _bench_play,
    "docs": _swagger,
    "docs-api": _api_page,
    "missing": _missing,
}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("name", list(PAGES))
def test_page_fits_its_window(
    browser: Browser, server: str, sessions: Sessions, name: str, viewport: dict[str, int]
) -> None:
    with viewing(browser, server, viewport, not_found=MISSING) as page:
        PAGES[name](page, sessions)
        problems = layout_problems(page)
        assert not problems, "\n".join(problems)


def test_the_checker_sees_what_is_wrong(browser: Browser, server: str) -> None:
    """A page broken on purpose: each kind of fault is reported."""
    with viewing(browser, server, PHONE) as page:
        page.goto("/replay")
        page.evaluate(
            """() => {
              const main = document.querySelector("main");
              const wide = document.createElement("p");
              wide.style.width = "600px";
              wide.textContent = "too wide";
              const box = document.createElement("div");
              box.style.cssText = "overflow: hidden; width: 40px";
              const cut = document.createElement("button");
              cut.textContent = "a button far too long for its box";
              cut.style.cssText = "width: 200px; display: block";
              box.append(cut);
              const empty = document.createElement("div");
              empty.className = "panel";
              empty.innerHTML = "<h3>Nothing</h3><div></div>";
              const over = document.createElement("h2");
              over.textContent = "on top";
              over.style.cssText = "position: absolute; top: 0; left: 0";
              main.prepend(wide, box, empty, over);
            }"""
        )
        problems = "\n".join(layout_problems(page))
        assert "the page is 6" in problems
        assert 'button "a button far too long' in problems and "is cut off by div" in problems
        assert re.search(r'is an empty panel under "(NOTHING|Nothing)"', problems)
        assert re.search(r'h2 "on top" overlaps|overlaps h2 "on top"', problems)
