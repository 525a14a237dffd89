"""Connection guards for the uvicorn stacks: what one client may hold open, and for how long.

uvicorn times out a keep-alive connection only after it has answered a request on it, and
never a request whose headers or body trickle in. The guarded protocols add, per
connection, on top of uvicorn's own httptools and h11 protocols:

- **idle**: a connection that sends nothing for ``idle_seconds``, before its first request
  or between requests, is closed (uvicorn's keep-alive timer, armed at connect as well);
- **slow requests**: a request's headers and body must all arrive within
  ``request_seconds`` of its first byte; else it is answered 408 and the connection closed
  (an app already waiting for that body sees the client disconnect);
- **bounded heads**: a request line, a header line, the whole head and the number of
  headers are bounded as the bytes arrive (:mod:`playbench.server.heads`): past a bound
  the request is answered 414 or 431 and the connection closed, before the parser (which
  joins the pieces of a long line over and over) sees the bytes;
- **slow readers**: an answer the client does not read (the socket's send buffer full)
  for ``idle_seconds`` is given up and the connection dropped;
- **caps that share**: a worker holds at most ``max_connections`` connections, at most
  ``per_address`` from one client address, and at most ``per_group`` from one address
  group (an IPv4 /24 or an IPv6 /64, :func:`address_group`: one party's many addresses,
  as a host's IPv6 prefix or a rented block gives them, count together; never fewer than
  ``per_address``), far below ``max_connections``, so that no one group can fill the
  worker. When a new connection finds the worker (or its own group) full, the connection
  that does the least for anyone makes room: an idle one (no request under way) or a
  stalled reader, of the group and then the address holding the most connections (of
  its own group, when that is the full one), the longest idle first; so connections
  held silent by a few parties never lock out a new client. Only when every such
  connection has a request under way is the new one answered 503 with ``Retry-After``
  and closed at once, as is one more from an address at its own cap. The proxies the
  arena trusts (``trusted``, see :class:`Proxies`) are not capped per address or group:
  each one carries many clients, and the proxy is the place to cap them;
- **no Nagle delay**: every TCP connection gets ``TCP_NODELAY``. asyncio sets it only on
  sockets it created itself, so a listening socket shared with worker processes
  (``--workers 2``) otherwise left each answer waiting up to 40 ms for the client's ACK;
- **one write an answer**: uvicorn writes an answer's head and its body as they come
  (two system calls, two TCP segments); the writes of one turn of the event loop are
  joined into one (about 12% less CPU a request on the action route, measured with wrk).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import socket
from collections import Counter
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from playbench.server.heads import HEAD_BYTES, HeadScan, Refusal
from playbench.server.middleware import SECURITY_HEADERS

#: the prefix lengths of an address group: IPv4 /24, IPv6 /64 (one subnet's hosts)
GROUP_PREFIX_V4 = 24
GROUP_PREFIX_V6 = 64


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """Per worker: seconds a connection may stay silent, seconds a request may take to
    arrive whole, connections held at once, held at once from one client address and
    from one address group (``trusted`` proxies excepted)."""

    idle_seconds: float
    request_seconds: float
    max_connections: int
    per_address: int = 100
    trusted: tuple[str, ...] = ()
    per_group: int = 200

    @property
    def group_cap(self) -> int:
        """What one address group may hold: ``per_group``, never fewer than one address
        may (a cluster told to hold more per address is not cut short by its group)."""
        return max(self.per_group, self.per_address)


@functools.lru_cache(maxsize=4096)
def address_group(host: str) -> str:
    """The group an address is counted in: its IPv4 /24 or IPv6 /64 network, as text
    (an IPv4-mapped IPv6 address as its IPv4 one); a host that is no IP address is a
    group of its own."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = GROUP_PREFIX_V4 if address.version == 4 else GROUP_PREFIX_V6
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


