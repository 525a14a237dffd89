"""The start-up check at the Inspect door, through Inspect's own ``inspect`` command
against the scripted OpenAI-compatible server: a server that refuses OpenAI's
``json_schema`` form as llama-cpp-python's does (a 500 naming ``response_format``) plays
through ``inspect eval`` as through ``playbench run``, the schema inside a ``json_object``
format, with equal replays; a model the server does not list is refused at both doors
before anything plays; a run whose samples all errored exits non-zero where Inspect's
command lets a run say so (``inspect eval-set``)."""

from __future__ import annotations

import json
import random
from typing import Any

from inspect_ai.log import read_eval_log

from playbench.cli import main
from playbench.core.registry import all_games
from playbench.runner.inspect_log import STORE_KEY
from playbench.runner.replay import read_replay
from tests.agents.chat_server import Reply, Status, legal_commands
from tests.agents.test_llm import LLAMA_CPP_REFUSAL
from tests.inspect.conftest import inspect_eval, logs, reply_key
from tests.inspect.test_one_seat import pick

MAX_TURNS = 4


class LlamaCppPython:
    """Answers as llama-cpp-python's server: OpenAI's ``json_schema`` form refused with
    its validation error as a 500, the schema inside ``json_object`` taken; the turn
    calls answered from the one-seat script, counted from 0 at each door."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Reply | Status:
        fmt = body.get("response_format") or {}
        if fmt.get("type") != "json_object" or "schema" not in fmt:
            return Status(500, LLAMA_CPP_REFUSAL, error_type="internal_server_error")
        if body.get("max_tokens") == 1:
            return Reply("OK", 1, 1)
        index, self.calls = self.calls, self.calls + 1
        moves = pick(index, legal_commands(body))
        return Reply(json.dumps({reply_key(body): moves, "notes": ""}), 100, 10)


def test_a_server_refusing_json_schema_plays_through_both_doors(metadata, chat, tmp_path):
    slug = random.SystemRandom().choice([game.slug for game in all_games()])
    seed = random.SystemRandom().randrange(10_000)
    server = LlamaCppPython()
    chat.ping = server
    chat.script[:] = [server] * (2 * MAX_TURNS)
    task = f"playbench/{slug.replace('-', '_')}"
    args = [task, "--model", "openai-api/script/script-model", "-T", f"seeds={seed}"]
    done = inspect_eval(metadata, tmp_path, *args, "-T", f"max_turns={MAX_TURNS}")
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = logs(tmp_path)
    log = read_eval_log(str(path))
    assert log.status == "success", (slug, seed, log.error)
    [sample] = log.samples
    assert sample.error is None
    episode = sample.store[STORE_KEY]
    inspect_requests = list(chat.requests)
    # the start-up check: OpenAI's form refused once, the schema inside json_object taken
    assert [ping["response_format"]["type"] for ping in chat.pings] == [
        "json_schema",
        "json_object",
    ]
    assert all(body["response_format"]["type"] == "json_object" for body in inspect_requests)
    assert log.plan.steps[0].params["schema_in"] == "json_object"

    chat.requests.clear()
    chat.pings.clear()
    server.calls = 0
    chat.script[:] = [server] * (2 * MAX_TURNS)
    folder = tmp_path / "bench"
    command = ["run", slug, "--agent", "llm", "--model", "script-model", "--seeds", str(seed)]
    command += ["--max-turns", str(MAX_TURNS), "--base-url", chat.base_url, "--out", str(folder)]
    assert main(command) == 0
    [record] = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    bench_actions = [line["action"] for line in read_replay(folder / record["replay"]).lines]
    inspect_actions = [line["action"] for line in episode["replay"][1:-1]]
    assert inspect_actions == bench_actions, (slug, seed)
    assert episode["replay"][-1]["end"]["fingerprint"] == record["fingerprint"]
    assert episode["llm"]["calls"] == record["llm"]["calls"] == MAX_TURNS
    assert episode["llm"]["retries"] == record["llm"]["retries"] == 1
    # the same request form, schema for schema, at both doors
    formats = [body["response_format"] for body in chat.requests]
    assert [body["response_format"] for body in inspect_requests] == formats
    # and the same harness, the form the check found included, in the imported log
    imported = tmp_path / "imported"
    assert main(["import", str(path), "--out", str(imported)]) == 0
    harness = json.loads((imported / slug / "run.json").read_text())["harness"]
    assert harness == json.loads((folder / "run.json").read_text())["harness"]
    assert harness["schemaIn"] == "json_object"


def test_a_model_the_server_does_not_list_is_refused_at_both_doors(metadata, chat, tmp_path):
    seed = str(random.SystemRandom().randrange(10_000))
    args = ["playbench/gem_swap", "--model", "openai-api/script/gpt-4o-mini", "-T", f"seeds={seed}"]
    done = inspect_eval(metadata, tmp_path, *args, display="plain")
    printed = " ".join((done.stdout + done.stderr).split())
    said = (
        f"the endpoint {chat.base_url} does not serve the model 'gpt-4o-mini': it serves "
        "script-model (pass one with --model)"
    )
    assert done.returncode != 0
    assert f"openai-api/script/gpt-4o-mini: {said}" in printed
    assert "Traceback" not in printed
    # refused before the eval played: no sample, no request, no log
    assert chat.requests == [] and chat.pings == [] and logs(tmp_path) == []
    assert chat.listings == 1

    out = tmp_path / "bench"
    command = ["run", "gem-swap", "--agent", "llm", "--model", "gpt-4o-mini", "--seeds", seed]
    assert main([*command, "--base-url", chat.base_url, "--out", str(out)]) == 2
    assert chat.requests == [] and not out.exists()


def test_a_run_whose_samples_all_errored_exits_non_zero(metadata, chat, tmp_path):
    """The check passes; then every turn call is refused (a 400, which no client
    retries): each sample errors. ``inspect eval-set`` exits 1 for a run that did not
    succeed (``inspect eval`` exits 0 once the eval ran, whatever its status: Inspect's
    command says nothing of the samples), and ``playbench verify`` refuses the log."""
    refused = Status(400, "the model is unloaded", error_type="invalid_request_error")
    chat.script[:] = [refused] * 20
    args = ["playbench/gem_swap", "--model", "openai-api/script/script-model", "-T", "seeds=0-1"]
    done = inspect_eval(metadata, tmp_path, *args, "--retry-attempts", "0", command="eval-set")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert len(chat.pings) == 1 and chat.requests
    [path] = logs(tmp_path)
    log = read_eval_log(str(path))
    assert log.status == "error"
    assert main(["verify", str(path)]) == 2


def test_a_server_refusing_every_schema_form_names_the_task_argument(metadata, chat, tmp_path):
    chat.ping = Status(400, "response_format is not supported", error_type="invalid_request_error")
    args = ["playbench/chimestep", "--model", "openai-api/script/script-model", "-T", "seeds=2"]
    done = inspect_eval(metadata, tmp_path, *args, display="plain")
    printed = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0
    assert (
        f"openai-api/script/script-model: the endpoint {chat.base_url} refused the request "
        "(400: response_format is not supported); if it cannot take -T "
        "reply_format=json_schema, use -T reply_format=json_object"
    ) in printed
    # both forms asked once each, then nothing played
    asked = [ping["response_format"]["type"] for ping in chat.pings]
    assert asked == ["json_schema", "json_object"]
    assert chat.requests == [] and logs(tmp_path) == []
