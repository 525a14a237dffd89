"""A model server killed mid-run and started again: the call that met no server is no
turn, spends none of the budget and is never played by the fallback; the episode stops
resumable, and the same command run again finishes it with the outage counted apart."""

from __future__ import annotations

import json
import threading

from tests.agents.chat_server import ChatServer, serving
from tests.agents.test_llm_scale import first_legal, game, llm_bench, records, suite_file


def kill(server: ChatServer) -> None:
    """Stop answering at once: the listener closed, every open connection dropped."""
    server.http.shutdown()
    server.http.server_close()


def test_a_server_killed_and_restarted_mid_run(tally, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    suite = suite_file(tmp_path, {"tally": game("0", maxTurns=8)})
    folder = tmp_path / "out"
    down = threading.Event()
    with serving() as first:
        port = first.http.server_address[1]

        killer = threading.Thread(target=kill, args=(first,))

        def dies(body):
            # the fourth call: the server goes away, the connection dropped unanswered
            down.set()
            killer.start()
            raise ConnectionResetError

        first.add(first_legal, first_legal, first_legal, dies)
        assert llm_bench(first, suite, folder, "--retries", "0", "--concurrency", "1") == 1
        assert down.is_set()
        killer.join()
        err = capsys.readouterr().err
        assert "a call failed after the client's retries" in err and "run again" in err
        assert not (folder / "tally" / "runs.jsonl").exists()
    again = ChatServer.on_port(port)
    with serving(server=again) as second:
        second.add(*[first_legal] * 8)
        assert llm_bench(second, suite, folder, "--retries", "0", "--concurrency", "1") == 0
        # the episode went on from its three turns: five more calls, each answered once
        assert len(second.requests) == 5
    (row,) = records(folder / "tally")
    llm = row["llm"]
    assert row["progress"] == 1.0 and row["resumedAt"] == [3]
    # eight turns, all the model's, eight calls of the eight allowed: the outage spent none
    assert (llm["turns"], llm["modelTurns"], llm["calls"], llm["fallbacks"]) == (8, 8, 8, 0)
    # the call the kill cut off reached no answer: one error, apart from the model's
    assert (llm["errors"], llm["parseFailures"], llm["unrecordedCalls"]) == (1, 0, 0)
    replay = (folder / "tally" / row["replay"]).read_text().splitlines()
    notes = [n for line in map(json.loads, replay) for n in line.get("turns", ())]
    assert [note["played"] for note in notes] == ["model"] * 8
