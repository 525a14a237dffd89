"""Server speed: the stateless action route beside a bare ASGI endpoint, in one run.

    python benchmarks/server_speed.py [--seconds 10] [--rounds 2] [--connections 64] [--record]

Starts ``playbench serve`` (one worker, access log off) on 127.0.0.1 with a temporary
data folder, and drives it with ``wrk`` (Debian: ``apt-get install -y wrk``) at 64
concurrent connections. The workload is ``POST /api/games/delvewick/action`` with a sealed
mid-level state (level 4, a few moves in): open the seal, step, seal again, answer. The
reference is a bare ASGI endpoint mounted on the same uvicorn process (only because the
benchmark sets ``PLAYBENCH_BENCH_BARE``) that answers the very bytes the action route
answered. Each round runs both, back to back (the order alternates); the round with the
median ratio is reported with requests per second, p50 and p99 latency and the server's
CPU time per request (from ``/proc``: it shows the cost apart from the machine's load),
and the ratio of requests per second (target >= 0.25).
Only loopback traffic; every run is bounded by ``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient

from playbench.core import Rng, get_game
from playbench.server import Settings, create_app
from playbench.server.middleware import BARE_PATH
from playbench.server.sealing import generate_key
from playbench.server.settings import ENV_BENCH_BARE, ENV_DATA, ENV_SECRET

SLUG = "delvewick"
START_LEVEL = 4
SEED = 7
MOVES_IN = 12
TARGET = 0.25
HOST = "127.0.0.1"
STARTUP_SECONDS = 20.0
WRK_THREADS = 1
RESULTS = Path(__file__).with_name("RESULTS.md")
LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = io.open("{path}", "rb")
wrk.body = file:read("*a")
file:close()
"""


def mid_level_request(secret: str, data: Path) -> tuple[bytes, bytes]:
    """A request body with a mid-level state, and the bytes the action route answers to it."""
    game = get_game(SLUG)
    chooser = Rng.from_seed(SEED, 1)
    app = create_app(Settings(data_dir=data, secrets=(secret,)))
    with TestClient(app) as client:
        body = client.post(
            f"/api/games/{SLUG}/init", json={"seed": SEED, "options": {"startLevel": START_LEVEL}}
        ).json()
        for _ in range(MOVES_IN):
            action = chooser.choice(body["legalActions"])
            body = client.post(
                f"/api/games/{SLUG}/action", json={"state": body["state"], "action": action}
            ).json()
        assert body["ok"] and not body["gameOver"], "the walk must stay inside the level"
        request = json.dumps(
            {"state": body["state"], "action": chooser.choice(body["legalActions"])}
        ).encode()
        answer = client.post(
            f"/api/games/{SLUG}/action",
            content=request,
            headers={"Content-Type": "application/json"},
        )
        assert answer.status_code == 200 and answer.json()["ok"]
    assert game.slug == SLUG
    return request, answer.content


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"playbench serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"playbench serve did not answer within {STARTUP_SECONDS} s")


def server_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux ``/proc``), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, script: Path, seconds: int, connections: int, pid: int) -> dict[str, float]:
    """One wrk run: requests/s, p50 and p99 latency (ms), server CPU per request (us)."""
    command = [
        "wrk",
        f"-t{WRK_THREADS}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "-s",
        str(script),
        url,
    ]
    cpu_before = server_cpu_seconds(pid)
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    cpu_after = server_cpu_seconds(pid)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors or "Socket errors" in output:
        raise SystemExit(f"wrk saw errors against {url}:\n{output}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    count = int(re.search(r"(\d+) requests in", output).group(1))
    cpu = float("nan")
    if cpu_before is not None and cpu_after is not None and count:
        cpu = (cpu_after - cpu_before) / count * 1e6
    return {"rps": rate, "p50": _latency(output, "50%"), "p99": _latency(output, "99%"), "cpu": cpu}


def _latency(output: str, percentile: str) -> float:
    """A latency line of ``wrk --latency`` in milliseconds."""
    value, unit = re.search(rf"^\s+{percentile}\s+([\d.]+)(us|ms|s)\s*$", output, re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds (odd: a median)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--record", action="store_true", help=f"append to {RESULTS.name}")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.stderr.write("wrk is not installed: on Debian/Ubuntu run `apt-get install -y wrk`\n")
        return 2

    with tempfile.TemporaryDirectory(prefix="playbench-bench-") as tmp:
        folder = Path(tmp)
        secret = generate_key()
        request, answer = mid_level_request(secret, folder / "data")
        (folder / "request.json").write_bytes(request)
        (folder / "answer.json").write_bytes(answer)
        script = folder / "post.lua"
        script.write_text(LUA.format(path=folder / "request.json"))

        port = free_port()
        env = {
            **os.environ,
            ENV_SECRET: secret,
            ENV_DATA: str(folder / "data"),
            ENV_BENCH_BARE: str(folder / "answer.json"),
        }
        serve = [sys.executable, "-m", "playbench.cli", "serve", "--host", HOST]
        serve += ["--port", str(port), "--workers", "1", "--no-access-log"]
        serve += ["--log-level", "warning"]
        server = subprocess.Popen(serve, env=env)
        try:
            root = f"http://{HOST}:{port}"
            wait_until_up(f"{root}/api/games", server)
            targets = {"action": f"{root}/api/games/{SLUG}/action", "bare": f"{root}{BARE_PATH}"}
            for url in targets.values():
                wrk(url, script, 1, args.connections, server.pid)
            rounds = []
            for number in range(args.rounds):
                order = list(targets) if number % 2 == 0 else list(reversed(targets))
                runs = {
                    name: wrk(targets[name], script, args.seconds, args.connections, server.pid)
                    for name in order
                }
                rounds.append(runs)
        finally:
            server.terminate()
            server.wait(timeout=STARTUP_SECONDS)

    rounds.sort(key=lambda runs: runs["action"]["rps"] / runs["bare"]["rps"])
    median = rounds[len(rounds) // 2]
    ratios = [runs["action"]["rps"] / runs["bare"]["rps"] for runs in rounds]
    ratio = ratios[len(rounds) // 2]
    command = "python benchmarks/server_speed.py " + " ".join(sys.argv[1:])
    labels = {"action": f"POST /api/games/{SLUG}/action", "bare": "bare ASGI endpoint, same bytes"}
    header = f"{'endpoint':<34} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'server CPU us/req':>18}"
    lines = [header]
    for key, label in labels.items():
        run = median[key]
        lines.append(
            f"{label:<34} {run['rps']:>9.0f} {run['p50']:>8.2f} {run['p99']:>8.2f} "
            f"{run['cpu']:>18.0f}"
        )
    lines += [
        f"ratio {ratio:.2f} (target >= {TARGET}): the median of {args.rounds} paired rounds "
        f"(all: {', '.join(f'{r:.2f}' for r in sorted(ratios))})",
        f"response {len(answer)} bytes, request {len(request)} bytes; {args.connections} "
        f"connections, wrk -t{WRK_THREADS}, {args.seconds} s per run",
    ]
    print("\n".join(lines))
    if args.record:
        record(command.strip(), lines)
    return 0 if ratio >= TARGET else 1


def record(command: str, lines: list[str]) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cores = os.cpu_count()
    text = (
        f"\n## Server speed\n\n`{command}` ({stamp}, {cores} cores, one uvicorn worker, "
        f"Python {sys.version.split()[0]})\n\n```\n" + "\n".join(lines) + "\n```\n"
    )
    with RESULTS.open("a") as handle:
        handle.write(text)


if __name__ == "__main__":
    raise SystemExit(main())
