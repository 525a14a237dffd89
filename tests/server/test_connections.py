"""What one client can hold of a real ``playbench serve``: idle and slow connections time
out, a worker's connections are capped, a body cut short logs nothing, and workers do
not outlive a killed master."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from playbench.server.connections import (
    CoalescedWrites,
    ConnectionLimits,
    address_group,
    guarded_protocol,
)
from tests.web.serving import Served, serve_process

QUIET = ["--no-access-log", "--log-level", "warning"]
#: longer than every timeout the servers below are given
PATIENCE = 6.0


@pytest.fixture
def guarded(tmp_path, request) -> Iterator[Served]:
    stack = getattr(request, "param", "uvicorn")
    args = ["--server", stack, "--keep-alive", "2", "--request-timeout", "2"]
    with serve_process(tmp_path, *args, "--max-connections", "8", *QUIET) as served:
        yield served


def _connect(served: Served) -> socket.socket:
    port = int(served.base.rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (a timeout fails the test)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _status_and_body(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


STACKS = pytest.mark.parametrize("guarded", ["uvicorn", "h11"], indirect=True)


@STACKS
def test_answers_name_no_server(guarded):
    answer = httpx.get(f"{guarded.base}/api/games")
    assert answer.status_code == 200 and "server" not in answer.headers
    assert answer.headers["x-content-type-options"] == "nosniff"


@STACKS
def test_a_connection_that_never_sends_is_closed(guarded):
    with _connect(guarded) as sock:
        start = time.monotonic()
        assert _read_until_closed(sock) == b""
        assert 1.5 < time.monotonic() - start < PATIENCE


@STACKS
def test_an_idle_keep_alive_connection_is_closed(guarded):
    with _connect(guarded) as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: arena\r\n\r\n")
        answer = _read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 200 ")


@STACKS
def test_headers_that_trickle_in_get_408(guarded):
    with _connect(guarded) as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: arena\r\n")
        for _ in range(3):
            time.sleep(0.8)
            sock.sendall(b"X-Slow: 1\r\n")
        status, body = _status_and_body(_read_until_closed(sock))
    assert status == 408
    assert body == {"error": "the request did not arrive whole within 2 s"}


@STACKS
def test_a_body_that_never_arrives_whole_gets_408(guarded):
    head = (
        b"POST /api/games/delvewick/action HTTP/1.1\r\nHost: arena\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    with _connect(guarded) as sock:
        sock.sendall(head + b'{"state": "')
        status, body = _status_and_body(_read_until_closed(sock))
    assert status == 408
    assert body["error"] == "the request did not arrive whole within 2 s"


@STACKS
def test_each_request_on_a_kept_connection_has_its_whole_time(guarded):
    """The request timer outlives the request that armed it: a later request on the same
    connection is timed from its own first byte, not from the first request's."""
    with _connect(guarded) as sock:
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: arena\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        time.sleep(1.0)
        started = time.monotonic()
        sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: arena\r\n")
        status, body = _status_and_body(_read_until_closed(sock))
        waited = time.monotonic() - started
    assert status == 408 and body["error"] == "the request did not arrive whole within 2 s"
    assert 1.9 < waited < PATIENCE


def test_a_slow_app_is_not_a_slow_request(tmp_path):
    """The timer covers the request's arrival only: an answer may take longer to make."""
    args = ["--keep-alive", "5", "--request-timeout", "1", *QUIET]
    with serve_process(tmp_path, *args) as served, httpx.Client(base_url=served.base) as client:
        for _ in range(3):
            assert client.get("/api/games").status_code == 200
            time.sleep(1.3)
        assert client.get("/api/games/cogcrawl/init?seed=7").status_code == 200


