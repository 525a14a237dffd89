"""Each game's task, found by Inspect's entry point, runs end to end through the
``inspect eval`` command against the scripted OpenAI-compatible server: its score is the
progress of its replayed log, and ``playbench run --agent llm`` of the same seed with the
same replies plays the same actions to the same score."""

from __future__ import annotations

import json
import os
import subprocess

from inspect_ai.log import read_eval_log, resolve_sample_attachments

import playbench.inspect
from playbench.cli import main
from playbench.core.match import Match
from playbench.runner.inspect_log import STORE_KEY
from playbench.runner.store import RunDir
from tests.inspect.conftest import INSPECT, MODEL, ROOT, first_legal, inspect_eval, logs

TASKS = {
    "playbench/delvewick": "delvewick",
    "playbench/chimestep": "chimestep",
    "playbench/gem_swap": "gem-swap",
    "playbench/cogcrawl": "cogcrawl",
}


def test_every_game_task_runs_through_the_inspect_command(metadata, chat, tmp_path):
    chat.add(*[first_legal] * 16)
    done = inspect_eval(
        metadata, tmp_path, *TASKS, "--model", MODEL, "-T", "seeds=3", "-T", "max_turns=2"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = {}
    for path in logs(tmp_path):
        log = read_eval_log(str(path))
        found[log.eval.task] = log
    assert sorted(found) == sorted(TASKS)
    assert len(chat.requests) == 8
    for task, slug in TASKS.items():
        log = found[task]
        assert log.status == "success"
        assert log.eval.model == MODEL
        [sample] = log.samples
        assert sample.id == f"{slug}-3"
        assert sample.metadata["game"] == slug
        episode = sample.store[STORE_KEY]
        assert episode["replay"][0]["model"] == MODEL
        actions = [line["action"] for line in episode["replay"][1:-1]]
        again = Match.replay(slug, 3, None, actions)
        score = sample.scores["replay"]
        assert score.value == again.game.progress(again.state)
        assert score.metadata["score"] == again.score
        assert score.metadata["fingerprint"] == again.fingerprint()
        assert score.metadata["outcome"] == "truncated"
        assert score.metadata["budget"] == "maxTurns"
        # the third turn had no call left: nobody played it, so it is not counted
        assert (score.metadata["turns"], score.metadata["modelTurns"]) == (2, 2)
        assert episode["llm"]["calls"] == 2
        metrics = log.results.scores[0].metrics
        assert metrics["mean"].value == score.value
        assert metrics["mean_score"].value == again.score
        assert metrics["model_share"].value == 1.0
        # the transcript: the board as the model saw it, and the reply played
        user = [message for message in sample.messages if message.role == "user"]
        assert user[1].text.startswith("Turn 1. Score 0.")
        assert "Legal moves now: " in user[1].text
        replies = [message.text for message in sample.messages if message.role == "assistant"]
        assert len(replies) == 2
        events = resolve_sample_attachments(sample).events
        said = [e.data for e in events if e.event == "info" and e.source == "playbench"]
        assert [text.split(" · score")[0] for text in said] == [
            "**Turn 1** · played by model",
            "**Turn 2** · played by model",
        ]
    for task, slug in TASKS.items():
        assert_as_playbench_run(found[task].samples[0], slug, chat.base_url, tmp_path)


def assert_as_playbench_run(sample, slug: str, base_url: str, tmp_path) -> None:
    """``playbench run`` of the sample's seed with the same replies scores as it does."""
    out = tmp_path / f"run-{slug}"
    command = ["run", slug, "--agent", "llm", "--model", "script-model", "--seeds", "3"]
    command += ["--max-turns", "2", "--base-url", base_url, "--out", str(out)]
    assert main(command) == 0
    [record] = RunDir(out).records()
    score = sample.scores["replay"]
    assert (score.value, score.metadata["score"]) == (record["progress"], record["score"])
    assert score.metadata["fingerprint"] == record["fingerprint"]
    assert score.metadata["budget"] == record["budget"] == "maxTurns"
    replay = (out / record["replay"]).read_text().splitlines()
    ran = [json.loads(line)["action"] for line in replay[1:-1]]
    assert [line["action"] for line in sample.store[STORE_KEY]["replay"][1:-1]] == ran


def test_the_message_limit_flag_ends_a_sample_truncated(metadata, chat, tmp_path):
    chat.add(*[first_legal] * 3)
    args = ["playbench/gem_swap", "--model", MODEL, "-T", "seeds=1", "--message-limit", "6"]
    done = inspect_eval(metadata, tmp_path, *args)
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = logs(tmp_path)
    [sample] = read_eval_log(str(path)).samples
    assert (sample.limit.type, sample.limit.limit) == ("message", 6)
    # the input, the system prompt, a message and a reply for each of two turns
    assert len(chat.requests) == 2
    score = sample.scores["replay"]
    assert (score.metadata["outcome"], score.metadata["budget"]) == (
        "truncated",
        "messageLimit",
    )
    actions = [line["action"] for line in sample.store[STORE_KEY]["replay"][1:-1]]
    again = Match.replay("gem-swap", 1, None, actions)
    assert len(actions) == 2
    assert score.value == again.game.progress(again.state)


def test_inspect_lists_the_tasks_with_a_description(metadata):
    folder = os.path.dirname(playbench.inspect.__file__)
    env = {**os.environ, "PYTHONPATH": f"{metadata}{os.pathsep}{ROOT}"}
    command = [str(INSPECT), "list", "tasks", "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=folder)
    assert done.returncode == 0, done.stderr[-2000:]
    listed = {entry["name"]: entry["attribs"]["description"] for entry in json.loads(done.stdout)}
    assert sorted(listed) == ["chimestep", "cogcrawl", "delvewick", "gem_swap", "suite"]
    assert listed["suite"] == "Every game of a published playbench suite (-T suite=models-v2|quick)"
    games = [text for name, text in listed.items() if name != "suite"]
    assert all(text.endswith("; scored by replay") for text in games)
