"""benchmarks/llm_latency.py: its stand-in API answers moves from the request, and a tiny
run (the quick suite cut to one seed and six steps a game, 0.05 s a call) prints every
figure, with the estimate above what the run made. No clock figure is asserted."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import httpx
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "llm_latency.py"
GAMES = ("chimestep", "cogcrawl", "delvewick", "gem-swap")


@pytest.fixture
def bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("llm_latency", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "llm_latency", module)
    spec.loader.exec_module(module)
    return module


def turn_body(moves, offered):
    schema = {
        "type": "object",
        "properties": {
            "commands": {"type": "array", "items": {"type": "string", "enum": offered}},
            "notes": {"type": "string"},
        },
    }
    return {
        "messages": [
            {"role": "system", "content": "rules"},
            {"role": "user", "content": f"Turn 1.\nLegal moves now: {json.dumps(moves)}\n"},
        ],
        "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
    }


def test_a_turn_is_answered_with_a_legal_first_move_then_offered_ones(bench):
    body = turn_body(["up", "left"], ["up", "left", "down", "right", "wait"])
    reply = json.loads(bench.reply_to(body))
    assert set(reply) == {"commands", "notes"}
    assert 1 <= len(reply["commands"]) <= 3
    assert reply["commands"][0] in ("up", "left")
    assert all(move in ("up", "left", "down", "right", "wait") for move in reply["commands"])
    assert bench.reply_to(body) == bench.reply_to(body)


def test_action_objects_come_from_the_schemas_any_of(bench):
    items = {
        "anyOf": [
            {"properties": {"do": {"enum": ["move"]}, "dir": {"enum": ["n"]}}},
            {"properties": {"do": {"enum": ["travel"]}, "x": {"enum": [3, 4]}, "y": {"enum": [5]}}},
        ]
    }
    assert bench.offered_moves(items) == [
        {"do": "move", "dir": "n"},
        {"do": "travel", "x": 3, "y": 5},
    ]


def test_the_server_waits_and_counts(bench):
    body = turn_body(["up"], ["up"])
    with bench.LatencyServer(0.01) as server:
        answer = httpx.post(f"{server.base_url}/chat/completions", json=body).json()
        ping = httpx.post(f"{server.base_url}/chat/completions", json={**body, "max_tokens": 1})
        listed = httpx.get(f"{server.base_url}/models").json()
    assert json.loads(answer["choices"][0]["message"]["content"])["commands"][0] == "up"
    usage = answer["usage"]
    # the messages' tokens, 8 a message and 8 for the reply
    assert usage["prompt_tokens"] == 1 + 11 + 2 * 8 + 8
    assert ping.json()["choices"][0]["message"]["content"] == "OK"
    assert (server.tally.calls, server.tally.pings, server.tally.peak) == (1, 1, 1)
    assert listed["data"][0]["id"] == bench.MODEL


def test_a_tiny_run_prints_its_figures(bench, capsys):
    argv = ["--suite", "quick", "--seeds", "1", "--max-steps", "6", "--latency", "0.05"]
    assert bench.main([*argv, "--concurrency", "4"]) == 0
    out = capsys.readouterr().out
    assert "suite: quick-cut" in out
    assert "latency: 0.05 s, concurrency 4" in out
    calls = re.search(r"calls: (\d+) \(runs\.jsonl: (\d+)\), pings \d+", out)
    assert calls is not None and calls.group(1) == calls.group(2) and int(calls.group(1)) > 0
    assert "bench exit: 0" in out
    for field in ("peak in flight", "longest episode", "wall", "ideal", "wall / ideal"):
        assert re.search(rf"^{re.escape(field)}: \S+", out, re.MULTILINE), field
    assert re.search(r"^harness cpu: \S+ s, of which start-up \S+ s; \S+ ms a call$", out, re.M)
    for game in GAMES:
        assert re.search(rf"^estimate {game}: calls .*: holds$", out, re.MULTILINE), game
    assert "median wall / ideal: " in out and "median harness cpu a call: " in out
    assert out.rstrip().endswith("estimate never below the run: yes")