@pytest.mark.parametrize("stack", ["uvicorn", "granian", "h11"])
def test_a_body_cut_short_logs_nothing(tmp_path, stack):
    with serve_process(tmp_path, "--server", stack, *QUIET) as served:
        time.sleep(0.5)
        logged = served.log_path.stat().st_size
        for path in ("/api/games/delvewick/action", "/games/delvewick/api/new"):
            for _ in range(5):
                with _connect(served) as sock:
                    sock.sendall(
                        f"POST {path} HTTP/1.1\r\nHost: arena\r\n"
                        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                        '{"state": "abc'.encode()
                    )
                    time.sleep(0.05)
        assert httpx.get(f"{served.base}/api/games").status_code == 200
        time.sleep(0.5)
        assert served.log_path.read_text()[logged:] == ""


@pytest.mark.parametrize("stack", ["uvicorn", "granian"])
def test_workers_stop_when_their_master_is_killed(tmp_path, stack):
    with serve_process(tmp_path, "--server", stack, "--workers", "2", *QUIET) as served:
        assert httpx.get(f"{served.base}/api/games").status_code == 200
        os.kill(served.process.pid, signal.SIGKILL)
        served.process.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{served.base}/api/games", timeout=1)
            except httpx.TransportError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("a worker still serves 15 s after its master was killed")
        while _live_members(served.process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _live_members(served.process.pid) == []


def _live_members(group: int) -> list[int]:
    """The processes of a process group that are still running (not zombies)."""
    live = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                live.append(int(entry))
    return live


async def _nodelay_of_accepted(http: object) -> int:
    """TCP_NODELAY of a connection accepted through a listening socket made with
    protocol 0, as a worker receives the shared one."""
    config = uvicorn.Config(app=None, http=http, loop="asyncio", lifespan="off")
    config.load()
    state = ServerState()
    protocols = []

    def protocol() -> asyncio.Protocol:
        made = config.http_protocol_class(config=config, server_state=state, app_state={})
        protocols.append(made)
        return made

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        server = await asyncio.get_running_loop().create_server(protocol, sock=listener)
        _, writer = await asyncio.open_connection(*listener.getsockname())
        await asyncio.sleep(0.05)
        accepted = protocols[0].transport.get_extra_info("socket")
        nodelay = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        writer.close()
        server.close()
    return nodelay


def test_h11_connections_of_a_shared_socket_get_no_nagle_delay():
    limits = ConnectionLimits(idle_seconds=5, request_seconds=5, max_connections=10)
    assert asyncio.run(_nodelay_of_accepted(H11Protocol)) == 0
    assert asyncio.run(_nodelay_of_accepted(guarded_protocol("h11", limits))) == 1


class _Recorded(asyncio.Transport):
    """The transport interface, recording what reaches the socket."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def test_the_writes_of_one_loop_turn_go_out_as_one():
    async def main() -> tuple[list[bytes], list[bytes], list[bytes]]:
        recorded = _Recorded()
        writes = CoalescedWrites(recorded, asyncio.get_running_loop())
        writes.write(b"HTTP/1.1 200 OK\r\n\r\n")
        writes.write(b"{}")
        held = list(recorded.written)
        await asyncio.sleep(0)
        flushed = list(recorded.written)
        writes.write(b"last")
        writes.close()
        return held, flushed, recorded.written

    held, flushed, closed = asyncio.run(main())
    assert held == []
    assert flushed == [b"HTTP/1.1 200 OK\r\n\r\n{}"]
    assert closed == [b"HTTP/1.1 200 OK\r\n\r\n{}", b"last"]


def test_an_address_group_is_its_ipv4_24_or_its_ipv6_64():
    assert address_group("203.0.113.77") == "203.0.113.0/24"
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2::ffff") == address_group("2001:db8:1:2:aaaa::1")
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:203.0.113.5") == "203.0.113.0/24"
    assert address_group("fe80::1%eth0") == "fe80::/64"
    assert address_group("not-an-address") == "not-an-address"


def test_a_group_holds_at_least_what_one_address_may():
    assert ConnectionLimits(20, 10, 1000).group_cap == 200
    assert ConnectionLimits(20, 10, 1000, per_address=500).group_cap == 500
