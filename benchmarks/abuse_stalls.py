"""Stalls: what a few connections can take from every other client of a server on its
default limits (loopback only, every loop bounded), each beside another client's latency.

    python benchmarks/abuse_stalls.py [--server uvicorn|granian|h11]
    python benchmarks/abuse.py --only stalls

- an unfinished header line (``X-Big: `` then 12, 25 and 50 MiB of ``a``, never ended):
  the bytes the server took before it closed the connection, the seconds that took, and
  the slowest answer another client got meanwhile (beside its slowest with no attack);
- 1,000 silent connections from 10 loopback addresses of one /24 (100 each, each under
  its cap): what a client from an eleventh address is answered (of the same /24 and of
  another), and in how long; and how many of the 1,000 the worker holds;
- 100 clients that ask for a large answer (the docs' script bundle) and never read it: the
  connections still held the keep-alive time plus 3 s later;
- a body over the limit, declared and sent whole: the answers the connection gets in
  15 s (one 413; a 408 after it is read by a keep-alive client as the answer to its next
  request);
- 10 ``frames`` calls at once, each replaying a whole Cogcrawl game (1,043 waits):
  another client's slowest answer meanwhile (``--only frames`` runs it alone);
- a bench result's report drawn (the bot's suite-v2 result of ``docs/bench/bot`` put in
  by hand, checked, then drawn): another client's p50, p99 and slowest answer while the
  report is drawn, beside its own with nothing drawn (``--only report`` runs it alone);
- the database made unwritable (``chattr +i``, as root): the statuses of an act, of
  ``/readyz`` and of a new session, the requests left with no answer, and whether any
  answer names the database's file.

Run it with ``PYTHONPATH`` naming another checkout to measure that one's server (the
figures in ``benchmarks/RESULTS.md`` give main before and after).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
from abuse import HOST, Server, check_headers

MIB = 1024 * 1024
KEEP_ALIVE_SECONDS = 20
#: a body over the default limit of 256 KiB
OVERSIZED = b'{"state": "' + b"a" * 300_000 + b'"}'
#: answers the other client gets, at least, in the window of an attack
ANSWERS_AFTER = 20
#: a large answer (1.4 MB), and the slow readers' receive buffer: small, so that the
#: server's send buffer fills
LARGE_ANSWER = b"/docs/assets/swagger-ui-bundle.js"
READER_BUFFER = 4096


@contextmanager
def _served(**env: str) -> Iterator[Server]:
    data = Path(tempfile.mkdtemp(prefix="playbench-stalls-"))
    server = Server(data, env=env).start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def _connect(port: int, source: str = HOST, buffer: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer)
    sock.settimeout(30)
    sock.bind((source, 0))
    sock.connect((HOST, port))
    return sock


def _slowest(url: str, stop: threading.Event, found: list[float]) -> None:
    """Another client, asking ``/api/games`` over and over until ``stop``."""
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get("/api/games")
            found.append(time.perf_counter() - started)


def endless_header(server: Server, size: int) -> tuple[int, float, float]:
    """Bytes of the header line sent before the server closed, the seconds that took, and
    the slowest answer another client got meanwhile."""
    stop, found = threading.Event(), []
    other = threading.Thread(target=_slowest, args=(server.url, stop, found))
    other.start()
    while not found:  # the other client is served before the attack begins
        time.sleep(0.01)
    sent = 0
    chunk = b"a" * MIB
    started = time.perf_counter()
    with _connect(server.port) as sock:
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
            while sent < size:
                sock.sendall(chunk)
                sent += len(chunk)
            sock.recv(65536)
        except OSError:
            pass
    took = time.perf_counter() - started
    while len(found) < ANSWERS_AFTER:  # the other client's answers span the attack
        time.sleep(0.01)
    stop.set()
    other.join()
    return sent, took, max(found)


def baseline_slowest(server: Server, seconds: float) -> float:
    stop, found = threading.Event(), []
    other = threading.Thread(target=_slowest, args=(server.url, stop, found))
    other.start()
    time.sleep(seconds)
    stop.set()
    other.join()
    return max(found, default=0.0)


def idle_flood(
    server: Server, addresses: int, each: int, newcomer: str = "127.0.0.200"
) -> tuple[int | str, float]:
    """A new address's status (or what went wrong) while ``addresses`` x ``each`` silent
    connections are held (from one /24), and the seconds its answer took."""
    held = [
        _connect(server.port, f"127.0.0.{n + 2}") for n in range(addresses) for _ in range(each)
    ]
    try:
        started = time.perf_counter()
        try:
            transport = httpx.HTTPTransport(local_address=newcomer)
            with httpx.Client(transport=transport, timeout=30) as client:
                status: int | str = client.get(f"{server.url}/api/games").status_code
        except httpx.HTTPError as error:
            status = type(error).__name__
        return status, time.perf_counter() - started
    finally:
        for sock in held:
            sock.close()


def group_held(server: Server, addresses: int, each: int) -> int:
    """Of ``addresses`` x ``each`` silent connections from one /24, how many the worker
    still holds once a connection from another /24 (accepted after them) is answered."""
    ask = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    held = [
        _connect(server.port, f"127.0.0.{n + 2}") for n in range(addresses) for _ in range(each)
    ]
    with _connect(server.port, "127.0.1.2") as barrier:
        barrier.sendall(ask)
        barrier.recv(65536)
    answered = 0
    for sock in held:
        with suppress(OSError), sock:
            sock.sendall(ask)
            answered += sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    return answered


def slow_readers(server: Server, count: int) -> int:
    """Connections still open ``KEEP_ALIVE_SECONDS + 3`` s after asking for a large
    answer they never read."""
    readers = [_connect(server.port, buffer=READER_BUFFER) for _ in range(count)]
    for sock in readers:
        sock.sendall(b"GET " + LARGE_ANSWER + b" HTTP/1.1\r\nHost: arena\r\n\r\n")
    time.sleep(KEEP_ALIVE_SECONDS + 3)
    held = 0
    for sock in readers:
        sock.settimeout(0.5)
        try:
            while sock.recv(1 << 20):
                pass
        except TimeoutError:
            held += 1  # nothing more came and no end: the server still holds it
        except OSError:
            pass
        sock.close()
    return held


def answers_after_413(server: Server) -> list[int]:
    """The statuses a connection gets after one declared body over the limit."""
    head = (
        b"POST /api/games/delvewick/action HTTP/1.1\r\nHost: arena\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(OVERSIZED)
    )
    with _connect(server.port) as sock:
        sock.settimeout(15)
        with suppress(OSError):
            sock.sendall(head + OVERSIZED)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except OSError:
            pass
    answer = b"".join(chunks)
    return [int(part[:3]) for part in answer.split(b"HTTP/1.1 ")[1:]]


def unwritable_database(server: Server) -> dict[str, object]:
    """Statuses while the database files are immutable; requests with no answer; whether
    an answer named the database's file."""
    found: dict[str, object] = {}
    texts = []
    unanswered = 0
    with httpx.Client(base_url=server.url, timeout=30) as api:
        made = api.post("/games/delvewick/api/new", json={}).json()
        token = made["token"]
        files = [
            str(f) for f in sorted(server.data.glob("playbench.db*")) if not f.name.endswith("-shm")
        ]
        subprocess.run(["chattr", "+i", *files], check=True)
        try:
            time.sleep(1.1)  # the readiness verdict of before has run out
            for name, request in (
                ("act", lambda: api.post(
                    "/games/delvewick/api/act", json={"command": "down"},
                    headers=check_headers(made, token),
                )),
                ("readyz", lambda: api.get("/readyz")),
                ("new", lambda: api.post("/games/delvewick/api/new", json={})),
                ("register", lambda: api.post("/api/players", json={"name": "unwritten"})),
            ):  # fmt: skip
                try:
                    answer = request()
                    found[name] = answer.status_code
                    texts.append(answer.text)
                except httpx.HTTPError:
                    unanswered += 1
                    found[name] = "no answer"
        finally:
            subprocess.run(["chattr", "-i", *files], check=True)
    found["unanswered"] = unanswered
    found["names the file"] = any(
        "playbench.db" in text or str(server.data) in text for text in texts
    )
    return found


