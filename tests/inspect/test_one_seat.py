"""One seat at both doors: the same scripted replies, played through ``playbench run``
(the ``openai`` client against the scripted server) and through the Inspect door
(Inspect's model API, ``mockllm/model``), give equal replays and counts, and the reply
schema each door puts in its request is the same dict, ``minItems`` and ``maxItems``
included (Inspect's own schema type drops them)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model._openai import openai_completion_params
from inspect_ai.util import JSONSchema

from playbench.agents.llm.prompts import reply_schema
from playbench.cli import main
from playbench.core.match import Match
from playbench.core.registry import all_games, get_game
from playbench.inspect import tasks
from playbench.inspect.schema import SeatSchema
from playbench.runner.inspect_log import STORE_KEY
from playbench.runner.replay import read_replay
from tests.agents.chat_server import MODEL, Reply, legal_commands
from tests.inspect.scripted import Script

MAX_TURNS = 5
COUNTED = ("turns", "modelTurns", "calls", "retries", "parseFailures", "refused", "fallbacks")


def pick(call: int, legal: list[Any]) -> list[Any]:
    """The scripted reply's moves for a door's ``call``-th turn call: the second is an
    empty list (unusable: retried), the others a legal move that varies by call."""
    if call == 1:
        return []
    return [legal[(call * 5) % len(legal)]]


class BenchScript:
    """The same script, answering the scripted server's requests."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        index, self.calls = self.calls, self.calls + 1
        moves = pick(index, legal_commands(body))
        return Reply(json.dumps({self.key: moves}), 100, 10)


def inspect_schemas(script: Script) -> list[dict]:
    """The schema each Inspect call's request carries, as the OpenAI providers send it."""
    found = []
    for _messages, config in script.asked:
        params = openai_completion_params("m", config, tools=False)
        found.append(params["response_format"]["json_schema"]["schema"])
    return found


def turn_notes(lines: list[dict]) -> list[dict]:
    """What each turn's note says happened, timings left out: who played, the replies,
    each call's outcome and tokens, a retry, the budget that cut it."""
    kept = ("played", "replies", "retried", "budget", "fallback")
    return [
        {
            **{key: note[key] for key in kept if key in note},
            "calls": [
                (call["outcome"], call["promptTokens"], call["completionTokens"])
                for call in note["calls"]
            ],
        }
        for line in lines
        for note in line.get("turns", ())
    ]


@pytest.mark.parametrize("max_turns", [MAX_TURNS, 2])
@pytest.mark.parametrize("slug", [game.slug for game in all_games()])
def test_both_doors_send_one_schema_and_play_one_episode(slug, max_turns, chat, tmp_path, capsys):
    """With two calls the second turn's retry is cut by the budget: its refused reply is
    kept in both replays, on the last line."""
    seed = random.SystemRandom().randrange(10_000)
    guide = get_game(slug).seat_guide()
    key = guide.reply_key
    bench_script = BenchScript(key)
    chat.script[:] = [bench_script] * (2 * max_turns)
    folder = tmp_path / "bench"
    command = ["run", slug, "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    command += ["--seeds", str(seed), "--max-turns", str(max_turns), "--out", str(folder)]
    assert main(command) == 0, capsys.readouterr().err
    [record] = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    bench_replay = read_replay(folder / record["replay"])

    entries = [lambda legal, n=n: pick(n, legal) for n in range(2 * max_turns)]
    script = Script(key, *entries)
    task = getattr(tasks, slug.replace("-", "_"))(seeds=str(seed), max_turns=max_turns)
    [log] = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": script},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", (seed, log.error)
    [sample] = log.samples
    episode = sample.store[STORE_KEY]

    bench_actions = [line["action"] for line in bench_replay.lines]
    inspect_actions = [line["action"] for line in episode["replay"][1:-1]]
    assert inspect_actions == bench_actions, seed
    assert {k: episode["llm"][k] for k in COUNTED} == {k: record["llm"][k] for k in COUNTED}
    assert record["llm"]["retries"] == 1 and record["llm"]["calls"] == max_turns
    assert turn_notes(episode["replay"][1:-1]) == turn_notes(bench_replay.lines), seed
    assert episode["replay"][-1]["end"]["fingerprint"] == record["fingerprint"]

    bench_schemas = [body["response_format"]["json_schema"]["schema"] for body in chat.requests]
    assert inspect_schemas(script) == bench_schemas, seed
    # the move list's bounds travel: Inspect's own type would have dropped them
    moves = bench_schemas[0]["properties"][key]
    assert (moves["minItems"], moves["maxItems"]) == (1, 10)


@pytest.mark.parametrize("slug", [game.slug for game in all_games()])
def test_the_seat_schema_keeps_every_keyword_inspects_type_drops(slug):
    game = get_game(slug)
    guide = game.seat_guide()
    view = Match.start(game, random.SystemRandom().randrange(10_000)).view()
    schema = reply_schema(guide, guide.moves(view), guide.plan_moves(view))
    assert SeatSchema.model_validate(schema).model_dump(exclude_none=True) == schema
    assert JSONSchema.model_validate(schema).model_dump(exclude_none=True) != schema
