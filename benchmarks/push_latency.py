"""How soon a spectator stream carries an ``act``: the push feed against its 200 ms target.

Starts ``playbench serve --workers 2`` on a free port with a temporary data folder, opens
one server-sent event stream on a Cogcrawl practice session, and sends ``search`` acts
through the session API (each answering its agent check) at an uneven pace. For every
act it takes the time from the act's answer to the stream event that shows it; acts
land on either worker, the stream on one, so a push that crosses workers is measured as
often as one that does not. The reference, measured in the same run, is what a polling
client would pay per look: one ``GET /api/spectate/sessions/{id}`` round trip.

    .venv/bin/python benchmarks/push_latency.py [--acts 200]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

TARGET_MS = 200.0
QUESTION = re.compile(r"What is (\d+) \+ (\d+) \* (\d+)\?")
#: pauses between acts (seconds), cycled, so acts fall at every phase of the poller
PAUSES = (0.013, 0.041, 0.007, 0.029, 0.053, 0.021)


def _answer(puzzle: dict) -> str:
    found = QUESTION.fullmatch(puzzle["question"])
    assert found, puzzle
    a, b, c = (int(x) for x in found.groups())
    return str(a + b * c)


def _serve(data: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "playbench.cli", "serve", "--port", str(port)]
    command += ["--data", str(data), "--workers", "2", "--no-access-log", "--log-level", "warning"]
    process = subprocess.Popen(command, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/games", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(base: str, acts: int) -> tuple[list[float], list[float], list[float]]:
    client = httpx.Client(base_url=base, timeout=10)
    view = client.post("/games/cogcrawl/api/new", json={"seed": 7}).json()
    token, session_id = view["token"], view["sessionId"]
    seen: dict[int, float] = {}
    arrived = threading.Condition()

    def read() -> None:
        with (
            httpx.Client(base_url=base, timeout=None) as reader,
            reader.stream("GET", f"/api/spectate/sessions/{session_id}/stream") as stream,
        ):
            name = ""
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name == "state":
                    version = json.loads(line[6:])["version"]
                    with arrived:
                        seen[version] = time.perf_counter()
                        arrived.notify_all()
                    if version >= acts:
                        return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    with arrived:
        arrived.wait_for(lambda: 0 in seen, timeout=10)
    delays, since_sent = [], []
    puzzle = view["agentCheck"]
    for version in range(1, acts + 1):
        headers = {
            "Authorization": f"Bearer {token}",
            "X-Agent-Check": puzzle["token"],
            "X-Agent-Answer": _answer(puzzle),
        }
        sent = time.perf_counter()
        answer = client.post("/games/cogcrawl/api/act", json={"command": "search"}, headers=headers)
        answered = time.perf_counter()
        puzzle = answer.json()["agentCheck"]
        with arrived:
            if not arrived.wait_for(lambda v=version: v in seen, timeout=5):
                raise RuntimeError(f"version {version} was never pushed")
        delays.append(max(0.0, seen[version] - answered) * 1000)
        since_sent.append((seen[version] - sent) * 1000)
        time.sleep(PAUSES[version % len(PAUSES)])
    looks = []
    for _ in range(acts):
        start = time.perf_counter()
        client.get(f"/api/spectate/sessions/{session_id}")
        looks.append((time.perf_counter() - start) * 1000)
    thread.join(timeout=5)
    client.close()
    return delays, since_sent, looks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--acts", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="playbench-push-") as data:
        process, base = _serve(Path(data))
        try:
            delays, since_sent, looks = measure(base, args.acts)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
    push_p50 = statistics.median(delays)
    look_p50 = statistics.median(looks)
    print(f"acts {len(delays)}, 2 workers, one stream")
    print(
        f"push after the act's answer   p50 {push_p50:6.1f} ms  p95 "
        f"{_percentile(delays, 0.95):6.1f} ms  max {max(delays):6.1f} ms"
    )
    print(
        f"push after the act was sent   p50 {statistics.median(since_sent):6.1f} ms  p95 "
        f"{_percentile(since_sent, 0.95):6.1f} ms  max {max(since_sent):6.1f} ms"
    )
    print(
        f"one spectator GET round trip  p50 {look_p50:6.1f} ms  p95 "
        f"{_percentile(looks, 0.95):6.1f} ms  max {max(looks):6.1f} ms"
    )
    print(f"push p50 / GET p50: ratio {push_p50 / look_p50:.2f}")
    print(
        f"max push {max(delays):.1f} ms against the {TARGET_MS:.0f} ms target: "
        f"{'met' if max(delays) <= TARGET_MS else 'missed'}"
    )


if __name__ == "__main__":
    main()
