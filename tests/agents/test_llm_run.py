"""``playbench run --agent llm`` end to end against the scripted endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.cli import main
from tests.agents.chat_server import MODEL, Reply, legal_commands
from tests.agents.conftest import KEY


def last_legal(body):
    commands = legal_commands(body)
    return Reply(json.dumps({"commands": commands[-1:], "say": "go"}), 11, 3)


def files_of(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


def llm_run(chat, folder, *extra):
    command = ["run", "tally", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    return main([*command, "--concurrency", "1", "--out", str(folder), *extra])


def test_a_run_records_every_call_and_never_the_key(tally, chat, tmp_path, capsys):
    # seed 0: prose then a good reply; every later turn answers at once
    chat.add(Reply("Hmm.", 5, 1), *[last_legal] * 50)
    folder = tmp_path / "out"
    assert llm_run(chat, folder, "--seeds", "0-1") == 0
    out = capsys.readouterr().out
    assert "model turns" in out and "8/8 (100%)" in out and "errors" in out
    assert "not the model's alone" not in out
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    # tally: steps of 2 reach the goal 8 in 4 turns
    assert [row["llm"]["calls"] for row in rows] == [5, 4]
    assert [row["llm"]["retries"] for row in rows] == [1, 0]
    assert [row["llm"]["parseFailures"] for row in rows] == [1, 0]
    assert [row["llm"]["modelTurns"] for row in rows] == [4, 4]
    assert [row["llm"]["promptTokens"] for row in rows] == [49, 44]
    assert [row["llm"]["completionTokens"] for row in rows] == [13, 12]
    assert all(row["llm"]["errors"] == 0 and row["llm"]["transientRetries"] == 0 for row in rows)
    assert all(row["llm"]["fallbacks"] == 0 and row["model"] == MODEL for row in rows)
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["llm"] == {
        "turns": 8,
        "modelTurns": 8,
        "calls": 9,
        "promptTokens": 93,
        "completionTokens": 25,
        "parseFailures": 1,
        "repaired": 0,
        "refused": 0,
        "retries": 1,
        "fallbacks": 0,
        "errors": 0,
        "unrecordedCalls": 0,
        "transientRetries": 0,
        "reflections": 0,
        "modelShare": 1.0,
    }
    harness = {"replyFormat": "json_schema", "schemaIn": "json_schema", "fallback": "bot"}
    harness.update(memory=1, reflect=0)
    harness["vision"] = False
    assert summary["harness"] == harness
    config = json.loads((folder / "run.json").read_text())
    assert config["harness"] == harness and config["llm"]["retries"] == 4
    replay = (folder / "replays" / "tally-0.jsonl").read_text().splitlines()
    first = json.loads(replay[1])
    assert first["turns"][0]["replies"][0] == "Hmm."
    assert first["turns"][0]["say"] == "go" and first["turns"][0]["retried"] is True
    assert first["turns"][0]["played"] == "model"
    assert json.loads(replay[0])["model"] == MODEL
    for path in files_of(folder):
        assert KEY not in path.read_text()
    assert main(["verify", str(folder)]) == 0


def test_the_table_says_when_the_fallback_played(tally, chat, tmp_path, capsys):
    chat.add(Reply("no", 1, 1), Reply("no", 1, 1), *[last_legal] * 10)
    assert llm_run(chat, tmp_path / "out", "--seeds", "0", "--fallback", "random") == 0
    out = capsys.readouterr().out
    assert "the random fallback played 1 of" in out and "not the model's alone" in out


def test_a_run_the_model_never_played_exits_1(tally, chat, tmp_path, capsys):
    chat.add(*[Reply("I'd rather talk.", 1, 1)] * 20)
    folder = tmp_path / "out"
    assert llm_run(chat, folder, "--seeds", "0") == 1
    err = capsys.readouterr().err
    assert err == (
        "playbench: the model played none of the 8 turns (0 failed calls, 16 unreadable "
        "replies, 0 refused): every score is the fallback's\n"
    )
    assert (folder / "runs.jsonl").exists()


def test_steps_count_game_turns_not_failed_replies(tally, chat, tmp_path):
    chat.add(*[Reply("?", 1, 1), last_legal] * 6)
    folder = tmp_path / "out"
    assert llm_run(chat, folder, "--seeds", "0", "--max-steps", "3") == 0
    (row,) = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert row["steps"] == 3 and row["llm"]["modelTurns"] == 3 and row["outcome"] == "truncated"


def test_an_unknown_model_exits_2_in_one_line(tally, chat, tmp_path, capsys):
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", "nope", "--base-url", chat.base_url]
    assert main([*command, "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not serve the model 'nope': it serves script" in err
    assert not folder.exists() and chat.requests == [] and chat.pings == []


def test_the_start_up_check_asks_as_the_first_turn_does(tally, chat, tmp_path):
    chat.add(*[last_legal] * 10)
    assert llm_run(chat, tmp_path / "out", "--seeds", "0") == 0
    (ping,) = chat.pings
    enum = ping["response_format"]["json_schema"]["schema"]["properties"]["commands"]
    assert enum["items"]["enum"] == ["step 1", "step 2"] and ping["model"] == MODEL


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-tokens", "-5"], "playbench: --max-tokens must be at least 1, got -5\n"),
        (["--timeout", "0"], "playbench: --timeout must be more than 0 seconds, got 0\n"),
        (["--memory", "-1"], "playbench: --memory must be 0 to 50 turns, got -1\n"),
        (["--reflect", "-2"], "playbench: --reflect must be 0 (off) or more turns, got -2\n"),
        (
            ["--reply-format", "yaml"],
            "playbench: --reply-format must be one of text, json_object, json_schema, got 'yaml'\n",
        ),
        (["--vision"], "playbench: --vision: Tally has no picture (no learning module)\n"),
        (
            ["--base-url", "localhost:8080/v1"],
            "playbench: --base-url 'localhost:8080/v1' is no http(s) URL: write it with its "
            "scheme, e.g. http://127.0.0.1:8080/v1\n",
        ),
    ],
)
def test_bad_numbers_exit_2_before_any_call(tally, chat, tmp_path, capsys, flags, message):
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", MODEL, "--out", str(folder)]
    if "--base-url" not in flags:
        command += ["--base-url", chat.base_url]
    assert main([*command, *flags]) == 2
    assert capsys.readouterr().err == message
    assert chat.pings == [] and not folder.exists()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--model", "m", "--memory", "3"], "--model, --memory apply"),
        (["--temperature", "0.5"], "--temperature applies"),
    ],
)
def test_model_flags_with_another_agent_are_refused(tally, tmp_path, capsys, flags, said):
    folder = tmp_path / "out"
    assert main(["run", "tally", "--agent", "random", "--out", str(folder), *flags]) == 2
    assert capsys.readouterr().err == (
        f"playbench: {said} to --agent llm only (the agent is random)\n"
    )
    assert not folder.exists()


def test_an_unreachable_endpoint_writes_nothing(tally, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    folder = tmp_path / "out"
    command = ["run", "tally", "--agent", "llm", "--model", MODEL, "--retries", "0"]
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
