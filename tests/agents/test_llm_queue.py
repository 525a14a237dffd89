"""A call's own time and its queueing, apart: the seconds a call records start when it has
a slot among the calls allowed in flight (the endpoint's throttle), and the wait for the
slot is recorded as ``queue`` and summed as ``queueSeconds``, beside ``seconds``, into the
figures (``queueSecondsPerCall`` beside ``secondsPerCall``).

The scripted server answers each call after a fixed latency, so a call's own seconds are
at least that latency, and a call that waited for the only slot while another held it
for that latency queued at least as long, whatever the machine's load."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable

import pytest

from playbench.agents.llm import Ask, Endpoint, LlmSettings
from playbench.cli import main
from playbench.runner.bench import bench_figures
from tests.agents.chat_server import MODEL, Reply
from tests.agents.test_llm_scale import first_legal, game, llm_bench, records, suite_file

#: the scripted server's latency for every call, in seconds
LATENCY = 0.25
ASK = Ask([{"role": "user", "content": "Say something."}], None, None, "turn")
#: how long a test waits for an event that is due at once (a bound, not a timing)
HUNG = 60


def rounded(values: Iterable[float]) -> object:
    """The sum of recorded values, as a total rounded to 4 places equals it: each value
    and the total are rounded, each by at most half the last place."""
    held = list(values)
    return pytest.approx(sum(held), abs=0.00005 * (len(held) + 1))


def test_a_call_waiting_for_a_slot_queues_apart_from_its_own_time(chat):
    arrived, release = threading.Event(), threading.Event()

    def held(body):
        # the first call holds the only slot until the second waits for it, then
        # takes the scripted latency like any other
        arrived.set()
        release.wait(HUNG)
        return Reply("first", 3, 2, delay=LATENCY)

    chat.add(held, Reply("second", 3, 2, delay=LATENCY))
    endpoint = Endpoint(LlmSettings(model=MODEL, base_url=chat.base_url, retries=0), 1)
    answers = {}

    def ask(name: str) -> None:
        answers[name] = endpoint.call(ASK)

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    assert arrived.wait(HUNG)
    second = threading.Thread(target=ask, args=("second",))
    second.start()
    throttle = endpoint.throttle
    with throttle._lock:
        assert throttle._lock.wait_for(lambda: throttle.waiting == 1, HUNG)
    release.set()
    first.join(HUNG)
    second.join(HUNG)
    endpoint.close()
    assert [answers["first"].text, answers["second"].text] == ["first", "second"]
    # one slot: the server never had two calls at once
    assert chat.peak == 1 and throttle.waiting == 0
    # each call's own time is at least the server's latency
    assert answers["first"].latency >= LATENCY and answers["second"].latency >= LATENCY
    # the second waited while the first, already holding the slot, took its latency
    assert answers["second"].queued >= LATENCY
    record = answers["second"].record("parsed")
    assert record["queue"] == round(answers["second"].queued, 4)
    assert record["latency"] == round(answers["second"].latency, 4)


def slow_first_legal(body):
    reply = first_legal(body)
    return Reply(reply.content, reply.prompt_tokens, reply.completion_tokens, delay=LATENCY)


def test_the_figures_sum_each_calls_own_time_and_queueing_apart(tally, chat, tmp_path):
    chat.add(*[slow_first_legal] * 8)
    suite = suite_file(tmp_path, {"tally": game("0-1", maxTurns=4)})
    folder = tmp_path / "out"
    assert llm_bench(chat, suite, folder, "--concurrency", "2") == 0
    rows = records(folder / "tally")
    calls = []
    for row in rows:
        replay = (folder / "tally" / row["replay"]).read_text().splitlines()
        notes = [n for line in map(json.loads, replay) for n in line.get("turns", ())]
        mine = [call for note in notes for call in note["calls"]]
        calls += mine
        llm = row["llm"]
        assert llm["seconds"] == rounded(call["latency"] for call in mine)
        assert llm["queueSeconds"] == rounded(call.get("queue", 0.0) for call in mine)
    assert len(calls) == 8 and all(call["latency"] >= LATENCY for call in calls)
    figures = bench_figures(folder)["games"]["tally"]["llm"]
    seconds = sum(row["llm"]["seconds"] for row in rows)
    queued = sum(row["llm"]["queueSeconds"] for row in rows)
    assert figures["secondsPerCall"] == round(seconds / 8, 4) >= LATENCY
    assert figures["queueSecondsPerCall"] == round(queued / 8, 4)
    assert figures["queueSeconds"] == round(queued, 4)

    report = tmp_path / "report"
    assert main(["report", str(folder), "--out", str(report)]) == 0
    markdown = (report / "report.md").read_text()
    header = next(line for line in markdown.splitlines() if "seconds per call" in line)
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    [row] = [line for line in markdown.splitlines() if line.startswith("| llm") and "Tally" in line]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    shown = dict(zip(columns, cells, strict=True))
    assert shown["seconds per call"] == f"{figures['secondsPerCall']:.2f}"
    assert shown["queueing per call"] == f"{figures['queueSecondsPerCall']:.2f}"
