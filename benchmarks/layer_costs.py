"""What the arena's outer layers cost a request, timed in process.

    python benchmarks/layer_costs.py [--requests 20000] [--rounds 5] [--record]

Drives each layer of the arena's front (:class:`playbench.server.metrics.Operations`, the
metrics and probes; :class:`playbench.server.guards.RateLimit` over the shared buckets of
:mod:`playbench.server.quota`, on a SQLite database in a temporary folder, WAL and
``synchronous=FULL`` as the server runs it) around a bare ASGI app that answers a fixed
body, in one event loop, one request after another. The reference is the bare app alone,
timed in the same rounds; each row gives the microseconds a request spends in the layer
(its time less the reference's) and the ratio of its time to the reference's. Rounds
alternate the variants; the median round is shown.

The rate-limit rows: one address (a lease of 20 tokens asked of the database every 20th
request, the default burst of 400), and every request from a new address (one lease
asked of the database each time: the worst case, a flood of fresh addresses).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import Engine

from playbench.server.connections import Proxies
from playbench.server.guards import Rate, RateLimit
from playbench.server.metrics import Operations, SessionsCollector
from playbench.server.quota import SharedBuckets, limits_engine

RESULTS = Path(__file__).with_name("RESULTS.md")
BODY = b'{"ok":true}'
#: a rate no run reaches, with the default burst: only the leases cost
OPEN_RATE = Rate(per_second=1e9, burst=400)
#: requests of the rows that ask the database every time, per round
FRESH_SHARE = 10

App = Callable[[dict[str, Any], Any, Any], Any]


async def bare(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


def scope_of(address: str) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": "/api/games/delvewick/action",
        "headers": [(b"content-type", b"application/json")],
        "client": (address, 50000),
    }


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"{}", "more_body": False}


async def send(message: dict[str, Any]) -> None:
    return None


async def timed(app: App, requests: int, fresh: bool) -> float:
    """Microseconds a request, ``requests`` in a row (each from a new address if ``fresh``)."""
    scopes = [scope_of(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}") for n in range(requests)]
    same = scope_of("10.0.0.1")
    start = time.perf_counter()
    for index in range(requests):
        await app(dict(scopes[index] if fresh else same), receive, send)
    return (time.perf_counter() - start) / requests * 1e6


def variants(limits: Engine) -> dict[str, tuple[Callable[[], App], bool]]:
    """Each variant: what makes its app for a round, and whether each request comes from
    a new address."""
    operations = Operations(
        bare,
        ready=lambda: None,
        sessions=SessionsCollector(lambda: {}),
        allowed=Proxies(("127.0.0.1",)),
    )
    rounds = [0]

    def limited() -> App:
        rounds[0] += 1  # a kind of its own each time: no round finds another's buckets
        buckets = SharedBuckets(limits, f"bench{rounds[0]}", OPEN_RATE)
        return RateLimit(bare, per_address=buckets, per_session=None)

    return {
        "bare app (the reference)": (lambda: bare, False),
        "metrics layer (Operations)": (lambda: operations, False),
        "rate limits, one address": (limited, False),
        "rate limits, a new address each request": (limited, True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--record", action="store_true", help=f"append to {RESULTS.name}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        limits = limits_engine(f"sqlite:///{Path(folder) / 'playbench.db'}")
        try:
            found = anyio.run(measure, limits, args.requests, args.rounds)
        finally:
            limits.dispose()
    reference = found["bare app (the reference)"]
    lines = [
        f"{args.requests:,} requests a round ({args.requests // FRESH_SHARE:,} from new "
        f"addresses), median of {args.rounds} alternating rounds, in process:",
        "  variant                                   us/request  layer us  ratio to bare",
    ]
    for name, micros in found.items():
        lines.append(
            f"  {name:<41} {micros:>10.2f} {micros - reference:>9.2f} {micros / reference:>14.2f}"
        )
    print("\n".join(lines))
    if args.record:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        command = "python benchmarks/layer_costs.py " + " ".join(sys.argv[1:])
        with RESULTS.open("a") as handle:
            handle.write(
                f"\n## The front layers' cost a request\n\n`{command.strip()}` ({stamp}, "
                f"{os.cpu_count()} cores, Python {sys.version.split()[0]})\n\n```\n"
                + "\n".join(lines)
                + "\n```\n"
            )
    return 0


async def measure(limits: Engine, requests: int, rounds: int) -> dict[str, float]:
    table = variants(limits)
    times: dict[str, list[float]] = {name: [] for name in table}
    for _round in range(rounds):
        for name, (make, fresh) in table.items():
            count = requests // FRESH_SHARE if fresh else requests
            times[name].append(await timed(make(), count, fresh))
    return {name: statistics.median(found) for name, found in times.items()}


if __name__ == "__main__":
    raise SystemExit(main())
