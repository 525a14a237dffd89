"""The progress display of a model's bench: a line per game with its turns, calls,
tokens and spend, read from the ledger, which moves with every turn (not only when an
episode ends)."""

from __future__ import annotations

import io

from rich.console import Console

from playbench.agents import LlmSettings
from playbench.runner.bench import BenchRequest, execute_bench, prepare_bench
from playbench.runner.ledger import LEDGER
from playbench.runner.run import Prices
from playbench.runner.suite import load_suite
from tests.agents.chat_server import MODEL
from tests.agents.test_llm_scale import first_legal, game, suite_file


def test_a_line_per_game_moves_with_every_turn(tally, chat, tmp_path):
    seen: list[int] = []
    start = LEDGER.reading("tally")

    def watching(body):
        # what the display reads while tally's only episode is still being played
        if "Tally" in body["messages"][0]["content"]:
            seen.append((LEDGER.reading("tally") - start).turns)
        return first_legal(body, tokens=(1000, 0))

    chat.add(*[watching] * 40)
    suite = load_suite(
        str(suite_file(tmp_path, {"tally": game("0"), "delvewick": game("1", 2000, maxTurns=3)}))
    )
    llm = LlmSettings(model=MODEL, base_url=chat.base_url)
    plan = prepare_bench(BenchRequest(suite, "llm", llm, out=tmp_path / "out", concurrency=1))
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=200)
    report = execute_bench(plan, console, Prices(price_in=1.0, price_out=4.0))
    assert report.bench is not None
    # before each of tally's eight calls, the turns already played were on the ledger
    assert seen == list(range(8))
    final = screen.getvalue().split("\r")[-1]
    assert "tally" in final and "8 turns, 8 calls, 8,000 tokens, $0.01" in final
    assert "delvewick" in final and "3 turns, 3 calls, 3,000 tokens" in final
    assert "11 turns, 11 calls, 11,000 tokens, $0.01" in final