def frames_flood(server: Server, calls: int) -> tuple[float, float]:
    """Another client's slowest answer while ``calls`` replays of a whole Cogcrawl game
    (1,043 waits, every one replayed) are asked for their last 200 frames at once, and
    the seconds the last of them took."""
    replay = _waits_to_the_end()
    body = {"seed": 5, "actions": replay, "start": len(replay) - 199, "count": 200}
    stop, found = threading.Event(), []
    other = threading.Thread(target=_slowest, args=(server.url, stop, found))
    other.start()
    while not found:
        time.sleep(0.01)
    started = time.perf_counter()

    def ask() -> None:
        with httpx.Client(timeout=120) as client:
            answer = client.post(f"{server.url}/api/games/cogcrawl/frames", json=body)
            answer.raise_for_status()

    askers = [threading.Thread(target=ask) for _ in range(calls)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    took = time.perf_counter() - started
    stop.set()
    other.join()
    return max(found), took


#: a verified result whose report the probe has the server draw
BOT_RESULT = Path(__file__).parents[1] / "docs" / "bench" / "bot"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report_drawn(server: Server) -> dict[str, object]:
    """Another client's answers (p50, p99, slowest, in ms, and how many) with nothing
    drawn and while the server draws a result's report, the report put in by hand; and
    the seconds the drawing took as the shelf's rows show it."""
    quiet: list[float] = []
    stop = threading.Event()
    other = threading.Thread(target=_slowest, args=(server.url, stop, quiet))
    other.start()
    time.sleep(3)
    stop.set()
    other.join()
    staging = server.data / "bench" / ".staging-bot"
    shutil.copytree(BOT_RESULT, staging, ignore=shutil.ignore_patterns("report"))
    staging.rename(server.data / "bench" / "bot")
    with httpx.Client(base_url=server.url, timeout=120) as client:
        rows: list[dict] = []
        while not rows:  # listed once checked (in a process of its own)
            rows = client.get("/api/bench").json()["results"]
            time.sleep(0.05)
        status = rows[0]["reportStatus"]
        drawing: list[float] = []
        stop = threading.Event()
        other = threading.Thread(target=_slowest, args=(server.url, stop, drawing))
        other.start()
        started = time.perf_counter()
        while status == "drawing":
            status = client.get("/api/bench").json()["results"][0]["reportStatus"]
            time.sleep(0.2)
        took = time.perf_counter() - started
        stop.set()
        other.join()

    def ms(values: list[float]) -> str:
        return (
            f"p50 {_percentile(values, 0.5) * 1000:.1f} ms, p99 "
            f"{_percentile(values, 0.99) * 1000:.1f} ms, slowest {max(values) * 1000:.1f} ms "
            f"over {len(values)} answers"
        )

    return {
        "report": status,
        "drawn in": f"{took:.1f} s",
        "nothing drawn": ms(quiet),
        "while drawn": ms(drawing),
    }


def _waits_to_the_end() -> list[dict[str, str]]:
    from playbench.core.match import Match

    match = Match.start("cogcrawl", 5)
    actions = []
    while not match.view(("gameOver",))["gameOver"]:
        action = {"type": "wait"}
        match.play(action)
        actions.append(action)
    return actions


def stalls() -> None:
    with _served() as server:
        print(f"another client's slowest answer, no attack: {baseline_slowest(server, 2):.3f} s")
        for mib in (12, 25, 50):
            sent, took, slowest = endless_header(server, mib * MIB)
            print(
                f"unfinished header of {mib} MiB: {sent / MIB:.0f} MiB sent before the close, "
                f"after "
                f"{took:.2f} s; another client's slowest answer meanwhile {slowest:.3f} s"
            )
    for newcomer in ("127.0.0.200", "127.0.1.2"):
        with _served() as server:
            status, took = idle_flood(server, 10, 100, newcomer)
            print(
                f"{10 * 100} silent connections from 10 addresses of 127.0.0.0/24: a new "
                f"address ({newcomer}) answered {status} in {took:.3f} s"
            )
    with _served() as server:
        print(
            f"{10 * 100} silent connections from 10 addresses of 127.0.0.0/24: "
            f"{group_held(server, 10, 100)} held by the worker"
        )
    with _served() as server:
        held = slow_readers(server, 100)
        print(
            f"slow readers: {held} of {100} connections held {KEEP_ALIVE_SECONDS + 3} s "
            "after asking for 1.4 MB and reading nothing"
        )
        print(f"a declared body over the limit: answers {answers_after_413(server)}")
        print(f"unwritable database: {unwritable_database(server)}")
        slowest, took = frames_flood(server, 10)
        print(
            f"10 frames calls at once (a 1,043-action Cogcrawl replay each): another client's "
            f"slowest answer {slowest:.3f} s; the last call answered after {took:.2f} s"
        )
    report_probe()


def report_probe() -> None:
    with _served() as server:
        print(f"a report drawn: {report_drawn(server)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=Server.stack, help="the stack")
    parser.add_argument("--only", choices=("frames", "report"), help="run only this probe")
    args = parser.parse_args()
    Server.stack = args.server
    if args.only == "report":
        report_probe()
        return 0
    if args.only == "frames":
        with _served() as server:
            print(f"10 frames calls at once: {frames_flood(server, 10)}")
        return 0
    stalls()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
