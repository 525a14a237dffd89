"""The Inspect door's fixtures: this checkout's package metadata (its entry points, as
``pip install -e .`` writes them) for the ``inspect`` command in a subprocess, scripted
model replies, and the runs they make.

The venv's playbench may be installed from another checkout, whose metadata predates
``[project.entry-points.inspect_ai]``; the ``inspect`` command finds tasks only through
installed metadata, so the tests write this checkout's with the build backend itself
(``setuptools.build_meta``) and put it first on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import setuptools.build_meta

from tests.agents.chat_server import ChatServer, Reply, legal_commands, serving, text_of

ROOT = Path(__file__).resolve().parents[2]
INSPECT = Path(sys.executable).with_name("inspect")
#: the model the scripted server plays, through Inspect's OpenAI-compatible provider
MODEL = "openai-api/script/script-model"
KEY = "sk-test-key-never-written-0123456789"
HUNG_SECONDS = 900


def reply_key(body: dict[str, Any]) -> str:
    """The reply's move list a request's system prompt asks for."""
    system = next(text_of(m) for m in body["messages"] if m["role"] == "system")
    return "actions" if '{"actions"' in system else "commands"


def first_legal(body: dict[str, Any]) -> Reply:
    """A reply playing the turn's first legal move."""
    reply = {reply_key(body): [legal_commands(body)[0]], "notes": "first move"}
    return Reply(json.dumps(reply), prompt_tokens=100, completion_tokens=10)


@pytest.fixture(scope="session")
def metadata(tmp_path_factory) -> Path:
    """A folder holding this checkout's installed metadata, editable from here."""
    folder = tmp_path_factory.mktemp("metadata")
    name = setuptools.build_meta.prepare_metadata_for_build_wheel(str(folder))
    for other in folder.glob("*.egg-info"):
        shutil.rmtree(other)
    direct = {"url": ROOT.as_uri(), "dir_info": {"editable": True}}
    (folder / name / "direct_url.json").write_text(json.dumps(direct))
    return folder


@pytest.fixture
def chat(monkeypatch) -> Iterator[ChatServer]:
    """The scripted server, reachable as ``openai-api/script/...`` (Inspect reads
    ``SCRIPT_BASE_URL`` and ``SCRIPT_API_KEY``) and by ``playbench run``."""
    with serving() as server:
        monkeypatch.setenv("SCRIPT_BASE_URL", server.base_url)
        monkeypatch.setenv("SCRIPT_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield server


def inspect_eval(
    metadata: Path, log_dir: Path, *args: str, command: str = "eval", display: str = "none"
) -> subprocess.CompletedProcess[str]:
    """``inspect eval ...`` (or another of its commands, ``eval-set``) in a subprocess
    that finds the tasks by entry point only (``display``: ``plain`` shows what the
    command prints of an error before the eval, which ``none`` keeps quiet)."""
    env = {**os.environ, "PYTHONPATH": f"{metadata}{os.pathsep}{ROOT}"}
    command_line = [str(INSPECT), command, *args, "--log-dir", str(log_dir), "--display", display]
    # the bound only stops a hung run; a run takes seconds
    return subprocess.run(
        command_line, env=env, capture_output=True, text=True, timeout=HUNG_SECONDS, cwd=log_dir
    )


def logs(log_dir: Path) -> list[Path]:
    return sorted(log_dir.glob("*.eval"))
