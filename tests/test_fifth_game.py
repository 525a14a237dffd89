"""A fifth game from another package reaches every door, with no edit outside its folder.

Nim (``tests/fifth/playbench_nim``) is declared the way any installed package declares
a game: by the entry point of a real distribution (``tests/fifth/playbench_nim-0.1.0
.dist-info``). The doors run in child processes with ``tests/fifth`` on their
``PYTHONPATH``, so the game is found by ``importlib.metadata`` as an installed one would
be; this process's registry never sees it.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from playwright.sync_api import expect, sync_playwright

from playbench.core import all_games
from tests.server.helpers import Player
from tests.web.serving import CHROMIUM_ARGS, chromium_path, serve_process

ROOT = Path(__file__).resolve().parents[1]
FIFTH = ROOT / "tests" / "fifth"
SLUG = "nim"
#: a take of at most 3 stones pays at most 3: a larger last reward has the last stone's 10
MOST_TAKEN = 3
SEEDS = "0-19"
DEADLINE = 60.0


@pytest.fixture
def nim_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Child processes find the Nim distribution on their path."""
    paths = [str(FIFTH), str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))


def playbench(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "playbench.cli", *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert not check or done.returncode == 0, done.stderr
    return done


def python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_nim_is_not_installed_here():
    assert SLUG not in {game.slug for game in all_games()}
    assert f"\n{SLUG} " not in "\n" + playbench("games").stdout


def test_games_lists_nim_after_the_built_ins(nim_installed):
    lines = playbench("games").stdout.splitlines()
    slugs = [line.split()[0] for line in lines]
    assert slugs == [*(game.slug for game in all_games()), SLUG]
    assert lines[-1] == f"{SLUG:<12} Nim: Take the last stone."


def test_the_contract_tests_hold_for_nim(nim_installed):
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-k", SLUG]
    command += ["tests/test_contract.py", "tests/games/test_trusted_json.py"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


def _read_until(fd: int, wanted: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + DEADLINE
    while wanted not in seen:
        assert time.monotonic() < deadline, f"{wanted!r} never came: {bytes(seen[-400:])!r}"
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                return


def test_play_under_a_pseudo_terminal(nim_installed):
    parent, child = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "LINES": "30", "COLUMNS": "100"}
    command = [sys.executable, "-m", "playbench.cli", "play", SLUG, "--seed", "3"]
    process = subprocess.Popen(
        command, stdin=child, stdout=child, stderr=child, cwd=ROOT, env=env, start_new_session=True
    )
    os.close(child)
    seen = bytearray()
    try:
        _read_until(parent, b"quits", seen)
        os.write(parent, b"a")
        _read_until(parent, b"Take: heap 1, count 1", seen)
        os.write(parent, b"Q")
        _read_until(parent, b"playbench play nim --seed 3", seen)
        assert process.wait(timeout=DEADLINE) == 0
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        os.close(parent)
    assert b"Nim seed 3: score 1, quit after 1 action" in seen


def _runs(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


def _last_reward(folder: Path, record: dict[str, Any]) -> int:
    lines = (folder / record["replay"]).read_text().splitlines()
    steps = [json.loads(line) for line in lines[1:-1]]
    return steps[-1]["reward"]


@pytest.mark.parametrize(("agent", "wins"), [("random", 7), ("bot", 20)])
def test_run_verify_and_the_outcomes(nim_installed, tmp_path, agent, wins):
    folder = tmp_path / agent
    playbench(
        "run", SLUG, "--agent", agent, "--seeds", SEEDS, "--workers", "1", "--out", str(folder)
    )
    runs = _runs(folder)
    assert len(runs) == 20
    for record in runs:
        won = _last_reward(folder, record) > MOST_TAKEN
        assert record["outcome"] == ("won" if won else "lost"), record
    assert sum(record["outcome"] == "won" for record in runs) == wins
    assert playbench("verify", str(folder)).returncode == 0


@pytest.fixture
def nim_server(nim_installed, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with serve_process(data, "--workers", "1", "--log-level", "warning") as served:
        yield served.base


def test_the_doors_of_a_server(nim_server, tmp_path):
    with httpx.Client(base_url=nim_server, timeout=30) as api:
        listed = {game["slug"]: game for game in api.get("/api/games").json()["games"]}
        assert listed[SLUG]["actionUrl"] == f"{nim_server}/api/games/{SLUG}/action"

        start = api.get(f"/api/games/{SLUG}/init", params={"seed": 3}).json()
        assert start["observation"]["heaps"] == [3, 3, 3] and start["gameOver"] is False
        assert len(start["legalActions"]) == 9 and start["spec"]
        take = {"type": "take", "heap": 2, "count": 3}
        step = api.post(f"/api/games/{SLUG}/action", json={"state": start["state"], "action": take})
        answer = step.json()
        assert answer["ok"] is True and answer["reward"] == 3 and answer["score"] == 3
        assert answer["events"][0] == {"type": "take", "heap": 2, "count": 3}
        refused = api.post(
            f"/api/games/{SLUG}/action",
            json={"state": answer["state"], "action": {**take, "heap": 9}},
        ).json()
        assert refused == {
            "ok": False,
            "reason": "heap 9 cannot give 3 stones",
            "legalActions": answer["legalActions"],
        }

        player = Player(api, SLUG, seed=3)  # type: ignore[arg-type]
        state = api.get(f"/games/{SLUG}/api/state", headers=player.auth()).json()
        while not state["gameOver"]:
            response = player.act(state["commands"][0])
            assert response.status_code == 200, response.text
            state = api.get(f"/games/{SLUG}/api/state", headers=player.auth()).json()
        finished = player.post("finish", {"rating": 7, "review": "a fine fifth game"})
        assert finished.status_code == 200, finished.text
        revealed = finished.json()
        assert revealed["seed"] == 3 and revealed["log"]
        replayed = python(
            "from playbench.core.match import Match;"
            f"print(Match.replay('nim', 3, None, {revealed['log']!r}).fingerprint())"
        )
        assert replayed.strip() == revealed["fingerprint"]

    async def mcp_play() -> None:
        async with Client(f"{nim_server}/mcp") as client:
            games = (await client.call_tool("list_games", {})).structured_content["result"]
            assert SLUG in [game["slug"] for game in games]
            view = (
                await client.call_tool("new_game", {"game": SLUG, "seed": 3})
            ).structured_content
            match_id = view["matchId"]
            result = await client.call_tool("act", {"match_id": match_id, "command": "take 2 3"})
            assert result.structured_content["score"] == 3

    def browse() -> None:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path=str(chromium_path()), args=CHROMIUM_ARGS
            )
            page = browser.new_page(base_url=nim_server)
            page.goto("/")
            expect(page.locator(f'[data-thumb="{SLUG}"] canvas')).to_have_count(1)
            page.goto(f"/play/{SLUG}?seed=3")
            board = page.get_by_test_id("board")
            expect(board.get_by_test_id("picture-board")).to_have_count(1)
            expect(page.get_by_test_id("score")).to_have_text("0")
            board.focus()
            page.keyboard.press("b")
            expect(page.get_by_test_id("score")).to_have_text("1")

            runs = tmp_path / "runs"
            playbench("run", SLUG, "--agent", "bot", "--seeds", "3", "--out", str(runs))
            record = _runs(runs)[0]
            steps = len((runs / record["replay"]).read_text().splitlines()) - 2
            page.goto("/replay")
            page.locator("#file").set_input_files(str(runs / record["replay"]))
            expect(page.locator("#position")).to_have_text(f"0 / {steps}")
            expect(board.get_by_test_id("picture-board")).to_have_count(1)
            page.locator("#last").click()
            expect(page.locator("#position")).to_have_text(f"{steps} / {steps}")
            expect(page.get_by_test_id("score")).to_have_text(str(record["score"]))
            browser.close()

    # each in a thread of its own, so that neither meets an event loop a browser test run
    # earlier in this process leaves running here (Playwright's sync API keeps one)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(anyio.run, mcp_play).result()
        pool.submit(browse).result()


def test_gymnasium_checks_and_vectors_nim(nim_installed):
    out = python(
        "import gymnasium, playbench.gym\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "env = gymnasium.make('playbench/Nim-v0')\n"
        "check_env(env.unwrapped)\n"
        "envs = gymnasium.make_vec('playbench/Nim-v0', num_envs=4)\n"
        "observations, infos = envs.reset(seed=3)\n"
        "print(infos['action_mask'].shape, observations['heaps'].tolist())\n"
    )
    assert out.startswith("(4, 9) ")
