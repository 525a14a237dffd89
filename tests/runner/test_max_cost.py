"""``--max-cost`` caps the result, not one invocation: the spend already in the folder
(finished episodes' records, unfinished ones' journals) counts, so the same command run
again spends nothing more, and a raised cap spends only the difference."""

from __future__ import annotations

import json

from tests.agents.test_llm_scale import first_legal, game, llm_bench, records, suite_file

#: a call's 1000 prompt tokens cost $0.001 at $1 per million
PRICES = ["--price-in", "1", "--price-out", "4", "--concurrency", "1"]


def costly(body):
    return first_legal(body, tokens=(1000, 0))


def test_max_cost_caps_the_result_over_invocations(tally, chat, tmp_path, capsys):
    chat.add(*[costly] * 40)
    suite = suite_file(tmp_path, {"tally": game("0")})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, *PRICES, "--max-cost", "0.004") == 1
    assert "--max-cost reached" in capsys.readouterr().err
    assert len(chat.requests) == 4
    # the same command again: the result has spent its $0.004, so nothing is asked
    assert llm_bench(chat, suite, folder, *PRICES, "--max-cost", "0.004") == 1
    assert "--max-cost reached" in capsys.readouterr().err
    assert len(chat.requests) == 4
    # a cap raised by $0.002 buys two calls more
    assert llm_bench(chat, suite, folder, *PRICES, "--max-cost", "0.006") == 1
    assert len(chat.requests) == 6
    # tally takes eight turns: the rest of them, once each
    assert llm_bench(chat, suite, folder, *PRICES, "--max-cost", "1") == 0
    (row,) = records(folder / "tally")
    assert row["llm"]["calls"] == len(chat.requests) == 8
    assert row["llm"]["promptTokens"] == 8000 and row["progress"] == 1.0
    bench = json.loads((folder / "bench.json").read_text())
    assert bench["games"]["tally"]["llm"]["calls"] == 8
