"""Ranked only when asked: opening a play page starts practice, a ranked game starts on
request (with a warning before it closes an open one), and a second tab resumes the open
ranked game from the browser's storage instead of abandoning it."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import Page, expect

#: Delvewick on seed 7 is over after 40 waits
DELVEWICK_WAITS_TO_OVER = 40


def session_id(page: Page) -> str:
    board = page.get_by_test_id("board")
    expect(board).to_have_attribute("data-session", re.compile(r"^[0-9a-f]+$"))
    return board.get_attribute("data-session") or ""


def record(api: httpx.Client, sid: str) -> Any:
    reply = api.get(f"/api/spectate/sessions/{sid}")
    assert reply.status_code == 200, reply.text
    return reply.json()


def register(page: Page, name: str) -> None:
    page.locator("#player").fill(name)
    page.locator("#player-register").click()
    expect(page.locator("#player-note")).to_contain_text(f"Registered {name}")


def test_the_page_opened_twice_leaves_one_ranked_game_open_and_none_abandoned(
    page: Page, api: httpx.Client
) -> None:
    page.goto("/play/delvewick")
    practice = session_id(page)
    expect(page.get_by_test_id("mode-bar")).to_have_attribute("data-mode", "practice")
    assert record(api, practice)["ranked"] is False
    register(page, "Two Tabs")
    page.get_by_test_id("play-ranked").click()
    expect(page.get_by_test_id("mode-bar")).to_have_attribute("data-mode", "ranked")
    ranked = session_id(page)
    assert ranked != practice
    page.get_by_test_id("board").focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_test_id("board")).to_have_attribute("data-moves", "1")
    # a second tab of the same browser resumes it, at its move
    second = page.context.new_page()
    second.goto("/play/delvewick")
    expect(second.get_by_test_id("board")).to_have_attribute("data-session", ranked)
    expect(second.get_by_test_id("board")).to_have_attribute("data-moves", "1")
    expect(second.locator("#mode-note")).to_contain_text("Ranked game as Two Tabs")
    # asking for another ranked game warns first; keeping the open one changes nothing
    second.get_by_test_id("play-ranked").click()
    warning = second.get_by_test_id("ranked-warning")
    expect(warning).to_contain_text("score 0 after 1 moves")
    expect(warning).to_contain_text("closes it as abandoned")
    second.get_by_test_id("ranked-keep").click()
    expect(warning).to_be_hidden()
    expect(second.get_by_test_id("board")).to_have_attribute("data-session", ranked)
    # practice in the second tab leaves the ranked game open, one tap away
    second.get_by_test_id("play-practice").click()
    expect(second.get_by_test_id("mode-bar")).to_have_attribute("data-mode", "practice")
    expect(second.get_by_test_id("resume-ranked")).to_be_visible()
    second.get_by_test_id("resume-ranked").click()
    expect(second.get_by_test_id("board")).to_have_attribute("data-session", ranked)
    second.close()
    token = page.evaluate("localStorage.getItem('playbench:delvewick:ranked')")
    reply = api.get("/games/delvewick/api/state", headers={"Authorization": f"Bearer {token}"})
    stored = reply.json()
    assert stored["sessionId"] == ranked and stored["player"] == "Two Tabs"
    assert (stored["ranked"], stored["abandoned"], stored["finished"]) == (True, False, False)
    board = api.get("/api/leaderboard/delvewick").json()
    assert [p for p in board["players"] if p["player"] == "Two Tabs"] == []


def test_a_practice_game_played_out_and_finished_never_reaches_the_leaderboard(
    page: Page, api: httpx.Client
) -> None:
    page.goto("/play/delvewick?seed=7")
    anonymous = session_id(page)
    register(page, "Only Practice")
    # the name kept in the browser plays the next game, on the seed the address gives
    page.goto("/play/delvewick?seed=7")
    expect(page.locator("#mode-note")).to_contain_text("as Only Practice: not ranked")
    sid = session_id(page)
    assert sid != anonymous
    page.get_by_test_id("board").focus()
    for _ in range(DELVEWICK_WAITS_TO_OVER):
        page.keyboard.press("Space")
    overlay = page.get_by_test_id("game-over")
    expect(overlay).to_be_visible()
    expect(overlay).to_be_in_viewport()
    expect(page.get_by_test_id("over-score")).to_have_text(str(record(api, sid)["score"]))
    expect(page.get_by_test_id("over-reason")).not_to_be_empty()
    expect(page.locator("#finish-send")).to_be_in_viewport()
    expect(page.locator("#finish-send")).to_have_text("Finish")
    page.locator("#rating").fill("7")
    page.locator("#finish-send").click()
    expect(page.locator("#rank")).to_contain_text(": practice, not ranked.")
    stored = record(api, sid)
    assert (stored["ranked"], stored["finished"]) == (False, True)
    board = api.get("/api/leaderboard/delvewick").json()
    assert [e for e in board["entries"] if e["sessionId"] == sid] == []
    assert [p for p in board["players"] if p["player"] == "Only Practice"] == []
