"""Replays that verify in the browser: a ranked game on a seed the server drew, and the
file ``playbench run`` writes, each rebuilt to the score its source gave."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from playbench.cli import main
from playbench.core.rng import draw_seed
from playbench.runner.replay import read_replay
from tests.server.helpers import Player


def play_to_the_end(player: Player) -> None:
    """Swap the first legal swap until the game is over (each answer gives the next)."""
    while not player.last["gameOver"]:
        swap = next(c for c in player.last["commands"] if c.startswith("swap"))
        assert player.act(swap).status_code == 200, player.last


def test_a_ranked_game_replays_in_the_browser_to_its_finished_score(
    page: Page, api: httpx.Client
) -> None:
    player = Player(api, "gem-swap", seed=None)  # type: ignore[arg-type]
    assert player.last["ranked"] is True and player.last["seed"] is None
    play_to_the_end(player)
    done = player.post("finish", {"rating": 6})
    assert done.status_code == 200, done.text
    finished = done.json()
    assert finished["rank"] is not None and finished["seed"] is not None
    page.goto(f"/replay/{finished['sessionId']}")
    total = len(finished["log"])
    expect(page.locator("#position")).to_have_text(f"0 / {total}")
    page.locator("#last").click()
    expect(page.locator("#position")).to_have_text(f"{total} / {total}")
    expect(page.get_by_test_id("board")).to_have_attribute("data-moves", str(total))
    expect(page.get_by_test_id("score")).to_have_text(str(finished["score"]))
    # the header: the seed, the final score the rules give, the moves as the game counts them
    head = f"seed {finished['seed']} · final score {finished['score']} · "
    expect(page.locator("#who")).to_contain_text(head)
    counted = page.locator("#who").inner_text().removeprefix(head)
    assert counted == f"{total} moves" or counted.endswith(f" moves ({total} actions)"), counted
    expect(page.get_by_test_id("status")).not_to_have_text("playing")
    expect(page.locator("#problem")).to_be_hidden()


def random_run(folder: Path) -> Path:
    """The replay file ``playbench run`` writes for a random agent on a drawn seed."""
    seed = draw_seed()
    command = ["run", "gem-swap", "--agent", "random", "--seeds", str(seed), "--workers", "1"]
    assert main([*command, "--out", str(folder)]) == 0
    return folder / "replays" / f"gem-swap-{seed}.jsonl"


def test_replay_opens_the_file_playbench_run_writes(page: Page, tmp_path: Path) -> None:
    path = random_run(tmp_path / "run")
    written = read_replay(path)
    assert json.loads(path.read_text().splitlines()[-1]) == {"end": written.end}
    page.goto("/replay")
    page.locator("#file").set_input_files(str(path))
    total = len(written.lines)
    try:
        expect(page.locator("#position")).to_have_text(f"0 / {total}")
    except AssertionError as error:
        problem = page.locator("#problem").text_content()
        raise AssertionError(f"{error}\nthe page's problem line: {problem!r}") from None
    page.locator("#last").click()
    expect(page.locator("#position")).to_have_text(f"{total} / {total}")
    expect(page.get_by_test_id("score")).to_have_text(str(written.end["score"]))
    expect(page.locator("#heading")).to_have_text("Replay: Gem Swap · random")
    expect(page.locator("#problem")).to_be_hidden()


def test_replay_names_an_end_line_that_disagrees(page: Page, tmp_path: Path) -> None:
    seed = draw_seed()
    out = tmp_path / "run"
    assert (
        main(["run", "gem-swap", "--agent", "random", "--seeds", str(seed), "--out", str(out)]) == 0
    )
    path = out / "replays" / f"gem-swap-{seed}.jsonl"
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end["end"]["score"] += 1
    path.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    page.goto("/replay")
    page.locator("#file").set_input_files(str(path))
    expect(page.locator("#position")).to_have_text(f"0 / {len(lines) - 2}")
    page.locator("#last").click()
    expect(page.locator("#problem")).to_contain_text(f"its end line says {end['end']['score']}")
