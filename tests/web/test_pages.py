"""The arena's pages in a real browser: play every game, watch live, replay, rank."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, Route, expect

from playbench.core import all_games
from playbench.core.match import Match
from playbench.games.delvewick.levels import LEVELS
from tests.games.delvewick.test_levels import LEVEL_POINTS
from tests.server.helpers import Player

KEYS = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight", "W": "Space"}
#: Delvewick level 1 played by its shipped solution, as the kernel scores it
LEVEL_ONE_SCORE = LEVEL_POINTS[0]
TICKS_PER_SECOND = 12


def board_moves(page: Page) -> int:
    return int(page.get_by_test_id("board").get_attribute("data-moves") or "-1")


def wait_moves(page: Page, moves: int) -> None:
    expect(page.get_by_test_id("board")).to_have_attribute("data-moves", str(moves))


def session_id(page: Page) -> str:
    board = page.get_by_test_id("board")
    expect(board).to_have_attribute("data-session", re.compile(r"^[0-9a-f]+$"))
    return board.get_attribute("data-session") or ""


def record(api: httpx.Client, sid: str) -> Any:
    reply = api.get(f"/api/spectate/sessions/{sid}")
    assert reply.status_code == 200, reply.text
    return reply.json()


def gem_tokens(page: Page) -> list[list[str]]:
    cells = page.eval_on_selector_all(
        "[data-cell]", "cells => cells.map(c => [c.dataset.cell, c.dataset.gem])"
    )
    by_name = dict(cells)
    return [[by_name[f"{'ABCDEFGH'[c]}{r + 1}"] for c in range(8)] for r in range(8)]


def test_home_page_shows_a_card_per_game_with_its_board(page: Page, api: httpx.Client) -> None:
    played = Player(api, "chimestep", seed=5, player="live one")  # type: ignore[arg-type]
    assert played.act("start").status_code == 200
    left = Player(api, "chimestep", seed=6, player="left unplayed")  # type: ignore[arg-type]
    page.goto("/")
    cards = page.get_by_test_id("game-card")
    slugs = [game.slug for game in all_games()]
    expect(cards).to_have_count(len(slugs))
    assert cards.evaluate_all("cards => cards.map(c => c.dataset.slug)") == slugs
    for slug in slugs:
        thumb = page.locator(f'[data-thumb="{slug}"]')
        expect(thumb.locator("canvas, svg")).to_have_count(1)
        expect(page.locator(f'[data-slug="{slug}"] a[href="/play/{slug}"]').first).to_be_visible()
        expect(page.locator(f'a[href="/leaderboard/{slug}"]')).to_have_count(1)
    watch = page.locator('[data-live="chimestep"] a', has_text="live one")
    expect(watch).to_have_attribute("href", f"/watch/{played.last['sessionId']}")
    expect(watch).to_contain_text("after 1 move")
    # a game opened and left without a move is no game to watch
    assert left.last["moves"] == 0
    expect(page.locator('[data-live="chimestep"] a', has_text="left unplayed")).to_have_count(0)


def test_delvewick_level_one_cleared_with_the_keyboard(page: Page, api: httpx.Client) -> None:
    solution = LEVELS[0].solution
    page.goto("/play/delvewick?seed=7")
    wait_moves(page, 0)
    sid = session_id(page)
    page.get_by_test_id("board").focus()
    for letter in solution:
        page.keyboard.press(KEYS[letter])
    wait_moves(page, len(solution))
    expect(page.get_by_test_id("score")).to_have_text(str(LEVEL_ONE_SCORE))
    expect(page.locator("#messages")).to_contain_text("Level 1, Topsoil, cleared")
    stored = record(api, sid)
    assert stored["observation"]["level"] == 2
    assert stored["score"] == LEVEL_ONE_SCORE
    assert stored["moves"] == len(solution)


def test_gem_swap_swap_made_with_two_clicks(page: Page, api: httpx.Client) -> None:
    expected = Match.start("gem-swap", 7)
    gained = expected.command("swap D2 right").reward
    page.goto("/play/gem-swap?seed=7")
    wait_moves(page, 0)
    sid = session_id(page)
    page.locator('[data-cell="D2"]').click()
    wait_moves(page, 1)
    expect(page.locator('[data-cell="D2"]')).to_have_class("cell selected")
    expect(page.get_by_test_id("score")).to_have_text("0")
    page.locator('[data-cell="E2"]').click()
    wait_moves(page, 2)
    stored = record(api, sid)
    assert gained == 30
    assert stored["score"] == gained
    expect(page.get_by_test_id("score")).to_have_text(str(gained))
    assert gem_tokens(page) == stored["observation"]["board"]
    assert stored["observation"]["board"] == expected.view()["observation"]["board"]
    assert stored["lastAction"]["command"] == "select E2"


def test_chimestep_started_and_hopping_in_real_time(page: Page, api: httpx.Client) -> None:
    page.goto("/play/chimestep?seed=7")
    wait_moves(page, 0)
    sid = session_id(page)
    page.get_by_test_id("board").focus()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("status")).to_have_text("playing", timeout=10_000)
    first = record(api, sid)["observation"]["tick"]
    started = time.monotonic()
    # the page ticks on its own: two seconds' worth of its tick moves reach the server,
    # however busy the machine is ...
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=board]').dataset.moves) >= n",
        arg=board_moves(page) + 2 * TICKS_PER_SECOND,
        timeout=30_000,
    )
    later = record(api, sid)["observation"]["tick"]
    elapsed = time.monotonic() - started
    # ... and never ahead of the clock, 12 a second
    assert first < later <= first + TICKS_PER_SECOND * (elapsed + 0.5)
    page.keyboard.press("ArrowDown")
    expect(page.locator("[data-chick]")).to_have_attribute("data-chick", "1,0")
    assert record(api, sid)["observation"]["position"] == {"row": 1, "col": 0}


def test_cogcrawl_raw_seat_reply_sent_from_the_page(page: Page, api: httpx.Client) -> None:
    reply = '{"actions": [{"do": "search"}], "say": "hello from the page"}'
    page.goto("/play/cogcrawl?seed=7")
    wait_moves(page, 0)
    sid = session_id(page)
    page.locator("#raw-form summary").click()
    page.locator("#raw").fill(reply)
    page.locator("#raw-send").click()
    wait_moves(page, 1)
    expect(page.locator("#say")).to_have_text("hello from the page")
    stored = record(api, sid)
    assert stored["lastAction"] == {"command": reply, "ok": True, "reason": "", "reward": 0}
    assert stored["say"] == "hello from the page"
    assert stored["observation"]["turn"] == 1


def test_watch_page_follows_a_session_driven_over_http(page: Page, api: httpx.Client) -> None:
    agent = Player(api, "delvewick", seed=7, player="watched agent")  # type: ignore[arg-type]
    sid = agent.last["sessionId"]
    page.goto(f"/watch/{sid}")
    wait_moves(page, 0)
    expect(page.locator("#heading")).to_have_text("Delvewick: watched agent")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    for move, letter in enumerate(LEVELS[0].solution[:6], start=1):
        command = {"U": "up", "D": "down", "L": "left", "R": "right"}[letter]
        answer = agent.act(command)
        assert answer.status_code == 200, answer.text
        wait_moves(page, move)
        expect(page.get_by_test_id("score")).to_have_text(str(answer.json()["score"]))
        reward = answer.json()["results"][0]["reward"]
        said = f"{command} (accepted, +{reward})" if reward else f"{command} (accepted)"
        expect(page.locator("#last")).to_have_text(said)
    # every update came down the one open stream: the page sent no request meanwhile
    assert requests == []
    shown = page.locator("#fields").inner_text()
    assert "gems\n1/4\n" in shown and "chain\n1\n" in shown


def test_replay_steps_forward_and_back_to_the_same_boards(page: Page, api: httpx.Client) -> None:
    agent = Player(api, "gem-swap", seed=7)  # type: ignore[arg-type]
    commands = ["swap D2 right", "hint", "swap A3 down"]
    expected = Match.start("gem-swap", 7)
    boards = [expected.view()["observation"]["board"]]
    for command in commands:
        assert agent.act(command).json()["results"][0]["ok"]
        expected.command(command)
        boards.append(expected.view()["observation"]["board"])
    page.goto(f"/replay/{agent.last['sessionId']}")
    expect(page.locator("#position")).to_have_text("0 / 3")
    assert gem_tokens(page) == boards[0]
    forward = []
    for step in range(1, 4):
        page.get_by_test_id("replay-next").click()
        wait_moves(page, step)
        forward.append(gem_tokens(page))
    assert forward == boards[1:]
    expect(page.get_by_test_id("score")).to_have_text(str(expected.score))
    for step in (2, 1, 0):
        page.get_by_test_id("replay-prev").click()
        wait_moves(page, step)
        assert gem_tokens(page) == boards[step]
    expect(page.get_by_test_id("score")).to_have_text("0")


def test_replay_opens_a_run_file(page: Page, tmp_path: Path) -> None:
    match = Match.start("delvewick", 3)
    lines = [{"game": "delvewick", "seed": 3, "options": {}, "agent": "bot", "version": "0.1.0"}]
    for letter in LEVELS[0].solution[:5]:
        action = {"U": "up", "D": "down", "L": "left", "R": "right"}[letter]
        result = match.command(action)
        lines.append({"action": result.action, "reward": result.reward, "score": match.score})
    path = tmp_path / "delvewick-3.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page.goto("/replay")
    page.locator("#file").set_input_files(str(path))
    expect(page.locator("#position")).to_have_text("0 / 5")
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-next").click()
    wait_moves(page, 2)
    page.locator("#last").click()
    wait_moves(page, 5)
    expect(page.get_by_test_id("score")).to_have_text(str(match.score))
    expect(page.locator("#heading")).to_have_text("Replay: Delvewick · bot")
    expect(page).to_have_title("Replay: Delvewick · bot · playbench arena")
    expect(page.locator("#problem")).to_be_hidden()


def test_finished_game_shows_its_player_on_the_leaderboard(page: Page, api: httpx.Client) -> None:
    page.goto("/play/gem-swap")
    practice = session_id(page)
    expect(page.locator("#session-note")).to_contain_text("Practice on seed")
    page.locator("#player").fill("Ada from the browser")
    page.locator("#player-register").click()
    expect(page.locator("#player-note")).to_contain_text("Registered Ada from the browser")
    key = page.evaluate("localStorage.getItem('playbench:player-key')")
    assert key and page.locator("#player-key").input_value() == key
    # a ranked game starts when asked, under the name; the note says whose it is
    page.get_by_test_id("play-ranked").click()
    expect(page.locator("#session-note")).to_contain_text("Ranked game as Ada from the browser:")
    sid = session_id(page)
    assert sid != practice and record(api, practice)["ranked"] is False
    assert record(api, sid)["player"] == "Ada from the browser"
    while not (stored := record(api, sid))["gameOver"]:
        swap = next(c for c in stored["commands"] if c.startswith("swap"))
        page.locator("#command").fill(swap)
        page.locator("#command").press("Enter")
        wait_moves(page, stored["moves"] + 1)
    expect(page.get_by_test_id("game-over")).to_be_in_viewport()
    expect(page.get_by_test_id("over-score")).to_have_text(str(stored["score"]))
    page.locator("#rating").fill("9")
    page.locator("#review").fill("clicked my way through")
    expect(page.locator("#finish-send")).to_be_in_viewport()
    page.locator("#finish-send").click()
    expect(page.locator("#rank")).to_have_text(f"Finished with {stored['score']}: rank #1.")
    page.goto("/leaderboard/gem-swap")
    row = page.get_by_test_id("leaderboard-row").filter(has_text="Ada from the browser")
    expect(row).to_have_count(1)
    expect(row.locator(".score-cell")).to_have_text(str(stored["score"]))
    expect(row).to_contain_text("9/10")
    expect(row.locator(f'a[href="/replay/{sid}"]')).to_have_count(1)
    standing = page.get_by_test_id("players-row").filter(has_text="Ada from the browser")
    expect(standing.locator(".games-cell")).to_have_text("1")
    expect(standing.locator(".rank-cell")).to_have_text("unranked 4 more games")
    expect(standing.locator(".mean-cell")).to_have_text(f"{stored['score']:.1f}")
    # the lede says what the board holds once
    lede = page.locator(".lede").inner_text()
    assert lede.count("seed the server drew") == 1, lede
    # the tab's practice game is resumed; the key kept in the browser names the next game
    # too; a wrong key is refused
    page.goto("/play/gem-swap")
    expect(page.get_by_test_id("board")).to_have_attribute("data-session", practice)
    page.get_by_test_id("play-practice").click()
    expect(page.locator("#session-note")).to_contain_text("as Ada from the browser: not ranked")
    other = session_id(page)
    assert other not in (sid, practice)
    assert record(api, other)["player"] == "Ada from the browser"
    page.locator("#player-key").fill("not the key")
    page.locator("#player-save").click()
    page.get_by_test_id("play-ranked").click()
    expect(page.locator("#problem")).to_contain_text("not 'Ada from the browser''s key")
    # practice under a refused key is played anonymously, and the page says why
    page.get_by_test_id("play-practice").click()
    expect(page.locator("#problem")).to_contain_text("this practice game is played anonymously")
    expect(page.locator("#mode-note")).to_contain_text(re.compile(r"^Practice on seed \d+: not"))


def test_api_docs_render_offline(page: Page) -> None:
    page.goto("/docs")
    expect(page.locator(".swagger-ui .title")).to_contain_text("playbench arena")
    expect(
        page.locator("#operations-spectate-stream_api_spectate_sessions__session_id__stream_get")
    ).to_be_visible()


def test_a_refused_agent_check_is_answered_again_with_the_fresh_puzzle(page: Page) -> None:
    answers: list[str] = []

    def spoil_the_first(route: Route) -> None:
        headers = dict(route.request.headers)
        if not answers:
            headers["x-agent-answer"] = "-1"
        answers.append(headers["x-agent-answer"])
        route.continue_(headers=headers)

    page.route("**/games/delvewick/api/act", spoil_the_first)
    page.goto("/play/delvewick?seed=7")
    wait_moves(page, 0)
    page.get_by_test_id("board").focus()
    page.keyboard.press("ArrowDown")
    board = page.get_by_test_id("board")
    try:
        expect(board).to_have_attribute("data-moves", "1", timeout=15_000)
    except AssertionError as error:
        raise AssertionError(f"{answers=} {page.locator('#messages').inner_text()!r}") from error
    assert len(answers) == 2 and answers[0] == "-1" and answers[1] != "-1"
    expect(page.locator("#problem")).to_be_hidden()


def test_a_game_api_page_wears_the_arena_style_with_its_header_once(page: Page) -> None:
    page.goto("/docs/api/cogcrawl")
    expect(page.locator('link[rel="stylesheet"][href="/assets/css/arena.css"]')).to_have_count(1)
    expect(page.locator("header.top")).to_be_visible()
    expect(page.get_by_role("link", name="playbench arena")).to_have_count(1)
    expect(page.locator("h1")).to_have_text("Cogcrawl API")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(15, 12, 24)", background
    expect(page.locator('main.doc a[href="/play/cogcrawl"]')).to_have_count(1)


#: a Cogcrawl practice game of this many searches, replayed
LONG_REPLAY = 500


def test_replay_fetches_the_two_ends_of_500_steps_and_jumps_without_another(
    page: Page, api: httpx.Client
) -> None:
    agent = Player(api, "cogcrawl", seed=7)  # type: ignore[arg-type]
    for _ in range(LONG_REPLAY // 100):
        assert agent.act(*["search"] * 100).status_code == 200
    expected = Match.start("cogcrawl", 7)
    for _ in range(LONG_REPLAY):
        expected.command("search")
    frames: list[str] = []
    page.on(
        "request",
        lambda request: request.url.endswith("/frames") and frames.append(request.url),
    )
    page.goto(f"/replay/{agent.last['sessionId']}")
    expect(page.locator("#position")).to_have_text(f"0 / {LONG_REPLAY}")
    expect(page).to_have_title(re.compile(r"^Replay: Cogcrawl · "))
    # the header's final score is the last frame's: the page fetched the window at each end
    expect(page.locator("#who")).to_contain_text(f" {expected.score} · {LONG_REPLAY} ")
    assert frames == [f"{page.url.split('/replay/')[0]}/api/games/cogcrawl/frames"] * 2, frames
    page.get_by_test_id("replay-last").click()
    wait_moves(page, LONG_REPLAY)
    expect(page.locator("#position")).to_have_text(f"{LONG_REPLAY} / {LONG_REPLAY}")
    expect(page.get_by_test_id("score")).to_have_text(str(expected.score))
    # a step back inside the window fetched needs no request at all
    page.get_by_test_id("replay-prev").click()
    wait_moves(page, LONG_REPLAY - 1)
    assert len(frames) == 2, frames


def test_an_empty_replay_page_offers_a_file_and_no_controls(page: Page) -> None:
    page.goto("/replay")
    expect(page.locator("#empty-note")).to_contain_text("No replay open yet")
    expect(page.get_by_test_id("score")).to_have_text("–")
    for control in ("#first", "#prev", "#play", "#next", "#last", "#scrubber"):
        expect(page.locator(control)).to_be_disabled()
