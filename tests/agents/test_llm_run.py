"""``playbench run --agent llm`` end to end against the scripted endpoint."""

from __future__ import annotations

import json
from pathlib import Path

from playbench.cli import main
from tests.agents.chat_server import MODEL, Reply, legal_commands
from tests.agents.conftest import KEY


def first_legal(body):
    commands = legal_commands(body)
    return Reply(json.dumps({"commands": commands[-1:], "say": "go"}), 11, 3)


def files_of(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


def test_a_run_records_every_call_and_never_the_key(tally, chat, tmp_path, capsys):
    # seed 0: prose then a good reply; every later turn answers at once
    chat.add(Reply("Hmm.", 5, 1), *[first_legal] * 50)
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    assert main([*command, "--seeds", "0-1", "--workers", "1", "--out", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "calls" in out and "fallbacks" in out
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    # tally: steps of 2 reach the goal 8 in 4 turns
    assert [row["llm"]["calls"] for row in rows] == [5, 4]
    assert [row["llm"]["retries"] for row in rows] == [1, 0]
    assert [row["llm"]["parseFailures"] for row in rows] == [1, 0]
    assert [row["llm"]["promptTokens"] for row in rows] == [49, 44]
    assert [row["llm"]["completionTokens"] for row in rows] == [13, 12]
    assert all(row["llm"]["fallbacks"] == 0 and row["model"] == MODEL for row in rows)
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["llm"] == {
        "calls": 9,
        "promptTokens": 93,
        "completionTokens": 25,
        "parseFailures": 1,
        "retries": 1,
        "fallbacks": 0,
    }
    replay = (folder / "replays" / "tally-0.jsonl").read_text().splitlines()
    first = json.loads(replay[1])
    assert first["turns"][0]["replies"][0] == "Hmm."
    assert first["turns"][0]["say"] == "go" and first["turns"][0]["retried"] is True
    assert json.loads(replay[0])["model"] == MODEL
    for path in files_of(folder):
        assert KEY not in path.read_text()
    assert main(["verify", str(folder)]) == 0


def test_an_unreachable_endpoint_writes_nothing(tally, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", MODEL]
    command += ["--base-url", "http://127.0.0.1:9/v1", "--out", str(folder)]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "cannot reach the endpoint" in err and err.count("\n") == 1
    assert not folder.exists()


def test_a_missing_key_writes_nothing(tally, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    folder = tmp_path / "out"
    assert main(["run", "tally", "--agent", "llm", "--model", "m", "--out", str(folder)]) == 2
    assert "no API key: set OPENAI_API_KEY" in capsys.readouterr().err
    assert not folder.exists()
