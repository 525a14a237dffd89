"""What no connection can take from the others on a real ``playbench serve``: a head is
bounded as it arrives (an endless header line is cut off while another client is
answered), and a worker full of idle connections makes room for a new client."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from playbench.server.heads import HEAD_BYTES, HEADER_LINE_BYTES, MAX_HEADERS, REQUEST_LINE_BYTES
from tests.server.helpers import Player
from tests.web.serving import Served, serve_process

QUIET = ["--no-access-log", "--log-level", "warning"]
PATIENCE = 10.0
MIB = 1024 * 1024
#: what the attacker of the issue sent: one header line of 50 MiB, never ended
ENDLESS_BYTES = 50 * MIB


@pytest.fixture
def served(tmp_path, request) -> Iterator[Served]:
    stack = getattr(request, "param", "uvicorn")
    with serve_process(tmp_path, "--server", stack, *QUIET) as served:
        yield served


STACKS = pytest.mark.parametrize("served", ["uvicorn", "h11"], indirect=True)


def _port(served: Served) -> int:
    return int(served.base.rsplit(":", 1)[1])


def _connect(served: Served, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(
        ("127.0.0.1", _port(served)), timeout=PATIENCE, source_address=(source, 0)
    )


def _answer_of(sock: socket.socket) -> bytes:
    """What the server sends until it closes (a reset after its answer ends it too)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def _status_and_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)["error"]


def _send_head(served: Served, head: bytes) -> tuple[int, str]:
    with _connect(served) as sock:
        sock.sendall(head)
        return _status_and_error(_answer_of(sock))


