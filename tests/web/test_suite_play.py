"""A person plays a published suite in the browser: ``/bench/play/quick`` lists the
episodes in order with a progress strip, an episode played on the play page and finished
there is recorded, and the finished set is published and listed on ``/bench`` as a human
row under the player's name."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect

from playbench.runner.suite import load_suite
from playbench.server.human_bench import episodes
from tests.server.helpers import Player, register
from tests.web.serving import serving

NAME = "suite by hand"
#: where the page publishes a set played by a person
HUMAN_BENCH = "/api/bench/human"
#: Delvewick is over after 40 waits (its levels are fixed, whatever the seed)
DELVEWICK_WAITS = 40
BATCH = 100
MAX_ACTS = 400


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own: the result it publishes would be one more row on /bench."""
    with serving(tmp_path_factory.mktemp("suite-play-data"), 1) as base:
        yield base


def finished(api: httpx.Client, slug: str, seed: int, options: dict) -> str:
    """An episode played to its end through the session API under NAME, and finished."""
    person = Player(api, slug, seed=seed, options=options or None, player=NAME)  # type: ignore[arg-type]
    draw = random.Random(f"{slug}-{seed}")
    for _ in range(MAX_ACTS):
        if person.last["gameOver"]:
            break
        assert (
            person.act(*[draw.choice(person.last["commands"]) for _ in range(BATCH)]).status_code
            == 200
        )
    assert person.post("finish", {"rating": 5, "review": ""}).status_code == 200
    return person.last["sessionId"]


def test_a_person_plays_the_quick_suite_and_publishes_it(browser: Browser, own_server: str) -> None:
    suite = load_suite("quick")
    wanted = episodes(suite)
    context = browser.new_context(base_url=own_server, viewport={"width": 1280, "height": 900})
    with httpx.Client(base_url=own_server, timeout=30.0) as api:
        key = register(api, NAME)  # type: ignore[arg-type]
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/bench/play/quick")
        page.evaluate(
            "([name, key]) => { localStorage.setItem('playbench:player', name);"
            " localStorage.setItem('playbench:player-key', key); }",
            [NAME, key],
        )
        page.reload()
        expect(page.get_by_test_id("episode")).to_have_count(len(wanted))
        expect(page.get_by_test_id("strip").locator("span")).to_have_count(len(wanted))
        expect(page.get_by_test_id("publish")).to_be_disabled()
        # three Delvewick levels, no seed offered: the seed changes nothing there
        assert [episode[2] for episode in wanted[:3]] == [{"startLevel": n} for n in (1, 2, 3)]
        first = page.get_by_test_id("episode").first
        expect(first).to_contain_text('1. Delvewick options {"startLevel": 1}')
        expect(first).not_to_contain_text("seed")
        # the first episode, Delvewick from level 1, played and finished on the play page
        first.get_by_role("link", name="play").click()
        expect(page.locator("#mode-note")).to_contain_text(f"Practice as {NAME}")
        page.get_by_test_id("board").focus()
        for _ in range(DELVEWICK_WAITS):
            page.keyboard.press("Space")
        expect(page.get_by_test_id("game-over")).to_be_visible()
        assert page.locator("#rating").input_value() == ""  # no rating chosen for a person
        page.locator("#rating").fill("6")
        page.locator("#finish-send").click()
        page.get_by_test_id("suite-next").click()
        expect(page.locator("#count")).to_have_text(f"1 of {len(wanted)} episodes finished.")
        expect(page.get_by_test_id("strip").locator("span.done")).to_have_count(1)
        # the other episodes played as a person would (here through the same API the page
        # speaks), each recorded where the play page records it
        store = f"playbench:suite:quick:{suite.hash}"
        kept = json.loads(page.evaluate(f"localStorage.getItem('{store}')"))
        for index, (slug, seed, options, _) in enumerate(wanted[1:], start=1):
            kept[str(index)] = finished(api, slug, seed, options)
        page.evaluate(
            "([store, kept]) => localStorage.setItem(store, kept)", [store, json.dumps(kept)]
        )
        page.reload()
        expect(page.get_by_test_id("strip").locator("span.done")).to_have_count(len(wanted))
        # the publish waits on its answer and on the page drawing it, however long the
        # server takes to check the set (no clock: timeout 0 waits for the event itself)
        with page.expect_response(
            lambda answer: answer.url.endswith(HUMAN_BENCH) and answer.request.method == "POST",
            timeout=0,
        ) as published:
            page.get_by_test_id("publish").click()
        assert published.value.status == 201, published.value.text()
        page.wait_for_selector("[data-testid=published] a[href='/bench']", timeout=0)
        expect(page.get_by_test_id("published")).to_contain_text(f"under {NAME}")
        page.goto("/bench")
        row = page.get_by_test_id("bench-row").filter(has_text=f"human · {NAME}")
        expect(row).to_have_count(1)
    context.close()
    assert errors == []
