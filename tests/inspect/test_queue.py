"""At the Inspect door a call's seconds are the request's own time as Inspect measures it
(the request that answered), and the rest of the call (Inspect's wait for a connection
slot, its retries, its own handling) is its queueing, recorded apart: two samples through
one connection against the scripted server at a fixed latency."""

from __future__ import annotations

import json

from inspect_ai.log import read_eval_log

from playbench.runner.inspect_log import STORE_KEY
from tests.agents.chat_server import Reply
from tests.agents.test_llm_queue import rounded
from tests.inspect.conftest import MODEL, first_legal, inspect_eval, logs

LATENCY = 0.25
TURNS = 2


def slow(body):
    reply = first_legal(body)
    return Reply(reply.content, reply.prompt_tokens, reply.completion_tokens, delay=LATENCY)


def test_a_call_through_one_connection_records_its_own_time_and_its_wait(metadata, chat, tmp_path):
    chat.add(*[slow] * (2 * TURNS))
    args = ["playbench/gem_swap", "--model", MODEL, "-T", "seeds=1-2", "-T", f"max_turns={TURNS}"]
    done = inspect_eval(metadata, tmp_path, *args, "--max-connections", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = logs(tmp_path)
    log = read_eval_log(str(path))
    assert log.status == "success"
    # one connection: the server never had two calls at once
    assert chat.peak == 1 and len(chat.requests) == 2 * TURNS
    for sample in log.samples:
        episode = sample.store[STORE_KEY]
        llm = episode["llm"]
        calls = [
            call
            for line in episode["replay"][1:-1]
            for note in line.get("turns", ())
            for call in note["calls"]
        ]
        assert len(calls) == llm["calls"] == TURNS
        assert all(call["latency"] >= LATENCY for call in calls), json.dumps(calls)
        assert llm["seconds"] == rounded(call["latency"] for call in calls)
        assert llm["queueSeconds"] == rounded(call.get("queue", 0.0) for call in calls)
