"""Endpoints that answer nonsense, and the start-up check's reach: a 200 whose body is
no chat completion (not JSON, not UTF-8, an HTML page) is one clear line and exit 2 at
the start-up check, never a traceback; met mid-run it stops the episode resumable; one
bench checks its endpoint and model once, not once per game."""

from __future__ import annotations

import json

import pytest

from playbench.agents import LlmAgent, LlmSettings
from playbench.agents.llm import EndpointDown
from playbench.cli import main
from playbench.core.match import Match
from playbench.runner.episode import LocalTable
from tests.agents.chat_server import MODEL, Raw
from tests.agents.test_llm_scale import first_legal, game, llm_bench, suite_file

HTML = Raw(b"<!doctype html><html><body>It works!</body></html>", "text/html")
NOT_JSON = Raw(b"OK then", "application/json")
NOT_UTF8 = Raw(b"\xff\xfe\x00\x81 not text", "application/json")


def llm_run(chat, folder, *extra: str) -> int:
    command = ["run", "delvewick", "--agent", "llm", "--model", MODEL, "--seeds", "2"]
    return main([*command, "--base-url", chat.base_url, "--out", str(folder), *extra])


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (HTML, "a 200 whose body is no chat completion ('<!doctype html><html><body>It works!"),
        (NOT_JSON, "a body that is not JSON (JSONDecodeError: Expecting value"),
        (NOT_UTF8, "a body that is not"),
    ],
)
def test_a_ping_answered_with_nonsense_is_one_line_and_exit_2(chat, tmp_path, capsys, body, said):
    chat.ping = body
    folder = tmp_path / "out"
    assert llm_run(chat, folder) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"the endpoint {chat.base_url} answered {said}" in err
    assert "is no OpenAI-compatible chat-completions server (check --base-url" in err
    assert chat.requests == [] and not folder.exists()


@pytest.mark.parametrize("body", [HTML, NOT_JSON, NOT_UTF8])
def test_a_model_list_of_nonsense_is_no_list_and_the_ping_decides(chat, tmp_path, body):
    chat.models = body
    chat.add(*[first_legal] * 4)
    assert llm_run(chat, tmp_path / "out", "--max-turns", "4") == 0
    assert chat.listings == 1 and len(chat.pings) == 1 and len(chat.requests) == 4


@pytest.mark.parametrize("body", [HTML, NOT_JSON, NOT_UTF8])
def test_nonsense_mid_run_is_an_outage_not_a_crash(tally, chat, body):
    chat.add(first_legal, body)
    agent = LlmAgent(tally, LlmSettings(model=MODEL, base_url=chat.base_url, retries=0))
    agent.reset(7)
    table = LocalTable(Match.start(tally, 7), 100)
    assert agent.turn(table).note["played"] == "model"
    with pytest.raises(EndpointDown, match=r"no chat completion|JSONDecodeError|Decode"):
        agent.turn(table)
    stats = agent.stats()
    assert (stats["turns"], stats["calls"], stats["errors"], stats["fallbacks"]) == (1, 1, 1, 0)


def test_a_bench_checks_its_endpoint_once_not_once_per_game(tally, chat, tmp_path):
    chat.add(*[first_legal] * 40)
    suite = suite_file(tmp_path, {"tally": game("0"), "delvewick": game("1", 2000, maxTurns=2)})
    assert llm_bench(chat, suite, tmp_path / "out") == 0
    assert (chat.listings, len(chat.pings)) == (1, 1)
    assert json.loads((tmp_path / "out" / "tally" / "runs.jsonl").read_text())["progress"] == 1
