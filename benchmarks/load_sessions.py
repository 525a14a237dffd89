"""Session acts under load, beside the stateless route, with a client that is not the
bottleneck.

    python benchmarks/load_sessions.py [--sessions 1,16,64,256] [--seconds 5]
        [--rounds 3] [--database URL] [--record]

Starts ``playbench serve`` on 127.0.0.1 (one worker, the default stack, every rate limit
off, the per-address connection cap raised to 1,000) over a temporary data folder, SQLite
unless ``--database`` names another (PostgreSQL: a SQLAlchemy URL). For each count of
concurrent sessions, each one a practice Gem Swap session on one keep-alive connection,
acting as fast as its answers come back (each act answering the agent check of the answer
before, a new session when a game ends), it reports acts/s, p50 and p99 latency and the
server's CPU in cores; then as many connections posting the stateless action route
(``POST /api/games/gem-swap/action``, a sealed state and a legal swap). The client is raw
HTTP/1.1 on asyncio in this process: its own CPU in cores is shown beside each row.
Every run is bounded by ``--seconds``; the sessions are made before the clock starts.
With ``--rounds`` above 1 the whole series runs that many times, alternating sessions
and the stateless route, and each figure is the median of its rounds (latencies pooled):
what a busy neighbour costs one run then moves no figure alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

HOST = "127.0.0.1"
SLUG = "gem-swap"
QUESTION = re.compile(r"What is (\d+) \+ (\d+) \* (\d+)\?")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
RESULTS = Path(__file__).with_name("RESULTS.md")
STARTUP_SECONDS = 60.0
#: limits off for the load (what is measured is the route, not the limiter)
LIMITS_OFF = {
    "PLAYBENCH_RATE_PER_ADDRESS": "0",
    "PLAYBENCH_RATE_PER_SESSION": "0",
    "PLAYBENCH_RATE_NEW_PER_ADDRESS": "0",
    "PLAYBENCH_RATE_REGISTER": "0",
}


def solve(puzzle: dict) -> str:
    a, b, c = (int(group) for group in QUESTION.fullmatch(puzzle["question"]).groups())
    return str(a + b * c)


@dataclass
class Row:
    clients: int
    done: int
    seconds: float
    latencies: list[float]
    server_cpu: float
    client_cpu: float

    def rate(self) -> float:
        return self.done / self.seconds

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000


class Connection:
    """One keep-alive HTTP/1.1 connection: a request written, its answer read whole."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer)

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        lines = [f"POST {path} HTTP/1.1", f"Host: {HOST}", "Content-Type: application/json"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


class SessionClient:
    """A practice Gem Swap session played on one connection."""

    def __init__(self, connection: Connection, seed: int) -> None:
        self.connection, self.seed, self.last = connection, seed, {}

    async def start(self) -> None:
        status, body = await self.connection.post(
            f"/games/{SLUG}/api/new", json.dumps({"seed": self.seed}).encode(), {}
        )
        assert status == 200, body[:200]
        self.last = json.loads(body)
        self.token = self.last["token"]
        self.seed += 1

    async def act(self) -> None:
        if self.last["gameOver"]:
            await self.start()
        puzzle = self.last["agentCheck"]
        headers = {
            "Authorization": f"Bearer {self.token}",
            "X-Agent-Check": puzzle["token"],
            "X-Agent-Answer": solve(puzzle),
        }
        body = json.dumps({"command": self.last["commands"][0]}).encode()
        status, answer = await self.connection.post(f"/games/{SLUG}/api/act", body, headers)
        assert status == 200, answer[:300]
        self.last = json.loads(answer)


def server_cpu(pid: int) -> float:
    """CPU seconds of every process in the server's session."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == pid:
            total += sum(int(value) for value in fields[11:15])
    return total / CLOCK_TICKS


async def timed(pid: int, clients: int, seconds: float, step: object, setup: object) -> Row:
    """``clients`` loops of ``step`` (each on what ``setup`` made) for ``seconds``."""
    made = await asyncio.gather(*(setup(index) for index in range(clients)))
    latencies: list[float] = []
    stop = time.monotonic() + seconds

    async def loop(item: object) -> None:
        while time.monotonic() < stop:
            started = time.perf_counter()
            await step(item)
            latencies.append(time.perf_counter() - started)

    cpu, own, started = server_cpu(pid), time.process_time(), time.perf_counter()
    await asyncio.gather(*(loop(item) for item in made))
    elapsed = time.perf_counter() - started
    row = Row(
        clients,
        len(latencies),
        elapsed,
        latencies,
        (server_cpu(pid) - cpu) / elapsed,
        (time.process_time() - own) / elapsed,
    )
    for item in made:
        getattr(item, "connection", item).close()
    return row


async def session_row(port: int, pid: int, clients: int, seconds: float) -> Row:
    async def setup(index: int) -> SessionClient:
        session = SessionClient(await Connection.open(port), 1000 * index)
        await session.start()
        return session

    return await timed(pid, clients, seconds, SessionClient.act, setup)


async def counted_rate(port: int, clients: int, acts_each: int) -> float:
    """Acts per second of ``clients`` sessions acting ``acts_each`` times each (a bound
    by count, not by the clock: what the load test compares)."""

    async def one(index: int) -> None:
        session = SessionClient(await Connection.open(port), 1000 * index)
        await session.start()
        for _ in range(acts_each):
            await session.act()
        session.connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(index) for index in range(clients)))
    return clients * acts_each / (time.perf_counter() - started)


async def stateless_row(port: int, pid: int, clients: int, seconds: float, body: bytes) -> Row:
    async def step(connection: Connection) -> None:
        status, answer = await connection.post(f"/api/games/{SLUG}/action", body, {})
        assert status == 200, answer[:200]

    async def setup(_index: int) -> Connection:
        return await Connection.open(port)

    return await timed(pid, clients, seconds, step, setup)


def stateless_body(url: str) -> bytes:
    init = httpx.post(f"{url}/api/games/{SLUG}/init", json={"seed": 7}).json()
    return json.dumps({"state": init["state"], "action": init["legalActions"][0]}).encode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def serve(data: Path, port: int, database: str | None) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "playbench.cli", "serve", "--host", HOST, "--port", str(port),
        "--data", str(data), "--workers", "1", "--log-level", "warning", "--no-access-log",
        "--max-connections-per-address", "1000", "--max-connections", "2000",
    ]  # fmt: skip
    if database:
        command += ["--database", database]
    env = {**os.environ, **LIMITS_OFF}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://{HOST}:{port}/api/games", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    raise RuntimeError("the server did not start")


def median_row(rows: list[Row]) -> Row:
    """One row of the median rate (its ``done`` over ``seconds``), CPU figures and
    latencies of every round."""
    seconds = statistics.median(row.seconds for row in rows)
    return Row(
        rows[0].clients,
        round(statistics.median(row.rate() for row in rows) * seconds),
        seconds,
        [latency for row in rows for latency in row.latencies],
        statistics.median(row.server_cpu for row in rows),
        statistics.median(row.client_cpu for row in rows),
    )


def measure(
    counts: list[int], seconds: float, database: str | None, rounds: int = 1
) -> list[tuple[Row, Row]]:
    data = Path(tempfile.mkdtemp(prefix="playbench-load-"))
    port = free_port()
    process = serve(data, port, database)
    try:
        body = stateless_body(f"http://{HOST}:{port}")
        runs: dict[int, list[tuple[Row, Row]]] = {clients: [] for clients in counts}
        for _round in range(rounds):
            for clients in counts:
                acting = asyncio.run(session_row(port, process.pid, clients, seconds))
                stateless = asyncio.run(stateless_row(port, process.pid, clients, seconds, body))
                runs[clients].append((acting, stateless))
        return [
            (median_row([a for a, _ in runs[n]]), median_row([b for _, b in runs[n]]))
            for n in counts
        ]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


def table(rows: list[tuple[Row, Row]]) -> list[str]:
    lines = [
        "| sessions | acts/s | p50 | p99 | server CPU | client CPU | stateless/s | p99 "
        "| acts / stateless |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for acting, stateless in rows:
        lines.append(
            f"| {acting.clients} | {acting.rate():,.0f} | {acting.percentile(0.5):.1f} ms "
            f"| {acting.percentile(0.99):.1f} ms | {acting.server_cpu:.2f} cores "
            f"| {acting.client_cpu:.2f} cores | {stateless.rate():,.0f} "
            f"| {stateless.percentile(0.99):.1f} ms | {acting.rate() / stateless.rate():.3f} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="1,16,64,256", help="concurrent sessions")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each run")
    parser.add_argument(
        "--rounds", type=int, default=3, help="runs of the series; figures are medians"
    )
    parser.add_argument("--database", help="a SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--record", action="store_true", help=f"append to {RESULTS.name}")
    args = parser.parse_args()
    counts = [int(part) for part in args.sessions.split(",")]
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rows = measure(counts, args.seconds, args.database, args.rounds)
    lines = table(rows)
    print("\n".join(lines))
    if args.record:
        with RESULTS.open("a", encoding="utf-8") as out:
            out.write("\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