def _request(target: bytes = b"/healthz", *headers: bytes) -> bytes:
    lines = [b"GET " + target + b" HTTP/1.1", b"Host: arena", b"Connection: close", *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


@STACKS
def test_each_part_of_a_head_is_bounded(served):
    long_target = b"/healthz?" + b"a" * REQUEST_LINE_BYTES
    assert _send_head(served, _request(long_target)) == (
        414,
        f"the request line is over the limit of {REQUEST_LINE_BYTES} bytes",
    )
    long_line = b"X-Big: " + b"a" * HEADER_LINE_BYTES
    assert _send_head(served, _request(b"/healthz", long_line)) == (
        431,
        f"a header line is over the limit of {HEADER_LINE_BYTES} bytes",
    )
    many = [b"X-N%d: 1" % n for n in range(MAX_HEADERS + 1)]
    assert _send_head(served, _request(b"/healthz", *many)) == (
        431,
        f"the request has over {MAX_HEADERS} header lines, the most it may",
    )
    filler = b"a" * (HEADER_LINE_BYTES - 16)
    wide = [b"X-W%d: %s" % (n, filler) for n in range(HEAD_BYTES // HEADER_LINE_BYTES + 1)]
    assert _send_head(served, _request(b"/healthz", *wide)) == (
        431,
        f"the request's headers are over the limit of {HEAD_BYTES} bytes in all",
    )


@STACKS
def test_a_head_within_every_bound_is_answered(served):
    most = HEADER_LINE_BYTES - len(b"X-Big: ")
    line = b"X-Big: " + b"a" * most
    few = [b"X-N%d: 1" % n for n in range(MAX_HEADERS - 3)]
    with _connect(served) as sock:
        sock.sendall(_request(b"/healthz", line, *few))
        assert _answer_of(sock).startswith(b"HTTP/1.1 200 ")
    target = b"/healthz?" + b"a" * (REQUEST_LINE_BYTES - len(b"GET /healthz? HTTP/1.1"))
    with _connect(served) as sock:
        sock.sendall(_request(target))
        assert _answer_of(sock).startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize("served", ["uvicorn", "h11", "granian"], indirect=True)
def test_an_endless_header_line_is_cut_off_while_others_are_answered(served):
    """The attack: a header line of 50 MiB that never ends. The server refuses it after a
    few KiB (granian at its read buffer, 64 KiB; the attacker cannot send it all: its
    connection is closed under it) and answers another client all along."""
    sent = 0
    done = threading.Event()
    answer = []

    def attack() -> None:
        nonlocal sent
        chunk = b"a" * MIB
        with _connect(served) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
                while sent < ENDLESS_BYTES:
                    sock.sendall(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer.append(_answer_of(sock))
        done.set()

    attacker = threading.Thread(target=attack)
    attacker.start()
    answered = 0
    with httpx.Client(base_url=served.base, timeout=PATIENCE) as other:
        while not done.is_set() or answered == 0:
            assert other.get("/api/games").status_code == 200
            answered += 1
    attacker.join()
    assert sent < ENDLESS_BYTES
    if answer[0]:  # the answer may be lost to the reset of the bytes still coming
        assert answer[0].startswith(b"HTTP/1.1 431 "), answer[0][:200]


def test_a_worker_full_of_idle_connections_serves_a_new_address(tmp_path):
    """1,000 silent connections from 10 addresses of 10 address groups (100 each, each
    address at its cap) fill the worker's cap of 1,000: a client from an eleventh address
    is still answered, one of the silent connections closed to make room."""
    with serve_process(tmp_path, *QUIET, "--keep-alive", "60") as served:
        idle = [_connect(served, f"127.0.{n + 1}.2") for n in range(10) for _ in range(100)]
        try:
            with _connect(served, "127.0.20.2") as sock:
                sock.sendall(_request(b"/api/games"))
                assert _answer_of(sock).startswith(b"HTTP/1.1 200 ")
            # the one idle longest, of the addresses holding the most, made room
            assert _answer_of(idle[0]) == b""
        finally:
            for sock in idle:
                sock.close()


def _held_open(sock: socket.socket) -> bool:
    """Whether the server still holds ``sock`` open: a request on it is answered."""
    try:
        sock.sendall(_request(b"/healthz"))
        return _answer_of(sock).startswith(b"HTTP/1.1 200 ")
    except OSError:
        return False


def test_the_addresses_of_one_group_cannot_fill_the_worker(tmp_path):
    """1,000 silent connections from 10 addresses of one /24 (100 each, under the
    per-address cap): the group holds at most 200 at once, each new one of the group
    taking the place of an idle one of the group's (of the address holding the most), so
    the worker has room for everyone else and no connection of another group is closed
    for them."""
    group = [f"127.0.7.{n + 2}" for n in range(10)]
    with serve_process(tmp_path, *QUIET, "--keep-alive", "60") as served:
        held: list[socket.socket] = []
        try:
            other = _connect(served, "127.0.8.2")
            held = [_connect(served, address) for address in group for _ in range(100)]
            with _connect(served, "127.0.9.2") as sock:  # accepted after the 1,000
                sock.sendall(_request(b"/api/games"))
                assert _answer_of(sock).startswith(b"HTTP/1.1 200 ")
            assert _held_open(other)
            # a request on each: answered on the 200 the group holds, none on the others
            assert sum(_held_open(sock) for sock in held) == 200
        finally:
            for sock in held:
                sock.close()


def test_a_group_whose_connections_all_work_refuses_one_more(tmp_path):
    """A group's connections with an answer under way (event streams) are not closed to
    make room: one more from the group is answered 503 naming it, and another group's
    client is served."""
    args = ["--max-connections-per-address", "2", "--max-connections-per-group", "4"]
    with serve_process(tmp_path, *QUIET, *args) as served:
        with httpx.Client(base_url=served.base, timeout=PATIENCE) as api:
            session_id = Player(api, "delvewick", seed=None).last["sessionId"]  # type: ignore[arg-type]
        stream = f"/api/spectate/sessions/{session_id}/stream".encode()
        busy = [_connect(served, f"127.0.10.{n // 2 + 2}") for n in range(4)]
        try:
            for sock in busy:
                sock.sendall(b"GET " + stream + b" HTTP/1.1\r\nHost: arena\r\n\r\n")
            for sock in busy:
                seen = b""
                while b"event: state" not in seen:
                    seen += sock.recv(65536)
            with _connect(served, "127.0.10.9") as sock:
                assert _status_and_error(_answer_of(sock)) == (
                    503,
                    "the addresses of 127.0.10.0/24 hold the limit of 4 connections to this "
                    "worker: close one or retry in a moment",
                )
            with _connect(served, "127.0.11.2") as sock:
                sock.sendall(_request(b"/healthz"))
                assert _answer_of(sock).startswith(b"HTTP/1.1 200 ")
        finally:
            for sock in busy:
                sock.close()


def test_a_group_cap_below_the_address_cap_is_the_address_cap(tmp_path):
    """A cluster told to hold more per address is not cut short by its group."""
    args = ["--max-connections-per-address", "12", "--max-connections-per-group", "4"]
    with serve_process(tmp_path, *QUIET, *args) as served:
        held = [_connect(served, "127.0.9.2") for _ in range(12)]
        try:
            # accepted in order: the 13th finds the 12 counted, its address at its cap
            with _connect(served, "127.0.9.2") as sock:
                status, error = _status_and_error(_answer_of(sock))
            assert status == 503 and error.startswith("this address holds the limit of 12 ")
            assert [_held_open(sock) for sock in held] == [True] * 12
        finally:
            for sock in held:
                sock.close()


@pytest.mark.parametrize("stack", ["uvicorn", "h11"])
def test_a_worker_whose_connections_all_work_refuses_one_more(tmp_path, stack):
    """Connections with an answer under way (here: event streams, each seen started) are
    not closed to make room: one more than the cap is answered 503."""
    args = ["--server", stack, "--max-connections", "8", *QUIET]
    with serve_process(tmp_path, *args) as served:
        with httpx.Client(base_url=served.base, timeout=PATIENCE) as api:
            session_id = Player(api, "delvewick", seed=None).last["sessionId"]  # type: ignore[arg-type]
        stream = f"/api/spectate/sessions/{session_id}/stream".encode()
        busy = [_connect(served) for _ in range(8)]
        try:
            for sock in busy:
                sock.sendall(b"GET " + stream + b" HTTP/1.1\r\nHost: arena\r\n\r\n")
            for sock in busy:
                seen = b""
                while b"event: state" not in seen:
                    seen += sock.recv(65536)
            with _connect(served) as sock:
                status, error = _status_and_error(_answer_of(sock))
            assert status == 503
            assert error == "the server holds its limit of 8 connections: retry in a moment"
        finally:
            for sock in busy:
                sock.close()


@STACKS
def test_a_413_closes_the_connection_and_no_408_follows(served):
    """A declared body over the limit is answered 413 once, and the connection closed: the
    unread body is never taken for a next request (which a 408 then answered)."""
    size = 256 * 1024 + 1
    head = (
        b"POST /api/games/delvewick/action HTTP/1.1\r\nHost: arena\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size
    )
    with _connect(served) as sock:
        sock.sendall(head + b'{"state": "')
        answer = _answer_of(sock)
    status, error = _status_and_error(answer)
    assert (status, error) == (413, "request body is over the limit of 262144 bytes")
    assert answer.count(b"HTTP/1.1 ") == 1
    assert b"connection: close" in answer.lower()
