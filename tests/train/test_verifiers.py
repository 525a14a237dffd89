"""The verifiers door: load_environment's MultiTurnEnv on the seat, its Rubric's reward the
replayed progress, run by verifiers' own Python API and by vf-eval against the scripted
OpenAI-compatible server.

verifiers' MultiTurnEnv and Rubric are the API of its releases up to 0.2.0, which cannot
be installed beside TRL (they need datasets below 4.7, TRL 1.x at least 4.7): CI runs
this file in a venv of its own (``pip install -e '.[verifiers]'``, see .ci/run) with
PLAYBENCH_REQUIRE_VERIFIERS set, where a missing API fails instead of skipping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from playbench.core import all_games, get_game
from playbench.core.match import Match
from playbench.runner.replay import dump_lines, verify_path
from playbench.train.episode import replay_check
from tests.agents.chat_server import Reply, legal_commands, serving
from tests.train.helpers import drawn_seeds

vf = pytest.importorskip("verifiers")
if not hasattr(vf, "MultiTurnEnv"):
    message = f"verifiers {vf.__version__} has no MultiTurnEnv: pip install -e '.[verifiers]'"
    if os.environ.get("PLAYBENCH_REQUIRE_VERIFIERS"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)

from playbench.train.verifiers import GameEnv, load_environment  # noqa: E402

SLUGS = [game.slug for game in all_games()]
KEY_VAR = "PLAYBENCH_SCRIPT_KEY"


def first_legal(body: dict[str, Any]) -> Reply:
    """A reply that plays the first legal move the turn lists (Cogcrawl's as objects)."""
    moves = legal_commands(body)
    key = "actions" if isinstance(moves[0], dict) else "commands"
    return Reply(json.dumps({key: [moves[0]]}), 10, 5)


def _client(url: str) -> Any:
    os.environ[KEY_VAR] = "scripted"
    return vf.ClientConfig(api_base_url=url, api_key_var=KEY_VAR, max_retries=0)


def _check(slug: str, output: dict[str, Any], tmp_path: Path) -> list[int]:
    """The output's reward is its replay's progress gained; the replay verifies."""
    replay = output["replay"]
    head = replay[0]
    assert head["game"] == slug and head["seed"] == output["info"]["seed"]
    start = Match.start(slug, head["seed"])
    replayed = Match.replay(slug, head["seed"], None, [line["action"] for line in replay[1:-1]])
    gained = get_game(slug).progress(replayed.state) - get_game(slug).progress(start.state)
    assert output["reward"] == pytest.approx(gained, abs=1e-12)
    assert replay_check(replay).fingerprint == replayed.fingerprint()
    path = tmp_path / f"{slug}-{head['seed']}-{output['example_id']}.jsonl"
    path.write_bytes(dump_lines(replay))
    assert all(verdict.ok for verdict in verify_path(path))
    return replayed.log


@pytest.mark.parametrize("slug", SLUGS)
def test_each_game_through_verifiers_api_rewards_the_replayed_progress(slug, tmp_path):
    seeds = drawn_seeds(2)
    env = load_environment(game=slug, seeds=",".join(map(str, seeds)), max_turns=3)
    assert isinstance(env, GameEnv) and isinstance(env, vf.MultiTurnEnv)
    with serving([first_legal] * 64) as server:
        out = env.evaluate_sync(
            client=_client(server.base_url),
            model="script-model",
            num_examples=2,
            rollouts_per_example=2,
            state_columns=["replay"],
        )
    outputs = out["outputs"]
    assert len(outputs) == 4
    logs: dict[int, list] = {}
    for output in outputs:
        log = _check(slug, output, tmp_path)
        # one row, one episode: both rollouts of a seed play the same game
        assert logs.setdefault(output["info"]["seed"], log) == log
    assert sorted(logs) == sorted(seeds)


def test_a_row_prompt_is_its_seeds_first_turn_and_a_bad_reply_is_refused(tmp_path):
    one, other = drawn_seeds(2)
    env = load_environment(game="delvewick", seeds=[one, one, other], max_turns=2)
    rows = list(env.dataset)
    assert rows[0]["prompt"] == rows[1]["prompt"]
    assert rows[2]["info"]["seed"] == other
    with serving([Reply("I move left", 3, 3), Reply("still prose", 3, 3)]) as server:
        out = env.evaluate_sync(
            client=_client(server.base_url),
            model="script-model",
            num_examples=1,
            rollouts_per_example=1,
            state_columns=["replay"],
        )
        asked = [body["messages"][-1]["content"] for body in server.requests]
    (output,) = out["outputs"]
    assert "not used" in asked[1] and "must begin with '{'" in asked[1]
    assert output["error"] is None
    _check("delvewick", output, tmp_path)


def test_vf_eval_runs_it_against_the_scripted_server(tmp_path: Path) -> None:
    seeds = drawn_seeds(2)
    args = {"game": "gem-swap", "seeds": ",".join(map(str, seeds)), "max_turns": 2}
    with serving([first_legal] * 64) as server:
        command = [sys.executable, "-m", "verifiers.scripts.eval", "playbench.train.verifiers"]
        command += ["-a", json.dumps(args), "-m", "script-model", "-b", server.base_url]
        command += ["-k", KEY_VAR, "-n", "2", "-r", "2", "-s", "-o", str(tmp_path), "-C"]
        command += ["replay"]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=dict(os.environ, **{KEY_VAR: "scripted"}),
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    (results,) = tmp_path.glob("evals/*/*/results.jsonl")
    outputs = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(outputs) == 4
    for output in outputs:
        _check("gem-swap", output, tmp_path)
