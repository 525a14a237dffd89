"""``playbench bench --publish URL``: send a finished bench folder to a playbench server.

The folder goes as one gzipped tar (``bench.json`` and every game's run folder, its
replays included; a report is left out) to ``POST /api/bench?player=NAME`` with the
player's key in ``X-Player-Key`` (a name registered with ``POST /api/players``), within
that route's own body limit (16 MiB by default; the bot's suite-v2 result is 175 KiB). The
server re-simulates every replay before it keeps the result, then draws its report.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import httpx

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.runner.bench import BENCH, read_bench

DEFAULT_KEY_ENV = "PLAYBENCH_PLAYER_KEY"
KEY_HEADER = "X-Player-Key"
#: re-simulating a whole suite takes the server a while
PUBLISH_TIMEOUT = 600.0


class PublishError(PlaybenchError):
    """A bench that could not be published."""


def player_key(player: str | None, key_env: str) -> str:
    """The player's key, checked before a bench starts: :class:`PublishError` in one line
    when the name or the key is missing."""
    if not player:
        raise PublishError("--publish needs --player NAME (a name registered on the server)")
    key = os.environ.get(key_env)
    if not key:
        raise PublishError(f"--publish needs the player's key: set {key_env} (or --player-key-env)")
    return key


def archive(folder: Path) -> bytes:
    """The bench folder as a gzipped tar: ``bench.json`` and each game's run folder."""
    bench = read_bench(folder)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder / BENCH, arcname=BENCH)
        for figures in bench["games"].values():
            name = figures["folder"]
            tar.add(folder / name, arcname=name)
    return buffer.getvalue()


def publish(folder: Path, server: str, player: str | None, key_env: str = DEFAULT_KEY_ENV) -> JSON:
    """Publish ``folder`` on ``server`` as ``player``: the server's record of it."""
    key = player_key(player, key_env)
    body = archive(folder)
    try:
        answer = httpx.post(
            f"{server.rstrip('/')}/api/bench",
            params={"player": player},
            content=body,
            headers={KEY_HEADER: key, "Content-Type": "application/octet-stream"},
            timeout=PUBLISH_TIMEOUT,
        )
    except httpx.HTTPError as error:
        raise PublishError(f"cannot reach {server}: {error}") from None
    if answer.status_code != 201:
        try:
            reason = answer.json().get("error", answer.text)
        except ValueError:
            reason = answer.text
        raise PublishError(f"{server} refused the bench (HTTP {answer.status_code}): {reason}")
    return answer.json()
