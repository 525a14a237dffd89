"""A real ``playbench serve`` whose database stops taking writes: every request is
answered (503 with ``Retry-After`` where a write or read failed), ``/readyz`` says not
ready, and no answer names the database or its files."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.server.helpers import Player
from tests.web.serving import serve_process

QUIET = ["--no-access-log", "--log-level", "warning"]
PATIENCE = 20.0


@contextmanager
def unwritable(data: Path) -> Iterator[None]:
    """The database files made immutable (``chattr +i``: root is refused too) for the
    block; the shared-memory index stays writable, as a read-only mount leaves it."""
    files = [str(f) for f in sorted(data.glob("playbench.db*")) if not f.name.endswith("-shm")]
    made = subprocess.run(["chattr", "+i", *files], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.fail(f"chattr +i could not make the database unwritable: {made.stderr}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *files], check=True)


def _no_path(answer: httpx.Response, data: Path) -> None:
    assert str(data) not in answer.text and "playbench.db" not in answer.text
    assert "/tmp" not in answer.text and "sqlite" not in answer.text.lower()


def _ready_until(api: httpx.Client, status: int) -> httpx.Response:
    """``/readyz`` asked until it answers ``status`` (a verdict lasts a second)."""
    deadline = time.monotonic() + PATIENCE
    while (answer := api.get("/readyz")).status_code != status:
        assert time.monotonic() < deadline, answer.text
    return answer


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr (e2fsprogs)")
def test_an_unwritable_database_gives_503_and_not_ready(tmp_path):
    with (
        serve_process(tmp_path, *QUIET) as served,
        httpx.Client(base_url=served.base, timeout=PATIENCE) as api,
    ):
        player = Player(api, "delvewick", seed=None)  # type: ignore[arg-type]
        assert player.act("down").status_code == 200
        assert api.get("/readyz").json() == {"status": "ready"}
        with unwritable(tmp_path):
            acted = player.act("right")
            assert acted.status_code == 503 and acted.headers["retry-after"] == "5"
            assert acted.json() == {
                "error": "the arena's database cannot take this request just now: "
                "retry in a few seconds",
                "retryAfter": 5,
            }
            _no_path(acted, tmp_path)
            ready = _ready_until(api, 503)  # the last verdict stands for at most a second
            assert ready.status_code == 503 and ready.headers["retry-after"] == "5"
            assert ready.json() == {
                "status": "not ready",
                "error": "the database does not take writes just now",
            }
            _no_path(ready, tmp_path)
            fresh = api.post("/games/delvewick/api/new", json={})
            assert fresh.status_code == 503 and fresh.headers["retry-after"] == "5"
            _no_path(fresh, tmp_path)
            named = api.post("/api/players", json={"name": "unwritten"})
            assert named.status_code == 503 and named.headers["retry-after"] == "5"
            assert api.get("/healthz").status_code == 200
        # writable again: ready once the last verdict (at most a second old) is renewed
        assert _ready_until(api, 200).json() == {"status": "ready"}
        player.last = api.get("/games/delvewick/api/state", headers=player.auth()).json()
        assert player.act("right").status_code == 200
