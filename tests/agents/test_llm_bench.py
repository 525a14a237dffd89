"""``playbench bench --agent llm`` against the scripted endpoint: the suite's harness
settings reach the model, and ``bench.json`` and the report show the model's share."""

from __future__ import annotations

import json

from PIL import Image

from playbench.cli import main
from playbench.runner.bench import bench_figures, check_bench, read_bench
from playbench.runner.charts import PIXELS
from tests.agents.chat_server import MODEL, Reply
from tests.agents.test_llm_run import last_legal

SUITE = {
    "name": "tally-llm",
    "description": "the test game, two seeds, short replies",
    "games": {
        "tally": {"seeds": "0-1", "options": {}, "maxSteps": 50, "harness": {"maxTokens": 64}}
    },
}


def test_an_llm_bench_shows_the_model_share(tally, chat, tmp_path, capsys):
    # seed 0: two prose replies, so the bot plays the first turn (a step of 1); then every
    # turn takes the last legal step: 1 -> 3 -> 5 -> 7 -> 8 and, seed 1, 2 -> 4 -> 6 -> 8
    chat.add(Reply("Hmm.", 5, 1), Reply("Hmm.", 5, 1), *[last_legal] * 20)
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    folder = tmp_path / "llm"
    command = ["bench", "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    assert main([*command, "--suite", str(suite), "--concurrency", "1", "--out", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "model turns" in out and "89%" in out
    assert {request["max_tokens"] for request in chat.requests} == {64}
    data = read_bench(folder)
    assert data["model"] == MODEL
    llm = data["games"]["tally"]["llm"]
    assert {key: llm[key] for key in ("calls", "fallbacks", "turns", "modelTurns")} == {
        "calls": 10,
        "fallbacks": 1,
        "turns": 9,
        "modelTurns": 8,
    }
    assert llm["tokens"] == 2 * (5 + 1) + 8 * (11 + 3)
    assert llm["modelTurnShare"] == 0.8889 and llm["fallbackShare"] == 0.1111
    assert llm["tokensPerTurn"] == round(124 / 9, 4)
    assert llm["secondsPerCall"] > 0
    assert data["headline"]["llm"]["modelTurnShare"] == 0.8889
    assert check_bench(folder) == []

    # records that do not count turns (older runs): the replays' turn notes give them
    runs = folder / "tally" / "runs.jsonl"
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    for row in rows:
        del row["llm"]["turns"], row["llm"]["modelTurns"]
    runs.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert bench_figures(folder)["games"]["tally"]["llm"] == llm

    report = tmp_path / "report"
    assert main(["report", str(folder), "--out", str(report)]) == 0
    with Image.open(report / "llm.png") as image:
        assert image.size == PIXELS
    page = (report / "index.html").read_text()
    assert "Language models" in page and "89%" in page and "11%" in page
    # beside the headline and every game's figures: who played them
    markdown = (report / "report.md").read_text()
    assert markdown.count("| 89% model |") == 2
