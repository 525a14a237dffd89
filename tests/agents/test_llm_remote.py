"""The llm agent playing through a playbench server's session API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from playbench.agents import LlmSettings
from playbench.cli import main
from playbench.runner.episode import EpisodeSpec, Task, play
from tests.agents.chat_server import MODEL, Reply
from tests.arena import arena, enrol


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with arena(tmp_path / "server-data") as url:
        yield url


def test_a_seat_failed_twice_is_played_by_the_delver_on_a_server_and_replays_the_same(chat, server):
    wait = json.dumps({"actions": [{"do": "search"}], "notes": "n"})
    chat.add(Reply("prose", 1, 1), Reply('{"actions": ["search"]}', 1, 1), Reply(wait, 1, 1))
    settings = LlmSettings(model=MODEL, base_url=chat.base_url)
    spec = EpisodeSpec("cogcrawl", "llm", llm=settings, server=server, max_steps=2)
    far = play(spec, Task(5))
    assert far.record["outcome"] == "truncated" and far.record["steps"] == 2
    assert far.record["llm"]["parseFailures"] == 2 and far.record["llm"]["fallbacks"] == 1
    assert far.record["llm"]["modelTurns"] == 1
    actions = [line["action"] for line in far.replay[1:-1]]
    assert actions[0]["reply"].startswith('{"actions":') and actions[1] == {"reply": wait}
    assert far.replay[1]["turns"][0]["played"] == "bot"
    assert far.replay[2]["turns"][0]["calls"][0]["outcome"] == "parsed"


def test_an_llm_run_on_a_server_verifies(tally, chat, server, tmp_path, monkeypatch):
    enrol(server, "bot-o", monkeypatch)
    chat.add(Reply("nope", 2, 2), *[Reply('{"commands": ["step 2", "step 2"]}', 3, 3)] * 4)
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    command += ["--server", server, "--player", "bot-o", "--seeds", "1", "--out", str(folder)]
    assert main([*command, "--concurrency", "1"]) == 0
    (row,) = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert row["score"] >= 8 and row["steps"] == 4
    # two turns of two steps, the review at finish: 4 calls
    assert row["llm"]["calls"] == 4 and row["llm"]["retries"] == 1
    assert row["remote"]["rating"] == 5  # the review's answer is no rating object
    assert main(["verify", str(folder)]) == 0
