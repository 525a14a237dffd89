"""benchmarks/server_speed.py: its reference apps answer what the arena answers, so the
cost rows compare like with like (the load runs themselves need wrk and are not tests)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from playbench.server import Settings, create_app
from playbench.server.sealing import generate_key

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "server_speed.py"


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """The script as a module, with the key and answer file it reads from the environment."""
    monkeypatch.setenv("PLAYBENCH_SECRET", generate_key())
    monkeypatch.setenv("PLAYBENCH_BENCH_BARE_FILE", str(tmp_path / "answer.json"))
    (tmp_path / "answer.json").write_bytes(b'{"ok":true}')
    spec = importlib.util.spec_from_file_location("server_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "server_speed", module)
    spec.loader.exec_module(module)
    return module


def _call(app: Any, path: str, body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    """One POST through an ASGI app: status, headers and body."""
    sent: list[dict] = []
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))],
    }

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start, answer = sent
    return start["status"], dict(start["headers"]), answer["body"]


def test_the_bare_app_answers_the_file_it_is_given(bench):
    status, headers, body = _call(bench.bare_app, "/", b'{"any": "request"}')
    assert (status, body, headers[b"content-length"]) == (200, b'{"ok":true}', b"11")


def test_the_fast_path_alone_answers_as_the_arena_does(bench, tmp_path):
    app = create_app(replace(Settings.from_env(), data_dir=tmp_path / "data"))
    with TestClient(app) as client:
        start = client.post("/api/games/delvewick/init", json={"seed": 3}).json()
        request = json.dumps({"state": start["state"], "action": {"type": "wait"}}).encode()
        arena = client.post("/api/games/delvewick/action", content=request).json()
        sealer = app.state.services.sealer
        status, headers, body = _call(bench.fast_path_app(), "/api/games/delvewick/action", request)
        alone = json.loads(body)
        assert status == 200 and headers[b"x-frame-options"] == b"DENY"
        assert sealer.open("delvewick", alone.pop("state")) == sealer.open(
            "delvewick", arena.pop("state")
        )
        assert alone == arena


def test_each_part_of_the_route_runs_inside_the_bare_app(bench, tmp_path, monkeypatch):
    app = create_app(replace(Settings.from_env(), data_dir=tmp_path / "data"))
    with TestClient(app) as client:
        start = client.post("/api/games/delvewick/init", json={"seed": 3}).json()
    request = json.dumps({"state": start["state"], "action": {"type": "wait"}}).encode()
    (tmp_path / "request.json").write_bytes(request)
    monkeypatch.setenv("PLAYBENCH_BENCH_REQUEST_FILE", str(tmp_path / "request.json"))
    step = bench.part_work("step", dict(os.environ))()
    assert step["ok"] and step["observation"]["tick"] == start["observation"]["tick"] + 1
    for part in bench.PARTS:
        assert _call(bench.part_app(part), "/", request) == (
            200,
            {b"content-type": b"application/json", b"content-length": b"11"},
            b'{"ok":true}',
        )