class Proxies:
    """The proxies trusted to say who the client is (``X-Forwarded-For``): addresses and
    networks, as ``--forwarded-allow-ips`` names them (none by default)."""

    def __init__(self, entries: tuple[str, ...] | list[str]) -> None:
        self.entries = tuple(entries)
        self.networks = tuple(parse_network(entry) for entry in self.entries)

    def __contains__(self, host: object) -> bool:
        if not self.networks or not isinstance(host, str):
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def parse_network(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """An address or a network (``10.0.0.0/8``); a clear one-line error otherwise."""
    try:
        return ipaddress.ip_network(entry.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"a trusted proxy must be an IP address or network like 10.0.0.0/8, got {entry!r}"
        ) from None


def parse_proxies(text: str) -> tuple[str, ...]:
    """A comma-separated list of proxies (each checked), as a tuple; empty: none."""
    entries = tuple(part.strip() for part in text.split(",") if part.strip())
    for entry in entries:
        parse_network(entry)
    return entries


def _answer(status: str, error: str, *extra: tuple[bytes, bytes]) -> bytes:
    body = json.dumps({"error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        (b"connection", b"close"),
        *extra,
        *SECURITY_HEADERS,
    ]
    head = b"".join(b"%s: %s\r\n" % header for header in headers)
    return b"HTTP/1.1 " + status.encode() + b"\r\n" + head + b"\r\n" + body


class Holders:
    """The connections of one worker (shared by its protocols): how many each client
    address and each address group holds, and the idle ones, in the order they fell
    idle."""

    def __init__(self) -> None:
        self.peers: Counter[str] = Counter()
        self.groups: Counter[str] = Counter()
        self.idle: dict[_Guarded, None] = {}
        #: connections whose answer the client has stopped reading
        self.stalled: dict[_Guarded, None] = {}

    def spare(self, group: str | None = None) -> _Guarded | None:
        """The connection to close to make room (of ``group`` only, when named): a
        stalled reader or an idle connection, of the group and then the address holding
        the most connections, the one idle longest first."""
        best: _Guarded | None = None
        most = (-1, -1)
        for holder in (*self.stalled, *self.idle):
            if group is not None and holder._group != group:
                continue
            held = (
                (self.groups[holder._group], self.peers[holder._peer])
                if holder._peer is not None and holder._group is not None
                else (0, 0)
            )
            if held > most:
                best, most = holder, held
        return best


class _Guarded:
    """The guards, over a uvicorn HTTP protocol (mixed in before it)."""

    limits: ConnectionLimits
    # set by uvicorn's protocol
    loop: asyncio.AbstractEventLoop
    connections: set[Any]
    cycle: Any
    transport: asyncio.Transport
    timeout_keep_alive: float
    timeout_keep_alive_task: asyncio.TimerHandle | None

    def __init__(
        self,
        *args: Any,
        limits: ConnectionLimits,
        holders: Holders | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        #: this worker's connections (shared by its protocols)
        self._holders = Holders() if holders is None else holders
        self._peers = self._holders.peers
        #: the address and the address group this connection is counted under (None: not
        #: counted)
        self._peer: str | None = None
        self._group: str | None = None
        #: the head of the request under way, checked against its bounds as it arrives
        self._head = HeadScan()
        self._stall_timer: asyncio.TimerHandle | None = None
        #: the loop time by which the request under way must have arrived whole
        self._request_deadline: float | None = None
        self._request_timer: asyncio.TimerHandle | None = None
        self._timed_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        transport = CoalescedWrites(transport, self.loop)  # type: ignore[assignment]
        super().connection_made(transport)  # type: ignore[misc]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        counted = host is not None and host not in _proxies(self.limits.trusted)
        group = address_group(host) if counted else None
        if counted and self._peers[host] >= self.limits.per_address:
            transport.write(self._busy_address())
            transport.close()
            return
        groups = self._holders.groups
        if group is not None and groups[group] >= self.limits.group_cap:
            if not self._make_room(group):
                transport.write(self._busy_group(group))
                transport.close()
                return
        elif len(self.connections) > self.limits.max_connections and not self._make_room():
            transport.write(self._busy())
            transport.close()
            return
        if counted:
            self._peers[host] += 1
            self._peer = host
            groups[group] += 1  # type: ignore[index]
            self._group = group
        self._holders.idle[self] = None
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive,
            self.timeout_keep_alive_handler,  # type: ignore[attr-defined]
        )

    def _make_room(self, group: str | None = None) -> bool:
        """Close the connection :meth:`Holders.spare` names; False when none may go."""
        spare = self._holders.spare(group)
        if spare is None:
            return False
        spare._drop()
        return True

    def _drop(self) -> None:
        """Close this connection now, unsent answer and all (it was idle or stalled)."""
        self._holders.idle.pop(self, None)
        self._holders.stalled.pop(self, None)
        self.transport.abort()

    def data_received(self, data: bytes) -> None:
        self._holders.idle.pop(self, None)
        if self._head.heading:
            refusal = self._head.feed(data)
            if refusal is not None:
                self._refuse_head(refusal)
                return
        if self._request_deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._timed_cycle = self.cycle
            self._request_deadline = deadline = self.loop.time() + self.limits.request_seconds
            if self._request_timer is None:
                self._request_timer = self.loop.call_at(deadline, self._request_due)
        super().data_received(data)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        self._request_deadline = None
        self._timed_cycle = None
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing() and not getattr(self, "pipeline", None):
            self._holders.idle[self] = None

    def pause_writing(self) -> None:
        """The client stopped reading: give it ``idle_seconds`` to read on, and let a
        new connection take its place meanwhile."""
        super().pause_writing()  # type: ignore[misc]
        self._holders.stalled[self] = None
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self.limits.idle_seconds, self._drop)

    def resume_writing(self) -> None:
        self._holders.stalled.pop(self, None)
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        super().resume_writing()  # type: ignore[misc]

    def _refuse_head(self, refusal: Refusal) -> None:
        self.transport.write(_answer(refusal.status, refusal.error))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._leave_holders()
        self._release_peer()
        self._stop_request_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def handle_websocket_upgrade(self, *args: Any) -> None:
        """The request became a WebSocket: the connection is the WebSocket protocol's
        from here (this protocol sees no more data and no end of it), so its request
        timer stops, else it would write a 408 into the WebSocket's frames, it leaves the
        idle and stalled connections, and its place in the address's count is given back
        (the app bounds its own sessions)."""
        self._leave_holders()
        self._stop_request_timer()
        self._release_peer()
        super().handle_websocket_upgrade(*args)  # type: ignore[misc]

    def _leave_holders(self) -> None:
        """No longer one of the idle or stalled connections that may make room."""
        self._holders.idle.pop(self, None)
        self._holders.stalled.pop(self, None)
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _stop_request_timer(self) -> None:
        self._request_deadline = None
        self._timed_cycle = None
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _release_peer(self) -> None:
        """Give back this connection's place in its address's and its group's counts."""
        if self._peer is not None:
            _give_back(self._peers, self._peer)
            self._peer = None
        if self._group is not None:
            _give_back(self._holders.groups, self._group)
            self._group = None

    def _request_due(self) -> None:
        """The request timer rang. It is armed once and left running across requests (a
        timer set and cancelled per request cost more than the rest of the guards): a
        request that began after it was armed has a later deadline, so it is armed anew
        for that one; with no request under way it simply stops."""
        self._request_timer = None
        deadline = self._request_deadline
        if deadline is None:
            return
        if self.loop.time() < deadline:
            self._request_timer = self.loop.call_at(deadline, self._request_due)
            return
        self._request_deadline = None
        self._request_too_slow()

    def _request_too_slow(self) -> None:
        """Still waiting for the headers, or for a body the app has not had whole: 408."""
        cycle = self.cycle
        headers_pending = cycle is self._timed_cycle
        body_pending = not headers_pending and cycle.more_body and not cycle.response_started
        if (headers_pending or body_pending) and not self.transport.is_closing():
            seconds = self.limits.request_seconds
            error = f"the request did not arrive whole within {seconds:g} s"
            self.transport.write(_answer("408 Request Timeout", error))
            self.transport.close()

    def _busy(self) -> bytes:
        error = (
            f"the server holds its limit of {self.limits.max_connections} connections: "
            "retry in a moment"
        )
        return _answer("503 Service Unavailable", error, (b"retry-after", b"1"))

    def _busy_group(self, group: str) -> bytes:
        error = (
            f"the addresses of {group} hold the limit of {self.limits.group_cap} "
            "connections to this worker: close one or retry in a moment"
        )
        return _answer("503 Service Unavailable", error, (b"retry-after", b"1"))

    def _busy_address(self) -> bytes:
        error = (
            f"this address holds the limit of {self.limits.per_address} connections "
            "to this worker: close one or retry in a moment"
        )
        return _answer("503 Service Unavailable", error, (b"retry-after", b"1"))


def _give_back(counts: Counter[str], key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]


class CoalescedWrites:
    """A transport whose writes within one turn of the event loop go out as one write at
    the end of that turn (or at ``close``); everything else is the wrapped transport's."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self.is_closing = transport.is_closing  # asked on every answer: no lookup detour

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(data)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)


class GuardedHttpTools(_Guarded, HttpToolsProtocol):
    """uvicorn's httptools protocol with the connection guards."""

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._head.restart()  # what follows is the next request's head


class GuardedH11(_Guarded, H11Protocol):
    """uvicorn's h11 protocol with the connection guards (h11 reads the next request only
    once the answer is complete, and bounds a head by itself too: ``h11_max_incomplete_
    event_size``, set to :data:`HEAD_BYTES`)."""

    def on_response_complete(self) -> None:
        self._head.restart()
        super().on_response_complete()


#: uvicorn's bound on an h11 head (its default is 16 KiB)
H11_HEAD_BYTES = HEAD_BYTES


GUARDED = {"httptools": GuardedHttpTools, "h11": GuardedH11}


@functools.cache
def _proxies(trusted: tuple[str, ...]) -> Proxies:
    return Proxies(trusted)


def guarded_protocol(http: str, limits: ConnectionLimits) -> Any:
    """The protocol factory uvicorn takes as ``http=`` for the parser named ``http``; its
    protocols share one :class:`Holders` (each worker has its own copy)."""
    return functools.partial(GUARDED[http], limits=limits, holders=Holders())
