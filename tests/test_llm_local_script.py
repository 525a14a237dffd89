"""benchmarks/llm_local.py against the tests' scripted OpenAI-compatible server (its
``--base-url``: no model is started): the prompt sizes and one line per game and format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.agents.chat_server import Reply, serving

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "llm_local.py"


def from_the_enum_or_prose(body):
    fmt = body.get("response_format")
    if fmt is None:
        return Reply("I would dig down.", 30, 6)
    enum = fmt["json_schema"]["schema"]["properties"]["commands"]["items"]["enum"]
    return Reply(json.dumps({"commands": enum[:1], "notes": "down"}), 30, 6)


def test_the_script_reports_prompts_and_the_model_s_share_per_format():
    with serving([from_the_enum_or_prose] * 20) as chat:
        chat.models = ["smollm2-135m-instruct"]
        command = [sys.executable, str(SCRIPT), "--base-url", chat.base_url, "--turns", "2"]
        command += ["--games", "delvewick"]
        env = {**os.environ, "PYTHONPATH": str(SCRIPT.parents[1])}
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2].split() == ["delvewick", "350", "506", "190"]
    rows = [line.split() for line in lines if line.startswith("delvewick ")][1:]
    # text: prose twice a turn, the bot plays both turns; json_schema: the model plays
    assert rows[0][:7] == ["delvewick", "text", "0/2", "4", "0", "0", "4"]
    assert rows[1][:7] == ["delvewick", "json_schema", "2/2", "0", "0", "0", "2"]
    assert rows[1][8:] == ["30", "6.0", "30"]
