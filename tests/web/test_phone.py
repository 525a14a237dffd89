"""One screen per game on a phone held upright (390x844 and 360x740, touch): the score, the
board and the pad in view at once below the sticky header, the game-over card inside the
board's frame, touch words for touch screens, and an address's seed that is never rounded
and never makes a ranked game."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from playbench.core.match import Match
from tests.web.conftest import _guarded

SLUGS = ["delvewick", "chimestep", "gem-swap", "cogcrawl"]
PHONES = {"390x844": {"width": 390, "height": 844}, "360x740": {"width": 360, "height": 740}}
#: past JavaScript's exact integers (2^53 + 1): a number would round it to ...992
BIG_SEED = "9007199254740993"


@pytest.fixture(params=list(PHONES))
def handset(
    request: pytest.FixtureRequest, browser: Browser, one_worker_server: str
) -> Iterator[Page]:
    context = browser.new_context(
        base_url=one_worker_server,
        viewport=PHONES[request.param],
        has_touch=True,
        is_mobile=True,
    )
    yield from _guarded(context, one_worker_server)


def box(page: Page, testid: str) -> dict[str, float]:
    found = page.get_by_test_id(testid).bounding_box()
    assert found is not None, f"{testid} is not drawn"
    return found


def opened(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#mode-bar[data-mode]")
    page.wait_for_selector('[data-testid=board][data-moves="0"]')


@pytest.mark.parametrize("slug", SLUGS)
def test_score_board_and_pad_share_one_screen_below_the_header(handset: Page, slug: str) -> None:
    opened(handset, f"/play/{slug}?seed={random.randrange(2**53)}")
    header = handset.locator("header.top").bounding_box()
    assert header is not None
    height = handset.viewport_size["height"]
    width = handset.viewport_size["width"]
    assert handset.evaluate("scrollY") == 0
    for testid in ("score", "board", "pad"):
        seen = box(handset, testid)
        assert seen["y"] >= header["y"] + header["height"], (slug, testid, seen, header)
        assert seen["y"] + seen["height"] <= height, (slug, testid, seen, height)
        assert seen["x"] >= 0 and seen["x"] + seen["width"] <= width, (slug, testid, seen)
    assert box(handset, "board")["height"] >= 100, slug


def test_touch_screens_read_touch_words_and_no_prefilled_json(handset: Page) -> None:
    opened(handset, f"/play/chimestep?seed={random.randrange(2**53)}")
    board = handset.get_by_test_id("board")
    expect(board.locator("[data-phase]")).to_have_attribute("data-phase", "Tap start to begin")
    assert "space" not in handset.locator("#guide").inner_text().lower()
    expect(handset.locator("#keys")).to_be_hidden()
    opened(handset, f"/play/cogcrawl?seed={random.randrange(2**53)}")
    guide = handset.locator("#guide").inner_text()
    assert "h j k l" not in guide and "pad" in guide
    reply = handset.get_by_test_id("seat-reply")
    assert reply.get_attribute("open") is None
    expect(handset.locator("#raw")).to_be_hidden()
    assert handset.locator("#raw").input_value() == ""


def test_the_game_over_card_sits_inside_the_boards_frame(handset: Page) -> None:
    """Gem Swap played to its end through the command line, a legal swap each time; then
    the card is inside the board's frame, its title below the header, its rating unchosen."""
    seed = random.randrange(2**53)
    match = Match.start("gem-swap", seed)
    opened(handset, f"/play/gem-swap?seed={seed}")
    command = handset.locator("#command")
    while not match.over:
        swap = next(c for c in match.view()["commands"] if c.startswith("swap "))
        match.command(swap)
        command.fill(swap)
        command.press("Enter")
        expect(handset.get_by_test_id("board")).to_have_attribute("data-moves", str(match.moves))
    card = handset.locator(".overlay-card")
    expect(card).to_be_visible()
    frame = handset.locator(".board-wrap").bounding_box()
    inside = card.bounding_box()
    assert frame is not None and inside is not None
    assert inside["y"] >= frame["y"] - 0.5 and inside["x"] >= frame["x"] - 0.5
    assert inside["y"] + inside["height"] <= frame["y"] + frame["height"] + 0.5
    assert inside["x"] + inside["width"] <= frame["x"] + frame["width"] + 0.5
    header = handset.locator("header.top").bounding_box()
    title = handset.locator("#over-title")
    title.scroll_into_view_if_needed()
    header = handset.locator("header.top").bounding_box()
    heading = title.bounding_box()
    assert header is not None and heading is not None
    assert heading["y"] >= header["y"] + header["height"]
    assert handset.locator("#rating").input_value() == ""
    expect(handset.get_by_test_id("over-score")).to_have_text(str(match.score))


@pytest.mark.parametrize("seed", ["abc", "", "7.5", "0x10", "-3", "9223372036854775808"])
def test_a_malformed_seed_in_the_address_is_a_message_and_practice(
    handset: Page, one_worker_server: str, seed: str
) -> None:
    opened(handset, f"/play/gem-swap?seed={seed}")
    expect(handset.get_by_test_id("mode-bar")).to_have_attribute("data-mode", "practice")
    problem = handset.locator("#problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text(f'the address\'s seed "{seed}" is not a whole number')
    expect(problem).to_contain_text("practice on a random seed")
    stored = _stored(handset, one_worker_server)
    assert stored["ranked"] is False and isinstance(stored["seed"], int)


def test_a_seed_past_two_to_the_53_is_played_exactly(handset: Page, one_worker_server: str) -> None:
    opened(handset, f"/play/gem-swap?seed={BIG_SEED}")
    expect(handset.get_by_test_id("mode-bar")).to_have_attribute("data-mode", "practice")
    expect(handset.locator("#mode-note")).to_contain_text(f"seed {BIG_SEED}")
    expect(handset.locator("#problem")).to_be_hidden()
    stored = _stored(handset, one_worker_server)
    assert stored["ranked"] is False and stored["seed"] == int(BIG_SEED)
    first = Match.start("gem-swap", int(BIG_SEED)).view()["observation"]["board"]
    assert stored["observation"]["board"] == first


def _stored(page: Page, server: str) -> dict:
    """The session the page plays, as the server keeps it (read by a spectator)."""
    session = page.get_by_test_id("board").get_attribute("data-session")
    assert session
    record = httpx.get(f"{server}/api/spectate/sessions/{session}", timeout=10.0)
    assert record.status_code == 200, record.text
    return record.json()
