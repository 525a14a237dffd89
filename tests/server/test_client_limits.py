"""What one client address can take of a real ``playbench serve``: connections per address,
the forwarded header trusted only from the named proxies, and session ``new`` at its own
rate."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from playbench.server.connections import Proxies, parse_proxies
from playbench.server.settings import Settings
from tests.server.helpers import Player
from tests.web.serving import Served, serve_process

QUIET = ["--no-access-log", "--log-level", "warning"]
PATIENCE = 6.0


def own(tmp_path) -> list[str]:
    """The server's own database, whatever PLAYBENCH_DATABASE_URL the process holds."""
    return ["--database", f"sqlite:///{tmp_path / 'own.db'}"]


def _connect(served: Served, source: str = "127.0.0.1") -> socket.socket:
    port = int(served.base.rsplit(":", 1)[1])
    return socket.create_connection(
        ("127.0.0.1", port), timeout=PATIENCE, source_address=(source, 0)
    )


def _get(sock: socket.socket, path: str | None) -> tuple[int, dict]:
    """Send a request (None: send nothing) and read the answer until the server closes."""
    if path is not None:
        request = f"GET {path} HTTP/1.1\r\nHost: arena\r\nConnection: close\r\n\r\n"
        sock.sendall(request.encode())
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def test_one_address_holds_at_most_its_cap_and_others_are_served(tmp_path):
    args = ["--max-connections", "50", "--max-connections-per-address", "4", *QUIET]
    with serve_process(tmp_path, *args, *own(tmp_path)) as served:
        held = [_connect(served) for _ in range(4)]
        try:
            # the server accepts in the order of connecting: the held ones are counted first
            with _connect(served) as one_more:
                status, body = _get(one_more, None)
            assert status == 503
            assert body == {
                "error": "this address holds the limit of 4 connections to this worker: "
                "close one or retry in a moment"
            }
            with _connect(served, source="127.0.0.2") as other_client:
                assert _get(other_client, "/healthz") == (200, {"status": "ok"})
        finally:
            for sock in held:
                sock.close()


def _rotating(base: str, count: int) -> list[int]:
    """Statuses of ``count`` requests, each claiming another client in X-Forwarded-For."""
    with httpx.Client(base_url=base) as client:
        return [
            client.get("/api/games", headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
            for n in range(count)
        ]


def test_the_forwarded_header_is_not_trusted_by_default(tmp_path):
    args = ["--rate-per-address", "0.01/4", *own(tmp_path), *QUIET]
    with serve_process(tmp_path, *args) as served:
        assert _rotating(served.base, 6) == [200, 200, 200, 200, 429, 429]


def test_the_forwarded_header_names_the_client_behind_a_named_proxy(tmp_path):
    args = ["--rate-per-address", "0.01/4", "--forwarded-allow-ips", "127.0.0.1"]
    with serve_process(tmp_path, *args, *own(tmp_path), *QUIET) as served:
        assert _rotating(served.base, 6) == [200] * 6
        with httpx.Client(base_url=served.base) as client:
            same = [
                client.get("/api/games", headers={"X-Forwarded-For": "198.51.100.7"}).status_code
                for _ in range(5)
            ]
        assert same == [200, 200, 200, 200, 429]


def test_proxies_are_addresses_or_networks():
    proxies = Proxies(parse_proxies("10.0.0.0/8, 127.0.0.1,::1"))
    assert "10.2.3.4" in proxies and "127.0.0.1" in proxies and "::1" in proxies
    assert "11.0.0.1" not in proxies and "testclient" not in proxies and None not in proxies
    assert "127.0.0.1" not in Proxies(())
    with pytest.raises(ValueError) as caught:
        parse_proxies("10.0.0.1,*")
    assert str(caught.value) == (
        "a trusted proxy must be an IP address or network like 10.0.0.0/8, got '*'"
    )


def test_settings_trust_no_proxy_by_default():
    assert Settings.from_env({}).forwarded_allow_ips == ()
    env = {"PLAYBENCH_FORWARDED_ALLOW_IPS": "10.0.0.1, 10.1.0.0/16"}
    assert Settings.from_env(env).forwarded_allow_ips == ("10.0.0.1", "10.1.0.0/16")
    with pytest.raises(ValueError, match=r"^PLAYBENCH_FORWARDED_ALLOW_IPS: a trusted proxy"):
        Settings.from_env({"PLAYBENCH_FORWARDED_ALLOW_IPS": "proxy.local"})


@pytest.mark.databases("sqlite", "postgresql")
def test_an_applied_command_is_stored_in_its_canonical_text(client):
    player = Player(client, "gem-swap", seed=7)
    assert player.act("  hint" + " " * 1000).status_code == 200
    player.act("\tHINT\t\t")
    cog = Player(client, "cogcrawl", seed=7)
    cog.act("  s ;  search   ")
    storage = client.app.state.services.storage
    assert [entry.command for entry in storage.log(player.last["sessionId"])] == ["hint"] * 2
    (search,) = storage.log(cog.last["sessionId"])
    assert search.command == "search; search"
