"""Throughput that rises with players: 16 concurrent Gem Swap sessions, each on its own
keep-alive connection and acting as fast as its answers come back, make more acts a second
than one session alone, on a real ``playbench serve`` (one worker, SQLite, every act
acknowledged only once committed). The ordering is asserted, not a clock figure; each
run is bounded by its count of acts."""

from __future__ import annotations

import asyncio
import os
import signal
import socket

from benchmarks.load_sessions import counted_rate, serve


def test_sixteen_sessions_act_more_a_second_than_one(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = serve(tmp_path / "data", port, None)
    try:
        asyncio.run(counted_rate(port, 2, 10))  # warm: imports, caches, the database file
        alone = asyncio.run(counted_rate(port, 1, 160))
        together = asyncio.run(counted_rate(port, 16, 20))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    assert together > alone, (alone, together)
