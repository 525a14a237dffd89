"""Screenshots of the arena's pages for the README, each game a few moves in, at a
desktop's width and (``-phone`` files) a phone's.

    .venv/bin/python -m tests.web.screenshots [--out docs]

Starts its own server on a temporary data folder (holding the baselines of
``docs/bench`` as bench results) and drives Debian's Chromium through the pages as a
person would (keys, clicks, the seat reply box; on a phone, taps on the pad); writes PNG
files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect, sync_playwright

from playbench.bots.cogcrawl import delver_reply
from playbench.games.delvewick.levels import LEVELS
from tests.web.serving import CHROMIUM_ARGS, chromium_path, serving

VIEWPORT = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
KEYS = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight", "W": "Space"}
SETTLE_MS = 700
DELVER_TURNS = 40
#: the bench baselines shown on /bench, and how long the server may take to verify them
BASELINES = Path(__file__).parents[2] / "docs" / "bench"
VERIFY_MS = 180_000


def _moves(page: Page, moves: int) -> None:
    page.wait_for_selector(f'[data-testid=board][data-moves="{moves}"]')


def delvewick(page: Page) -> None:
    page.goto("/play/delvewick?seed=7")
    _moves(page, 0)
    page.get_by_test_id("board").focus()
    steps = LEVELS[0].solution[:21]
    for letter in steps:
        page.keyboard.press(KEYS[letter])
    _moves(page, len(steps))


def gem_swap(page: Page) -> None:
    page.goto("/play/gem-swap?seed=7")
    _moves(page, 0)
    page.locator('[data-cell="D2"]').click()
    page.locator('[data-cell="E2"]').click()
    _moves(page, 2)
    page.get_by_role("button", name="Hint").click()
    _moves(page, 3)
    page.locator('[data-cell="D6"]').click()
    _moves(page, 4)


def chimestep(page: Page) -> None:
    page.goto("/play/chimestep?seed=7")
    _moves(page, 0)
    page.get_by_test_id("board").focus()
    page.keyboard.press("Space")
    page.wait_for_selector("[data-testid=status]:text-is('playing')", timeout=15_000)
    for key in ("ArrowDown", "ArrowRight", "ArrowDown", "ArrowUp", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
        page.wait_for_timeout(450)


def cogcrawl(page: Page) -> None:
    """The delver explores through the page's seat reply box, then a reply that says."""
    page.goto("/play/cogcrawl?seed=7")
    _moves(page, 0)
    session_id = page.get_by_test_id("board").get_attribute("data-session")
    base = page.evaluate("() => location.origin")
    page.locator("#raw-form summary").click()
    for move in range(1, DELVER_TURNS + 1):
        view = httpx.get(f"{base}/api/spectate/sessions/{session_id}").json()
        assert "observation" in view, (session_id, view)
        page.locator("#raw").fill(json.dumps(delver_reply(view["observation"])))
        page.locator("#raw-send").click()
        _moves(page, move)
    page.locator("#raw").fill('{"actions": [{"do": "search"}], "say": "mapping the east wing"}')
    page.locator("#raw-send").click()
    _moves(page, DELVER_TURNS + 1)


def _tap(page: Page, name: str) -> None:
    page.locator("#pad").get_by_role("button", name=name, exact=True).tap()


def delvewick_touch(page: Page) -> None:
    page.goto("/play/delvewick?seed=7")
    _moves(page, 0)
    words = {"U": "up", "D": "down", "L": "left", "R": "right", "W": "wait"}
    for move, letter in enumerate(LEVELS[0].solution[:21], start=1):
        _tap(page, words[letter])
        _moves(page, move)


def gem_swap_touch(page: Page) -> None:
    page.goto("/play/gem-swap?seed=7")
    _moves(page, 0)
    page.locator('[data-cell="D2"]').tap()
    page.locator('[data-cell="E2"]').tap()
    _moves(page, 2)
    _tap(page, "hint")
    _moves(page, 3)


def chimestep_touch(page: Page) -> None:
    page.goto("/play/chimestep?seed=7")
    _moves(page, 0)
    _tap(page, "start")
    page.wait_for_selector("[data-testid=status]:text-is('playing')", timeout=15_000)
    for name in ("down-left", "down-right", "down-left", "up-right", "down-right", "down-left"):
        _tap(page, name)
        page.wait_for_timeout(450)


def cogcrawl_touch(page: Page) -> None:
    """A few steps by the pad, then the pack panel open."""
    page.goto("/play/cogcrawl?seed=0")
    _moves(page, 0)
    for move, name in enumerate(("west", "south-east", "east", "east"), start=1):
        _tap(page, name)
        _moves(page, move)
    _tap(page, "pack")


def bench(page: Page) -> None:
    """The baselines on /bench (the server re-simulates every replay on the first look,
    then draws each one's report; the page reloads itself until both are drawn)."""
    page.goto("/bench", timeout=VERIFY_MS)
    expect(page.get_by_role("link", name="report")).to_have_count(2, timeout=VERIFY_MS)


def _with_baselines(data: Path) -> Path:
    for agent in ("bot", "random"):
        shutil.copytree(BASELINES / agent, data / "bench" / f"suite-v2-{agent}")
    return data


SHOTS = {
    "play-delvewick.png": delvewick,
    "play-gem-swap.png": gem_swap,
    "play-chimestep.png": chimestep,
    "play-cogcrawl.png": cogcrawl,
    "arena-home.png": lambda page: page.goto("/"),
    "arena-bench.png": bench,
}
#: the pages shot at a phone's width with touch, as NAME-phone.png, each game by its pad
PHONE_SHOTS = {
    "arena-home-phone.png": lambda page: page.goto("/"),
    "play-delvewick-phone.png": delvewick_touch,
    "play-gem-swap-phone.png": gem_swap_touch,
    "play-chimestep-phone.png": chimestep_touch,
    "play-cogcrawl-phone.png": cogcrawl_touch,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--only", nargs="*", help="these files only (e.g. arena-bench.png)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="playbench-shots-") as data,
        serving(_with_baselines(Path(data)), workers=1) as base,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(chromium_path()), args=CHROMIUM_ARGS
        )
        shots = [(name, act, VIEWPORT) for name, act in SHOTS.items()]
        shots += [(name, act, PHONE) for name, act in PHONE_SHOTS.items()]
        for name, act, viewport in shots:
            if args.only and name not in args.only:
                continue
            phone = viewport is PHONE
            context = browser.new_context(
                base_url=base, viewport=viewport, has_touch=phone, is_mobile=phone
            )
            page = context.new_page()
            act(page)
            page.wait_for_timeout(SETTLE_MS)
            page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
            # a phone's shot is its one screen, as a person holds it; a desktop's the page
            page.screenshot(path=str(args.out / name), full_page=not phone)
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
