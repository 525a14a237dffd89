"""``playbench bench --publish URL``: a registered player sends a bench to a real server,
which keeps it only once every replay re-simulates."""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import httpx
import pytest

from playbench.cli import main
from playbench.core.rng import draw_seed
from playbench.runner.bench import read_bench
from playbench.runner.publish import KEY_HEADER, archive
from playbench.runner.publish import publish as publish_bench
from playbench.server.settings import KIB, MAX_BENCH_BYTES, MAX_BODY_BYTES
from tests.arena import arena
from tests.benches import change_a_line, small_bench

ENV = "PLAYBENCH_PLAYER_KEY"
OVER = "request body is over the limit of {} bytes"
BASELINE = Path(__file__).parents[2] / "docs" / "bench" / "bot"


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("publish")
    seed = str(draw_seed() // 2)
    return small_bench(root / "pair.json", root / "bench", ("gem-swap", "cogcrawl"), seed, 200)


def register(server: str, name: str) -> str:
    answer = httpx.post(f"{server}/api/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    return answer.json()["key"]


def publish(folder: Path, server: str, *extra: str) -> int:
    suite = json.loads((folder / "bench.json").read_text())["suite"]
    path = folder.parent / f"{suite['name']}.json"
    args = ["bench", "--agent", "random", "--suite", str(path), "--out", str(folder)]
    return main([*args, "--publish", server, *extra])


def test_a_published_bench_is_listed_under_its_player(bench_folder, server, monkeypatch, capsys):
    monkeypatch.setenv(ENV, register(server, "Bench Ada"))
    assert publish(bench_folder, server, "--player", "Bench Ada") == 0
    out = capsys.readouterr().out
    assert f"published on {server}/bench as pair-random-" in out
    listed = httpx.get(f"{server}/api/bench").json()
    assert [result["player"] for result in listed["results"]] == ["Bench Ada"]
    shown = listed["results"][0]
    assert shown["headline"] == read_bench(bench_folder)["headline"]
    assert shown["suite"]["hash"] == read_bench(bench_folder)["suite"]["hash"]
    page = httpx.get(f"{server}/bench").text
    assert "random · Bench Ada" in page
    # the same result again keeps its id (its report perhaps drawn meanwhile)
    assert publish(bench_folder, server, "--player", "Bench Ada") == 0
    drawing = ("report", "reportStatus")
    again = httpx.get(f"{server}/api/bench").json()
    assert [{k: v for k, v in r.items() if k not in drawing} for r in again["results"]] == [
        {k: v for k, v in r.items() if k not in drawing} for r in listed["results"]
    ]


def test_a_wrong_key_or_a_bad_replay_is_refused_and_nothing_kept(
    bench_folder, server, monkeypatch, capsys, tmp_path
):
    register(server, "Bench Bo")
    monkeypatch.setenv(ENV, "not-the-key")
    assert publish(bench_folder, server, "--player", "Bench Bo") == 2
    assert "refused the bench (HTTP 403)" in capsys.readouterr().err

    monkeypatch.setenv(ENV, register(server, "Bench Cy"))
    changed = tmp_path / "bench"
    shutil.copytree(bench_folder, changed)
    shutil.copy(bench_folder.parent / "pair.json", tmp_path / "pair.json")
    change_a_line(next((changed / "gem-swap" / "replays").glob("*.jsonl")), 1, "score", 10)
    assert publish(changed, server, "--player", "Bench Cy") == 2
    error = capsys.readouterr().err
    assert "HTTP 422" in error and "step 1" in error and "nothing was kept" in error
    assert httpx.get(f"{server}/api/bench").json()["results"] == []


def test_an_archive_with_other_files_is_refused(bench_folder, server):
    key = register(server, "Bench Di")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = b"x"
        entry = tarfile.TarInfo("../escape.txt")
        entry.size = len(data)
        tar.addfile(entry, io.BytesIO(data))
    for body in (buffer.getvalue(), b"not a tar"):
        answer = httpx.post(
            f"{server}/api/bench",
            params={"player": "Bench Di"},
            content=body,
            headers={KEY_HEADER: key},
        )
        assert answer.status_code == 422, answer.text
    assert len(archive(bench_folder)) > 0


def test_publish_needs_a_player_and_a_key_before_anything_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    out = tmp_path / "never"
    base = ["bench", "--agent", "random", "--suite", "quick", "--out", str(out)]
    assert main([*base, "--publish", "http://127.0.0.1:9"]) == 2
    assert "--publish needs --player NAME" in capsys.readouterr().err
    assert main([*base, "--publish", "http://127.0.0.1:9", "--player", "x"]) == 2
    assert f"set {ENV}" in capsys.readouterr().err
    assert main([*base, "--player", "x"]) == 2
    assert "it needs --publish URL" in capsys.readouterr().err
    assert not out.exists()


def test_the_full_suite_with_every_replay_is_published_within_the_bench_limit(server, monkeypatch):
    body = archive(BASELINE)
    # the bot's suite-v2 result: 38 episodes, gzipped
    assert read_bench(BASELINE)["suite"]["name"] == "suite-v2"
    assert 100 * KIB < len(body) < MAX_BODY_BYTES < MAX_BENCH_BYTES // 16
    monkeypatch.setenv(ENV, register(server, "Bench Fay"))
    shown = publish_bench(BASELINE, server, "Bench Fay")
    assert shown["id"].startswith("suite-v2-bot-") and shown["player"] == "Bench Fay"
    assert shown["headline"] == read_bench(BASELINE)["headline"]


def test_the_bench_route_has_its_own_body_limit_and_no_other_route_shares_it(tmp_path):
    bench_limit = 512 * KIB
    with arena(tmp_path / "data", max_bench_bytes=bench_limit) as url:
        key = register(url, "Bench Gus")
        post = {"params": {"player": "Bench Gus"}, "headers": {KEY_HEADER: key}}
        above_the_general_limit = os.urandom(MAX_BODY_BYTES + KIB)
        answer = httpx.post(f"{url}/api/bench", content=above_the_general_limit, **post)
        assert answer.status_code == 422, answer.text
        assert "not a gzipped tar" in answer.json()["error"]
        answer = httpx.post(f"{url}/api/players", content=above_the_general_limit)
        assert answer.status_code == 413
        assert answer.json()["error"] == OVER.format(MAX_BODY_BYTES)
        above_the_bench_limit = os.urandom(bench_limit + 1)
        for body in (above_the_bench_limit, iter([above_the_bench_limit])):  # declared, chunked
            answer = httpx.post(f"{url}/api/bench", content=body, **post)
            assert answer.status_code == 413
            assert answer.json()["error"] == OVER.format(bench_limit)
