"""A model's evaluation at scale, against the scripted endpoint: many calls in flight
across games, a throttle that yields to 429s, budgets, resume after a kill, --max-cost,
and figures that stay the model's."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from playbench.agents.llm import Throttle
from playbench.cli import main
from playbench.runner.bench import read_bench
from playbench.runner.replay import read_replay
from tests.agents.chat_server import MODEL, Reply, Status, legal_commands, serving, user_message
from tests.agents.conftest import KEY

#: a bound on waiting for an event, so a broken test fails instead of hanging
PATIENCE = 60.0


def first_legal(body, tokens=(11, 3)):
    """A reply that plays the first legal move of the turn (an object for Cogcrawl)."""
    moves = legal_commands(body)
    key = "actions" if isinstance(moves[0], dict) else "commands"
    return Reply(json.dumps({key: moves[:1], "notes": ""}), *tokens)


def suite_file(tmp_path: Path, games: dict) -> Path:
    data = {"name": "scale", "description": "a test suite", "games": games}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data))
    return path


def game(seeds: str, max_steps: int = 50, **extra) -> dict:
    return {"seeds": seeds, "options": {}, "maxSteps": max_steps, "harness": {}, **extra}


def llm_bench(chat, suite: Path, folder: Path, *extra: str) -> int:
    command = ["bench", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    return main([*command, "--suite", str(suite), "--out", str(folder), *extra])


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


def test_episodes_of_two_games_are_in_flight_at_once(tally, chat, tmp_path):
    target = 8
    seen: list[str] = []

    def held_until_eight_wait(body):
        # each call waits until eight are in flight (or its patience runs out)
        seen.append(body["messages"][0]["content"].split(".")[0])
        deadline = time.monotonic() + PATIENCE
        while chat.peak < target and time.monotonic() < deadline:
            time.sleep(0.005)
        return first_legal(body)

    chat.add(*[held_until_eight_wait] * 200)
    levels = {str(n): {"startLevel": n} for n in range(1, 5)}  # one episode a level
    delvewick = game("1-4", 2000, maxTurns=2, optionsBySeed=levels)
    suite = suite_file(tmp_path, {"tally": game("0-3"), "delvewick": delvewick})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, "--concurrency", "8") == 0
    assert chat.peak == target
    assert set(seen[:target]) == {"You are playing Tally", "You are playing Delvewick"}
    assert len(records(folder / "tally")) == 4 and len(records(folder / "delvewick")) == 4


def test_a_throttle_halves_on_a_429_and_grows_back_one_window_at_a_time():
    throttle = Throttle(8)
    throttle.rate_limited()
    throttle.rate_limited()
    assert throttle.limit == 2 and throttle.slowdowns == 2
    entered = threading.Event()
    third = threading.Event()
    with throttle, throttle:

        def enter():
            entered.set()
            with throttle:
                third.set()

        thread = threading.Thread(target=enter)
        thread.start()
        entered.wait(PATIENCE)
        # two in flight: the third waits for a slot
        assert not third.wait(0.05) and throttle.in_flight == 2
    thread.join(PATIENCE)
    assert third.is_set() and throttle.peak == 2
    for _ in range(2):
        throttle.answered()
    assert throttle.limit == 3
    for _ in range(3):
        throttle.answered()
    assert throttle.limit == 4


def test_a_429_storm_slows_the_run_down_and_it_still_finishes(tally, chat, tmp_path):
    from playbench.agents.llm import endpoint

    storm = [Status(429, "slow down", headers=(("Retry-After", "0"),))] * 12
    chat.add(*storm, *[first_legal] * 200)
    suite = suite_file(tmp_path, {"tally": game("0-5")})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, "--concurrency", "6", "--retries", "10") == 0
    (throttle,) = [
        held.throttle
        for held in endpoint._ENDPOINTS.values()
        if held.settings.base_url == chat.base_url
    ]
    assert throttle.slowdowns == 12
    rows = records(folder / "tally")
    assert len(rows) == 6 and all(row["progress"] == 1.0 for row in rows)
    assert sum(row["llm"]["transientRetries"] for row in rows) == 12


def test_max_turns_ends_an_episode_truncated_with_the_budget_named(tally, chat, tmp_path):
    chat.add(*[first_legal] * 50)
    suite = suite_file(tmp_path, {"tally": game("0", maxTurns=2)})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder) == 0
    (row,) = records(folder / "tally")
    assert row["outcome"] == "truncated" and row["budget"] == "maxTurns"
    assert row["llm"]["calls"] == 2 and len(chat.requests) == 2
    end = read_replay(folder / "tally" / row["replay"]).end
    assert end["budget"] == "maxTurns" and end["outcome"] == "truncated"


def test_max_tokens_ends_an_episode_once_its_tokens_are_spent(tally, chat, tmp_path):
    chat.add(*[lambda body: first_legal(body, tokens=(90, 10))] * 50)
    suite = suite_file(tmp_path, {"tally": game("0", maxTokens=250)})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder) == 0
    (row,) = records(folder / "tally")
    # 0, 100 and 200 tokens are under 250: three calls, then the budget is spent
    assert row["budget"] == "maxTokens" and row["llm"]["calls"] == 3
    assert row["llm"]["promptTokens"] + row["llm"]["completionTokens"] == 300


def test_a_bench_the_model_never_played_exits_1_and_is_not_the_models(
    tally, chat, tmp_path, capsys
):
    chat.add(*[Reply("I would rather not.", 5, 5)] * 100)
    suite = suite_file(tmp_path, {"tally": game("0-1")})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, "--concurrency", "1") == 1
    err = capsys.readouterr().err
    assert "tally: the model played none of its" in err and "no result of the model's" in err
    assert read_bench(folder)["games"]["tally"]["llm"]["modelTurns"] == 0
    # the report ranks nothing of it
    assert main(["report", str(folder), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert "is no result of the model's, so it is not compared" in err
    assert not (tmp_path / "report").exists()


def test_a_plan_may_hold_a_move_only_its_first_move_makes_legal(chat, tmp_path, capsys):
    # Delvewick's level 1: "left" is refused at the start and legal after "right"
    chat.add(Reply('{"commands": ["right", "left"], "notes": ""}', 5, 5))
    chat.add(*[first_legal] * 5)
    folder = tmp_path / "out"
    command = ["run", "delvewick", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    command += ["--seeds", "1", "--max-turns", "3", "--out", str(folder)]
    assert main(command) == 0
    first = chat.requests[0]
    schema = first["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["commands"]["items"]["enum"][:3] == ["down", "right", "wait"]
    assert set(schema["properties"]["commands"]["items"]["enum"]) == {
        "up",
        "down",
        "left",
        "right",
        "wait",
    }
    (row,) = records(folder)
    lines = read_replay(folder / row["replay"]).lines
    moves = [{"type": "move", "dir": "right"}, {"type": "move", "dir": "left"}]
    assert [line["action"] for line in lines[:2]] == moves
    assert lines[0]["turns"][0]["played"] == "model"


def test_a_cogcrawl_reply_with_raw_line_breaks_near_the_limit_stays_the_models(chat):
    from playbench.core.match import Match
    from playbench.core.registry import get_game
    from playbench.runner.episode import LocalTable
    from tests.agents.test_llm_seat import agent_for

    cogcrawl = get_game("cogcrawl")
    notes = "line\n" * 790  # raw line breaks: 3,950 bytes that grow when escaped
    text = '{"actions": [{"do": "wait"}], "notes": "' + notes + '"}'
    assert 3900 < len(text.encode()) < 4096
    chat.add(Reply(text, 10, 10))
    table = LocalTable(Match.start(cogcrawl, 3, None), 100)
    agent = agent_for(cogcrawl, chat)
    turn = agent.turn(table)
    assert turn.note["played"] == "model" and turn.note["repaired"] is True
    assert table.view()["observation"]["fallback"] is False
    assert agent.stats()["modelTurns"] == 1 and agent.stats()["fallbacks"] == 0


def test_a_ray_address_nothing_answers_is_one_line_and_exit_2(tmp_path, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = ["run", "delvewick", "--agent", "random", "--backend", "ray", "--seeds", "0"]
    command += ["--ray-address", f"127.0.0.1:{port}", "--out", str(tmp_path / "out")]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"no Ray cluster answers at --ray-address 127.0.0.1:{port}" in err


def test_an_endpoint_that_dies_leaves_the_episode_resumable(tally, chat, tmp_path, capsys):
    chat.add(first_legal, *[Status(500, "gone")] * 20)
    suite = suite_file(tmp_path, {"tally": game("0")})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, "--retries", "0") == 1
    err = capsys.readouterr().err
    assert "a call failed after the client's retries" in err and "run again to resume" in err
    # one request after the first turn: the outage stopped the episode at once
    assert not (folder / "tally" / "runs.jsonl").exists()
    journal = folder / "tally" / "replays" / "tally-0.jsonl.partial"
    assert journal.exists() and len(chat.requests) == 2
    # the endpoint is back: the episode goes on from its recorded turns
    chat.script[:] = [first_legal] * 20
    assert llm_bench(chat, suite, folder, "--retries", "0") == 0, capsys.readouterr().err
    (row,) = records(folder / "tally")
    assert row["progress"] == 1.0 and row["resumedAt"] == [1]
    # tally takes eight turns: the model played each, the outage is an error, no fallback
    llm = row["llm"]
    assert (llm["turns"], llm["modelTurns"], llm["calls"]) == (8, 8, 8)
    assert (llm["errors"], llm["fallbacks"]) == (1, 0)
    assert not journal.exists()


def test_max_cost_stops_cleanly_and_a_second_run_finishes(tally, chat, tmp_path, capsys):
    chat.add(*[lambda body: first_legal(body, tokens=(1000, 0))] * 60)
    suite = suite_file(tmp_path, {"tally": game("0-1")})
    folder = tmp_path / "out"
    prices = ["--price-in", "1", "--price-out", "4", "--concurrency", "2"]
    # a call costs $0.001: both episodes stop after the turn that reaches $0.002
    assert llm_bench(chat, suite, folder, *prices, "--max-cost", "0.002") == 1
    assert "--max-cost reached" in capsys.readouterr().err
    assert not (folder / "bench.json").exists() and not (folder / "tally" / "runs.jsonl").exists()
    journals = sorted(path.name for path in (folder / "tally" / "replays").iterdir())
    assert journals == ["tally-0.jsonl.partial", "tally-1.jsonl.partial"]
    made = len(chat.requests)
    assert 2 <= made < 8
    assert llm_bench(chat, suite, folder, *prices, "--max-cost", "1") == 0
    rows = records(folder / "tally")
    # tally takes eight turns of "step 1" a seed: sixteen calls in all, none made twice
    assert sorted(row["seed"] for row in rows) == [0, 1] and len(chat.requests) == 16
    assert sum(row["llm"]["calls"] for row in rows) == 16
    assert all(row["resumedAt"] for row in rows)


def llm_command(base_url: str, folder: Path) -> list[str]:
    command = [sys.executable, "-m", "playbench.cli", "run", "delvewick", "--agent", "llm"]
    command += ["--model", MODEL, "--base-url", base_url, "--seeds", "1", "--max-turns", "12"]
    return [*command, "--concurrency", "1", "--out", str(folder)]


def test_a_run_killed_mid_episode_resumes_without_asking_any_turn_twice(tmp_path):
    environment = {**os.environ, "OPENAI_API_KEY": KEY}
    folder = tmp_path / "out"
    sixth = threading.Event()
    release = threading.Event()

    def answer(body):
        if "Turn 6." in user_message(body) and not release.is_set():
            sixth.set()
            release.wait(PATIENCE)  # never answered: the process is killed first
            return Status(500, "killed meanwhile")
        return first_legal(body)

    with serving([answer] * 100) as chat:
        process = subprocess.Popen(
            llm_command(chat.base_url, folder),
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert sixth.wait(PATIENCE)
        process.send_signal(signal.SIGKILL)
        process.wait()
        release.set()
        journal = folder / "replays" / "delvewick-1.jsonl.partial"
        assert journal.exists() and not (folder / "runs.jsonl").exists()
        done = subprocess.run(
            llm_command(chat.base_url, folder), env=environment, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        answered = [user_message(r).split("\n")[0] for r in chat.requests]
    turns = [line.split(".")[0] for line in answered]
    # turns 1 to 5 before the kill, turn 6 asked (never answered), then 6 to 11 once each:
    # the call cut off by the kill spent one of the twelve allowed
    assert turns == [f"Turn {n}" for n in [1, 2, 3, 4, 5, 6, 6, 7, 8, 9, 10, 11]]
    (row,) = records(folder)
    assert row["resumedAt"] == [5] and row["llm"]["calls"] == 12
    assert row["llm"]["unrecordedCalls"] == 1 and row["llm"]["turns"] == 11
    verified = subprocess.run(
        [sys.executable, "-m", "playbench.cli", "verify", str(folder)],
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "resumed at step 5" in verified.stdout


@pytest.mark.parametrize("flag", ["--max-turns", "--max-tokens-per-episode", "--concurrency"])
def test_a_budget_or_concurrency_below_one_is_refused(flag, tmp_path, capsys):
    command = ["run", "delvewick", "--agent", "random", "--seeds", "0", flag, "0"]
    assert main([*command, "--out", str(tmp_path / "out")]) == 2
    assert f"{flag} must be at least 1, got 0" in capsys.readouterr().err


def test_the_estimate_calls_nothing_and_prints_the_bound(tally, chat, tmp_path, capsys):
    suite = suite_file(tmp_path, {"tally": game("0-1", maxTurns=5)})
    folder = tmp_path / "out"
    prices = ["--price-in", "1", "--price-out", "2"]
    assert llm_bench(chat, suite, folder, "--estimate", *prices) == 0
    out = capsys.readouterr().out
    assert "no model was called" in out and "tally" in out and "10" in out
    assert chat.requests == [] and chat.pings == [] and not folder.exists()
