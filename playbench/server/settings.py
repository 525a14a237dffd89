"""Server settings: where data lives, which database, which sealing keys, which limits.

Every value has a default and an environment variable; ``playbench serve`` flags set the
environment variables so that every worker process reads the same settings.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from playbench.server.connections import parse_proxies
from playbench.server.guards import Rate

ENV_DATA = "PLAYBENCH_DATA"
ENV_DATABASE = "PLAYBENCH_DATABASE_URL"
ENV_SECRET = "PLAYBENCH_SECRET"
#: "RATE/BURST": requests a second and the burst allowed per client address, per session
ENV_RATE_PER_ADDRESS = "PLAYBENCH_RATE_PER_ADDRESS"
ENV_RATE_PER_SESSION = "PLAYBENCH_RATE_PER_SESSION"
#: "RATE/BURST" of player registrations per client address
ENV_RATE_REGISTER = "PLAYBENCH_RATE_REGISTER"
#: "RATE/BURST" of session ``new`` per client address, counted across every host
ENV_RATE_NEW_PER_ADDRESS = "PLAYBENCH_RATE_NEW_PER_ADDRESS"
#: "RATE/BURST" of bench results published (``POST /api/bench``) per address, per player
ENV_RATE_PUBLISH_PER_ADDRESS = "PLAYBENCH_RATE_PUBLISH_PER_ADDRESS"
ENV_RATE_PUBLISH_PER_PLAYER = "PLAYBENCH_RATE_PUBLISH_PER_PLAYER"
#: CPU seconds the re-simulation of one published bench result may take
ENV_BENCH_CPU_SECONDS = "PLAYBENCH_BENCH_CPU_SECONDS"
#: proxies trusted to name the client in X-Forwarded-For (comma-separated; none default)
ENV_FORWARDED_ALLOW_IPS = "PLAYBENCH_FORWARDED_ALLOW_IPS"
#: addresses that may read /metrics (comma-separated; default the loopback)
ENV_METRICS_ALLOW_IPS = "PLAYBENCH_METRICS_ALLOW_IPS"
#: MCP matches held at once in all, per client address, per client (an MCP session, or the
#: client a sessionless request declares at its address)
ENV_MCP_MATCHES = "PLAYBENCH_MCP_MATCHES"
ENV_MCP_MATCHES_PER_ADDRESS = "PLAYBENCH_MCP_MATCHES_PER_ADDRESS"
ENV_MCP_MATCHES_PER_CLIENT = "PLAYBENCH_MCP_MATCHES_PER_CLIENT"
#: hours an unfinished session is kept after its last command
ENV_PRUNE_AFTER_HOURS = "PLAYBENCH_PRUNE_AFTER_HOURS"
#: hours a ranked session may sit idle before it is closed as abandoned
ENV_ABANDON_AFTER_HOURS = "PLAYBENCH_ABANDON_AFTER_HOURS"
#: minutes between the server's prunes (0: the server never prunes by itself)
ENV_PRUNE_EVERY_MINUTES = "PLAYBENCH_PRUNE_EVERY_MINUTES"

DEFAULT_DATA_DIR = "data"
KEY_FILE = "secret.key"
DATABASE_FILE = "playbench.db"

KIB = 1024
MAX_BODY_BYTES = 256 * KIB
#: ``POST /api/bench``'s own limit: a suite-v2 result gzipped with every replay (the bot's
#: is 175 KiB; an agent that plays every game to its step cap writes a few MiB)
MAX_BENCH_BYTES = 16 * KIB * KIB
MAX_SEALED_STATE_CHARS = 128 * KIB
MAX_STATE_JSON_BYTES = 1024 * KIB
PUZZLE_TTL_SECONDS = 300.0
MAX_COMMANDS_PER_ACT = 100
MAX_REVIEW_CHARS = 2000
LEADERBOARD_DEFAULT = 10
LEADERBOARD_MAX = 100
#: far above an honest agent (one request per move) and a person at 12 ticks a second
RATE_PER_ADDRESS = Rate(per_second=200.0, burst=400.0)
RATE_PER_SESSION = Rate(per_second=100.0, burst=200.0)
#: names are cheap to ask for and every one is a seat on the board: ten an hour an address
RATE_REGISTER = Rate(per_second=10 / 3600, burst=10.0)
#: a new session needs no agent check and stores a game: one every 5 s per address, 30 at
#: once (about 3 MB an hour of Cogcrawl sessions per address; benchmarks/RESULTS.md)
RATE_NEW_PER_ADDRESS = Rate(per_second=0.2, burst=30.0)
#: a publish re-simulates a whole bench (up to a minute of CPU in its own process): ten
#: an hour per address, five per player
RATE_PUBLISH_PER_ADDRESS = Rate(per_second=10 / 3600, burst=10.0)
RATE_PUBLISH_PER_PLAYER = Rate(per_second=5 / 3600, burst=5.0)
#: the bot's suite-v2 result re-simulates in about 10 s of CPU (benchmarks/RESULTS.md)
BENCH_CPU_SECONDS = 60
METRICS_ALLOW_IPS = ("127.0.0.1", "::1")
PRUNE_AFTER_HOURS = 24.0 * 7
ABANDON_AFTER_HOURS = 1.0
PRUNE_EVERY_MINUTES = 60.0
MCP_MATCHES = 4096
MCP_MATCHES_PER_ADDRESS = 64
MCP_MATCHES_PER_CLIENT = 16


def parse_rate(text: str, name: str) -> Rate:
    """``"RATE/BURST"`` (``"0"`` or ``"0/0"``: no limit) as a :class:`Rate`."""
    rate, _, burst = text.partition("/")
    try:
        per_second = float(rate)
        allowed = float(burst) if burst else max(1.0, per_second * 2)
    except ValueError:
        raise ValueError(f"{name} must be RATE/BURST, like 200/400, got {text!r}") from None
    if per_second < 0 or (per_second > 0 and allowed < 1) or not math.isfinite(per_second):
        raise ValueError(f"{name}: the rate must be 0 or more and the burst at least 1")
    return Rate(per_second, allowed)


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None
    if value < 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be 0 or more, got {text!r}")
    return value


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole number of at least 1 (a cap), else a clear error naming ``name``."""
    text = env.get(name)
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {text!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {text!r}")
    return value


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the app needs to start; build one with :meth:`from_env` or by hand."""

    data_dir: Path = field(default_factory=lambda: Path(DEFAULT_DATA_DIR))
    database_url: str | None = None
    #: sealing keys, newest first (each 32 url-safe base64-encoded bytes)
    secrets: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    max_bench_bytes: int = MAX_BENCH_BYTES
    max_sealed_state_chars: int = MAX_SEALED_STATE_CHARS
    max_state_json_bytes: int = MAX_STATE_JSON_BYTES
    puzzle_ttl_seconds: float = PUZZLE_TTL_SECONDS
    rate_per_address: Rate = RATE_PER_ADDRESS
    rate_per_session: Rate = RATE_PER_SESSION
    rate_register: Rate = RATE_REGISTER
    rate_new_per_address: Rate = RATE_NEW_PER_ADDRESS
    rate_publish_per_address: Rate = RATE_PUBLISH_PER_ADDRESS
    rate_publish_per_player: Rate = RATE_PUBLISH_PER_PLAYER
    bench_cpu_seconds: int = BENCH_CPU_SECONDS
    forwarded_allow_ips: tuple[str, ...] = ()
    metrics_allow_ips: tuple[str, ...] = METRICS_ALLOW_IPS
    prune_after_hours: float = PRUNE_AFTER_HOURS
    abandon_after_hours: float = ABANDON_AFTER_HOURS
    prune_every_minutes: float = PRUNE_EVERY_MINUTES
    mcp_matches: int = MCP_MATCHES
    mcp_matches_per_address: int = MCP_MATCHES_PER_ADDRESS
    mcp_matches_per_client: int = MCP_MATCHES_PER_CLIENT

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        secrets = tuple(s.strip() for s in env.get(ENV_SECRET, "").split(",") if s.strip())
        return cls(
            data_dir=Path(env.get(ENV_DATA) or DEFAULT_DATA_DIR),
            database_url=env.get(ENV_DATABASE) or None,
            secrets=secrets,
            rate_per_address=parse_rate(
                env.get(ENV_RATE_PER_ADDRESS) or _rate_text(RATE_PER_ADDRESS), ENV_RATE_PER_ADDRESS
            ),
            rate_per_session=parse_rate(
                env.get(ENV_RATE_PER_SESSION) or _rate_text(RATE_PER_SESSION), ENV_RATE_PER_SESSION
            ),
            rate_register=(
                parse_rate(env[ENV_RATE_REGISTER], ENV_RATE_REGISTER)
                if env.get(ENV_RATE_REGISTER)
                else RATE_REGISTER
            ),
            rate_new_per_address=parse_rate(
                env.get(ENV_RATE_NEW_PER_ADDRESS) or _rate_text(RATE_NEW_PER_ADDRESS),
                ENV_RATE_NEW_PER_ADDRESS,
            ),
            rate_publish_per_address=_rate(
                env, ENV_RATE_PUBLISH_PER_ADDRESS, RATE_PUBLISH_PER_ADDRESS
            ),
            rate_publish_per_player=_rate(
                env, ENV_RATE_PUBLISH_PER_PLAYER, RATE_PUBLISH_PER_PLAYER
            ),
            bench_cpu_seconds=max(1, int(_number(env, ENV_BENCH_CPU_SECONDS, BENCH_CPU_SECONDS))),
            forwarded_allow_ips=_proxies(env, ENV_FORWARDED_ALLOW_IPS, ""),
            metrics_allow_ips=_proxies(env, ENV_METRICS_ALLOW_IPS, ",".join(METRICS_ALLOW_IPS)),
            prune_after_hours=_number(env, ENV_PRUNE_AFTER_HOURS, PRUNE_AFTER_HOURS),
            abandon_after_hours=_number(env, ENV_ABANDON_AFTER_HOURS, ABANDON_AFTER_HOURS),
            prune_every_minutes=_number(env, ENV_PRUNE_EVERY_MINUTES, PRUNE_EVERY_MINUTES),
            mcp_matches=_count(env, ENV_MCP_MATCHES, MCP_MATCHES),
            mcp_matches_per_address=_count(
                env, ENV_MCP_MATCHES_PER_ADDRESS, MCP_MATCHES_PER_ADDRESS
            ),
            mcp_matches_per_client=_count(env, ENV_MCP_MATCHES_PER_CLIENT, MCP_MATCHES_PER_CLIENT),
        )

    @property
    def url(self) -> str:
        """The SQLAlchemy URL: the one given, else SQLite in the data folder."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / DATABASE_FILE).resolve()}"


def _proxies(env: Mapping[str, str], name: str, default: str) -> tuple[str, ...]:
    text = env.get(name)
    try:
        return parse_proxies(default if text is None else text)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def _rate(env: Mapping[str, str], name: str, default: Rate) -> Rate:
    return parse_rate(env[name], name) if env.get(name) else default


def _rate_text(rate: Rate) -> str:
    return f"{rate.per_second:g}/{rate.burst:g}"
