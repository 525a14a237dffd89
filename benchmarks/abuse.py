"""The server probed as an adversary would, on loopback only, every loop bounded.

    python benchmarks/abuse.py [--tamper 10000] [--fuzz 20000] [--kills 3] [--quick]
        [--server uvicorn|granian|h11]

Starts ``playbench serve`` on 127.0.0.1 with a temporary data folder (rate limits off, so
the probes measure the rules and not the limiter) and reports:

- tampered sealed states accepted by ``/action``, of ``--tamper`` edited states (one
  character of a real sealed state replaced, removed or added);
- answers of 500 or more in a fuzz of ``--fuzz`` requests over every route (bodies of
  random JSON, wrong types, huge numbers, odd text; bad tokens and puzzle answers);
- disk bytes per refused request: the database file's growth (its write-ahead log folded
  in) over 2,000 refused commands of 1,023 bytes each, beside as many 3-byte ones;
- acknowledged acts lost when the server is killed with SIGKILL while 8 clients act
  (``--kills`` runs): every act answered 200 must be in the log after a restart;
- the p50 latency of one keep-alive connection with one worker and with two;
- idle connections still held after the keep-alive time (``--idle`` connections that
  send nothing, and as many that sent one request), and whether one connection past the
  cap is answered 503;
- best-of-N (issue 20): an attacker starts 16 ranked Gem Swap games under a registered
  name, plays each to the end with the bot and finishes only the best 5, beside an honest
  player who finishes all 16 with the same bot: the finishes accepted, each one's place in
  the players' table and its statistic, and the same attack played anonymously;
- name claim (issue 20): a client without the key starts and finishes games under a
  registered name (no key, ``--claims`` guessed keys, naming an anonymous ranked game at
  finish): how many were accepted.

``--only ranked`` runs the last two alone.

``--only stalls`` runs the stalls of ``benchmarks/abuse_stalls.py`` (an endless header
line, silent connections filling a worker's cap, slow readers, the answers after a 413,
an unwritable database, a report drawn), each beside another client's latency;
``--only report`` runs the last alone: another client's p99 while a report is drawn.

``--only shelf`` (issue 35): what bench uploads cost the server, publishing rates off: a
tar whose header names a 64 MiB file, the bot's suite-v2 result with a 300,000-action Gem
Swap replay (its suite caps the game at 200) and the same bytes again, a tar with no
``bench.json`` (is the data path shown?), the bot's result and the same again, another
client's latency while three results are published at once, and ``GET /api/bench``
beside a result of 19,900 files put in by hand. ``--only sybils``: ``--sybils`` names
(60) from one address, 5 ranked Gem Swap games each with the bot, beside an honest player
with 40 games of the same bot: where the best sybil and the honest player rank.

``--only evidence`` (issue 40): the random agent's published suite-v2 result forged as a
publisher might (every record at progress 1.0 and won; every record of a game pointing at
its best replay; each replay replaced by the best episode's; a one-game one-seed suite of
its own named suite-v2; ``bench.json`` refigured by the runner's own ``bench_figures``):
what publishing answers and the headline shown; a member whose pax header states 1 GiB
(``--size-scale`` divides it) over a ustar 0, and the same hidden in an old-type member
``junk/``: the answer, the server's CPU and peak RSS, the data folder after, and the first
``GET /api/bench`` after a restart; a ``bench.json`` nested 100,000 deep and one of 30 MB
(another client's latency meanwhile); a malformed ``runs.jsonl`` line sent twice; markup
as agent and model names, counted raw in the drawn report. ``--only human``: the quick
suite played as practice sessions and ``POST /api/bench/human`` sent six times with them,
on the default limits. ``--only pools``: the server's ``standings()`` over ``--pools``
resampled pools of an honest 40-game player and 60 sybils of 5 games (the bot's published
Gem Swap scores) beside 0, 200 and 2,000 names of six unplayed games.

Then (``--only hosting`` runs them alone) what one client address can take of a server
on its default limits, and whether another address is still served:

- MCP sessions: one address opening 100 sessions, and the server's RSS growth per
  session (400 sessions from many loopback addresses, each ``initialize`` padded near
  the MCP body limit);
- MCP sessions from many addresses, 1,100 tried: those opened, and the seconds from
  SIGTERM to the server's exit with them open;
- MCP matches: one address's 200 ``new_game`` calls over its sessions;
- connections: one address opening 300 idle connections;
- ``X-Forwarded-For`` rotated on every request: requests past the address rate limit and
  spectator streams past the cap of 8;
- two hosts on one database (two ``playbench serve`` on one SQLite file): requests from
  one address taking turns between them, against what the address rate allows once;
  one address's MCP sessions and matches made over both against its caps, and a match
  made on one host played on the other;
- session ``new`` at full speed from one address for 20 s: the sessions it got, the
  bytes each stores, and the disk one address can fill in an hour at that rate
  (``--quick``: a tenth of every count).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gzip
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from playbench.agents import make_agent
from playbench.agents.remote import RemoteTable, Session
from playbench.cli import DEFAULT_SERVER, SERVERS
from playbench.core import get_game
from playbench.runner.bench import bench_figures
from playbench.runner.publish import archive
from playbench.runner.suite import load_suite
from playbench.server.sealing import generate_key

HOST = "127.0.0.1"
STARTUP_SECONDS = 30.0
SLUGS = ("delvewick", "gem-swap", "chimestep", "cogcrawl")
ROUTES = (
    ("GET", "/api/games"),
    ("GET", "/api/games/{slug}/init"),
    ("POST", "/api/games/{slug}/init"),
    ("POST", "/api/games/{slug}/action"),
    ("POST", "/games/{slug}/api/new"),
    ("GET", "/games/{slug}/api/state"),
    ("POST", "/games/{slug}/api/act"),
    ("POST", "/games/{slug}/api/finish"),
    ("GET", "/api/leaderboard/{slug}"),
    ("GET", "/api/v1/agent-check"),
)
WEIRD_TEXT = ("", " ", "\x00", "\ud7ff", "é" * 300, "{", "[]", "null", "-0", "1e999", "🦔")


class Server:
    """``playbench serve`` in a subprocess on a free loopback port."""

    #: ``--server`` of every server started (``--server`` of this script)
    stack = DEFAULT_SERVER

    def __init__(
        self,
        data: Path,
        workers: int = 1,
        extra: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.data = data
        self.workers = workers
        self.extra = extra
        #: environment over the probes' defaults (the hosting probes restore the limits)
        self.env = env or {}
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> Server:
        env = {
            **os.environ,
            "PLAYBENCH_RATE_PER_ADDRESS": "0",
            "PLAYBENCH_RATE_PER_SESSION": "0",
            "PLAYBENCH_RATE_REGISTER": "0",
            "PLAYBENCH_RATE_NEW_PER_ADDRESS": "0",
            **self.env,
        }
        command = [
            sys.executable, "-m", "playbench.cli", "serve", "--host", HOST,
            "--port", str(self.port), "--data", str(self.data),
            "--workers", str(self.workers), "--log-level", "warning", "--no-access-log",
            "--server", self.stack, *self.extra,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/games", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        """SIGKILL the whole process group: the master and its workers."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process = None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def solve(puzzle: dict) -> int:
    a, rest = puzzle["question"].removeprefix("What is ").removesuffix("?").split(" + ")
    b, c = rest.split(" * ")
    return int(a) + int(b) * int(c)


def check_headers(view: dict, token: str) -> dict[str, str]:
    puzzle = view["agentCheck"]
    return {
        "Authorization": f"Bearer {token}",
        "X-Agent-Check": puzzle["token"],
        "X-Agent-Answer": str(solve(puzzle)),
    }


# -- tampered states ------------------------------------------------------------------------
def tampered_accepted(client: httpx.Client, count: int, rng: random.Random) -> int:
    accepted = 0
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=."
    states = {}
    for slug in SLUGS:
        init = client.get(f"/api/games/{slug}/init?seed=5").json()
        states[slug] = (init["state"], init["legalActions"][0])
    for index in range(count):
        slug = SLUGS[index % len(SLUGS)]
        sealed, action = states[slug]
        where = rng.randrange(len(sealed))
        kind = rng.randrange(3)
        if kind == 0:
            new = rng.choice(alphabet.replace(sealed[where], ""))
            edited = sealed[:where] + new + sealed[where + 1 :]
        elif kind == 1:
            edited = sealed[:where] + sealed[where + 1 :]
        else:
            edited = sealed[:where] + rng.choice(alphabet) + sealed[where:]
        reply = client.post(f"/api/games/{slug}/action", json={"state": edited, "action": action})
        accepted += reply.status_code == 200
    return accepted


# -- fuzz -------------------------------------------------------------------------------------
def random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice((True, False))
    if kind == 2:
        return rng.choice((0, -1, 1, 2**53, 2**64, -(2**70), 7))
    if kind == 3:
        return rng.choice((0.5, -1e308, 1e-300, 3.0))
    if kind in (4, 5):
        return rng.choice((*WEIRD_TEXT, "wait", "left", "swap C4 right", "tick 4", "move n"))
    if kind in (6, 7):
        keys = ("seed", "options", "player", "state", "action", "command", "commands",
                "rating", "review", "agent_check", "agent_answer", "level", "x")  # fmt: skip
        return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]


def fuzz_5xx(client: httpx.Client, count: int, rng: random.Random) -> tuple[int, dict[int, int]]:
    tokens = {}
    for slug in SLUGS:
        tokens[slug] = client.post(f"/games/{slug}/api/new", json={"seed": 3}).json()["token"]
    statuses: dict[int, int] = {}
    server_errors = 0
    for _ in range(count):
        method, template = rng.choice(ROUTES)
        slug = rng.choice((*SLUGS, "nope", "%00", "a" * 70))
        path = template.format(slug=slug)
        headers = {}
        if rng.random() < 0.6:
            token = tokens.get(slug, "x") if rng.random() < 0.7 else rng.choice(("x", "-", "%00"))
            headers["Authorization"] = f"Bearer {token}"
        if rng.random() < 0.4:
            headers["X-Agent-Check"] = rng.choice(("abc", "a.b.c.d", "x" * 90))
            headers["X-Agent-Answer"] = rng.choice(("5", "+5", "05", "5_0", "", "NaN"))
        params = {"seed": rng.choice(("1", "-1", "x", "9" * 30))} if rng.random() < 0.2 else None
        if method == "GET":
            reply = client.get(path, headers=headers, params=params)
        elif rng.random() < 0.1:
            raw = rng.choice((b"{", b"\xff\xfe", b"[" * 5000, b'{"a":' * 3000, b"null"))
            reply = client.post(
                path, content=raw, headers={**headers, "content-type": "application/json"}
            )
        else:
            reply = client.post(path, json=random_json(rng), headers=headers)
        statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
        server_errors += reply.status_code >= 500
    return server_errors, statuses


# -- disk per refused request -------------------------------------------------------------------
def database_bytes(data: Path) -> int:
    """The database file's size once its write-ahead log is folded in and emptied."""
    path = data / "playbench.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def disk_per_refusal(data: Path, client: httpx.Client, count: int) -> tuple[float, float]:
    """Bytes the database grows per refused request: long commands, then short ones."""
    figures = []
    for command in ("dig" + " x" * 510, "dig"):
        reply = client.post("/games/delvewick/api/new", json={"seed": 1}).json()
        token, view = reply["token"], reply
        client.post("/games/delvewick/api/act", json={"command": "wait"},
                    headers=check_headers(view, token))  # fmt: skip
        view = client.get(
            "/games/delvewick/api/state", headers={"Authorization": f"Bearer {token}"}
        ).json()
        before = database_bytes(data)
        for _ in range(count):
            view = client.post("/games/delvewick/api/act", json={"command": command},
                               headers=check_headers(view, token)).json()  # fmt: skip
        figures.append((database_bytes(data) - before) / count)
    return figures[0], figures[1]


def _act_until_stopped(url: str, seed: int, acked: dict[str, list[str]], stop) -> None:
    """Play Chimestep ticks, noting every act the server acknowledged, until stopped."""
    with httpx.Client(base_url=url, timeout=5) as client:
        try:
            reply = client.post("/games/chimestep/api/new", json={"seed": seed}).json()
        except httpx.HTTPError:
            return
        token, view = reply["token"], reply
        acked[token] = []
        while not stop.is_set():
            command = "start" if view["observation"]["status"] == "waiting" else "tick"
            try:
                answer = client.post(
                    "/games/chimestep/api/act",
                    json={"command": command},
                    headers=check_headers(view, token),
                )
            except httpx.HTTPError:
                return
            if answer.status_code != 200:
                return
            view = answer.json()
            acked[token].append(command)


# -- kill -9 --------------------------------------------------------------------------------------
def acts_lost(kills: int, seconds: float) -> tuple[int, int]:
    """Acknowledged acts missing after SIGKILL and restart, over ``kills`` runs."""
    lost = acknowledged = 0
    for _ in range(kills):
        data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
        server = Server(data).start()
        acked: dict[str, list[str]] = {}
        stop = threading.Event()

        threads = [
            threading.Thread(target=_act_until_stopped, args=(server.url, i, acked, stop))
            for i in range(8)
        ]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        server.kill()
        stop.set()
        for thread in threads:
            thread.join()
        server = Server(data).start()
        with httpx.Client(base_url=server.url, timeout=5) as client:
            for token, commands in acked.items():
                state = client.get("/games/chimestep/api/state",
                                   headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
                acknowledged += len(commands)
                lost += max(0, len(commands) - state["accepted"])
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    return lost, acknowledged


# -- latency of one connection ------------------------------------------------------------------
def one_connection_p50(workers: int, requests: int) -> float:
    data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
    server = Server(data, workers=workers).start()
    try:
        with httpx.Client(base_url=server.url) as client:
            init = client.get("/api/games/delvewick/init?seed=1").json()
            body = {"state": init["state"], "action": {"type": "wait"}}
            times = []
            for _ in range(requests):
                start = time.perf_counter()
                client.post("/api/games/delvewick/action", json=body)
                times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


# -- connections one client holds ----------------------------------------------------------
IDLE_SECONDS = 5


def _connections(port: int, count: int, request: bytes) -> list[socket.socket]:
    held = []
    for _ in range(count):
        sock = socket.create_connection((HOST, port), timeout=5)
        if request:
            sock.sendall(request)
            sock.recv(65536)
        held.append(sock)
    return held


def _still_open(sock: socket.socket) -> bool:
    """No end of stream among what the connection has received (answers read through)."""
    sock.setblocking(False)
    try:
        while sock.recv(65536):
            pass
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def idle_connections_held(count: int) -> tuple[int, int, str]:
    """Connections still open ``IDLE_SECONDS`` + 2 s after their last byte, of ``count``
    that never sent one and ``count`` that sent one request; and the status answered to
    one connection past a cap of ``2 * count``."""
    data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
    extra = ("--keep-alive", str(IDLE_SECONDS), "--max-connections", str(2 * count))
    server = Server(data, extra=extra).start()
    silent = _connections(server.port, count, b"")
    asked = _connections(server.port, count, b"GET /api/games HTTP/1.1\r\nHost: arena\r\n\r\n")
    try:
        with socket.create_connection((HOST, server.port), timeout=5) as past_cap:
            try:
                status = past_cap.recv(65536).split(b" ", 2)[1].decode()
            except TimeoutError:
                status = "no answer in 5 s, held open"
        time.sleep(IDLE_SECONDS + 2)
        return sum(map(_still_open, silent)), sum(map(_still_open, asked)), status
    finally:
        for sock in silent + asked:
            sock.close()
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


BEST_OF_GAMES = 16
BEST_OF_KEPT = 5


def register(client: httpx.Client, name: str) -> str:
    reply = client.post("/api/players", json={"name": name})
    reply.raise_for_status()
    return reply.json()["key"]


def ranked_game(http: httpx.Client, player: str | None, key: str | None, index: int):
    """A ranked Gem Swap game played to its end by the bot; its session and score."""
    game = get_game("gem-swap")
    session = Session.new(http, game.slug, None, None, player, key)
    table = RemoteTable(session, game)
    agent = make_agent("bot", game)
    agent.reset(index)
    while not table.over:
        agent.turn(table)
    return session, table.view()["score"]


def finish(http: httpx.Client, session: Session, key: str | None) -> int:
    """Finish ``session`` (answering its puzzle); the answer's status."""
    headers = {
        "Authorization": f"Bearer {session.token}",
        "X-Agent-Check": session.puzzle["token"],
        "X-Agent-Answer": str(solve(session.puzzle)),
    }
    if key:
        headers["X-Player-Key"] = key
    reply = http.post("/games/gem-swap/api/finish", json={"rating": 5}, headers=headers)
    return reply.status_code


def best_of_n(url: str) -> dict:
    """The attack: all 16 games started and played first (each new one is refused the
    privilege of staying open: the server closes the one before), then the best 5
    finished; the honest player finishes every game. Both use the bot."""
    with httpx.Client(base_url=url, timeout=30) as http:
        keys = {name: register(http, name) for name in ("honest", "attacker")}
        honest = []
        for index in range(BEST_OF_GAMES):
            session, score = ranked_game(http, "honest", keys["honest"], 100 + index)
            honest.append(score)
            assert finish(http, session, keys["honest"]) == 200
        played = [
            ranked_game(http, "attacker", keys["attacker"], index) for index in range(BEST_OF_GAMES)
        ]
        best = sorted(played, key=lambda pair: -pair[1])[:BEST_OF_KEPT]
        accepted = sum(finish(http, session, keys["attacker"]) == 200 for session, _ in best)
        anonymous = [ranked_game(http, None, None, 50 + index) for index in range(BEST_OF_GAMES)]
        best_anonymous = sorted(anonymous, key=lambda pair: -pair[1])[:BEST_OF_KEPT]
        anonymous_accepted = sum(
            finish(http, session, None) == 200 for session, _ in best_anonymous
        )
        board = http.get("/api/leaderboard/gem-swap?limit=100").json()
    table = {row["player"]: row for row in board["players"]}
    top = [entry["player"] for entry in board["entries"][:BEST_OF_KEPT]]
    return {
        "honest": honest,
        "attacker": [score for _, score in played],
        "best": [score for _, score in best],
        "accepted": accepted,
        "anonymous_best": [score for _, score in best_anonymous],
        "anonymous_accepted": anonymous_accepted,
        "table": table,
        "top": top,
    }


def name_claims(url: str, guesses: int, rng: random.Random) -> tuple[int, int]:
    """Games started or finished under a registered name without its key: (accepted,
    tried)."""
    tried = accepted = 0
    with httpx.Client(base_url=url, timeout=30) as http:
        register(http, "victim")
        attempts = [{}] + [
            {
                "X-Player-Key": "".join(
                    rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(43)
                )
            }
            for _ in range(guesses)
        ]
        for headers in attempts:
            for body in ({"player": "victim"}, {"player": "VICTIM"}, {"player": "ｖｉｃｔｉｍ"}):
                tried += 1
                accepted += (
                    http.post("/games/gem-swap/api/new", json=body, headers=headers).status_code
                    == 200
                )
        session, _ = ranked_game(http, None, None, 7)
        for headers in attempts:
            check = {
                "Authorization": f"Bearer {session.token}",
                "X-Agent-Check": session.puzzle["token"],
                "X-Agent-Answer": str(solve(session.puzzle)),
                **headers,
            }
            reply = http.post(
                "/games/gem-swap/api/finish", json={"rating": 9, "player": "victim"}, headers=check
            )
            session.puzzle = reply.json()["agentCheck"]
            tried += 1
            accepted += reply.status_code == 200
        assert finish(http, session, None) == 200  # the game itself finishes, anonymous
    return accepted, tried


def ranked_attacks(claims: int, rng: random.Random) -> None:
    data = Path(tempfile.mkdtemp(prefix="playbench-ranked-"))
    server = Server(data).start()
    try:
        found = best_of_n(server.url)
        accepted, tried = name_claims(server.url, claims, rng)
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    honest, attacker = found["table"]["honest"], found["table"]["attacker"]
    print(
        f"best-of-N: the attacker's {BEST_OF_GAMES} ranked games scored mean "
        f"{statistics.fmean(found['attacker']):.0f} (best 5: {found['best']}); "
        f"{found['accepted']} of {BEST_OF_KEPT} best-5 finishes accepted"
    )
    for name, row in (("honest", honest), ("attacker", attacker)):
        print(
            f"  players' table, {name}: rank {row['rank']}, {row['games']} games, mean "
            f"{row['mean']:.0f}, 95% interval {row['low']:.0f}-{row['high']:.0f}, "
            f"best {row['best']}"
        )
    print(
        f"  honest mean {statistics.fmean(found['honest']):.0f}; anonymous attack: "
        f"{found['anonymous_accepted']} of {BEST_OF_KEPT} best finishes accepted "
        f"({found['anonymous_best']}), best single games top {BEST_OF_KEPT}: {found['top']}, "
        f"in the players' table: {'no' if None not in found['table'] else 'yes'}"
    )
    print(f"name claim: {accepted} of {tried} games under another's name without its key accepted")


# -- hosting: what one address can take of a server on its default limits (issue 25) ---------
#: the server's own defaults, restored over the probes' "limits off"
DEFAULT_LIMITS = {
    "PLAYBENCH_RATE_PER_ADDRESS": "200/400",
    "PLAYBENCH_RATE_PER_SESSION": "100/200",
    "PLAYBENCH_RATE_NEW_PER_ADDRESS": "0.2/30",
}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}
MCP_VERSION = "2025-06-18"
OTHER = "127.0.0.2"


@contextlib.contextmanager
def _serving(env: dict[str, str]) -> Iterator[tuple[Server, Path]]:
    """A server on its default limits (and ``env``) over a temporary data folder."""
    data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
    server = Server(data, env=env).start()
    try:
        yield server, data
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def _initialize(padding: int = 0) -> dict:
    info = {"name": "probe", "version": "1", "title": "x" * padding}
    params = {"protocolVersion": MCP_VERSION, "capabilities": {}, "clientInfo": info}
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


def _client(source: str = HOST, **kwargs) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), **kwargs)


def _mcp_open(client: httpx.Client, url: str, padding: int = 0) -> str | None:
    """A new MCP session's id (None when refused)."""
    answer = client.post(f"{url}/mcp", json=_initialize(padding), headers=MCP_ACCEPT)
    if answer.status_code != 200:
        return None
    session = answer.headers["mcp-session-id"]
    headers = {**MCP_ACCEPT, "mcp-session-id": session, "mcp-protocol-version": MCP_VERSION}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    client.post(f"{url}/mcp", json=note, headers=headers)
    return session


def _mcp_call(client: httpx.Client, url: str, session: str, tool: str, **arguments) -> bool:
    """Whether a tool call in ``session`` succeeded."""
    headers = {**MCP_ACCEPT, "mcp-session-id": session, "mcp-protocol-version": MCP_VERSION}
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = client.post(f"{url}/mcp", json=body, headers=headers)
    return answer.status_code == 200 and '"isError":false' in answer.text.replace(" ", "")


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def mcp_sessions(tries: int, spread: int) -> tuple[int, int, float]:
    """Sessions one address opened of ``tries``; whether another address then opened
    one; and the server's RSS growth per session (KiB) over ``spread`` sessions from
    many addresses, each ``initialize`` padded near the MCP body limit."""
    with _serving(DEFAULT_LIMITS) as (server, _data):
        with _client(timeout=10) as client:
            mine = sum(_mcp_open(client, server.url) is not None for _ in range(tries))
        with _client(OTHER, timeout=10) as other:
            others = int(_mcp_open(other, server.url) is not None)
        assert server.process is not None
        before = _rss_kib(server.process.pid)
        opened = 0
        for n in range(spread):
            with _client(f"127.0.{1 + n // 250}.{2 + n % 250}", timeout=10) as client:
                opened += _mcp_open(client, server.url, padding=60_000) is not None
        grown = _rss_kib(server.process.pid) - before
        return mine, others, grown / max(1, opened)


def mcp_session_cap_and_stop(tries: int) -> tuple[int, float]:
    """MCP sessions opened of ``tries`` from many addresses (8 each, the most one may),
    and the seconds from SIGTERM to the server's exit with them all open."""
    data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
    server = Server(data, env=DEFAULT_LIMITS).start()
    try:
        opened = 0
        for n in range(tries):
            address = f"127.1.{(n // 8) // 250}.{2 + (n // 8) % 250}"
            with _client(address, timeout=10) as client:
                opened += _mcp_open(client, server.url) is not None
        assert server.process is not None
        start = time.monotonic()
        os.killpg(server.process.pid, signal.SIGTERM)
        server.process.wait()
        server.process = None
        return opened, time.monotonic() - start
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def mcp_matches(tries: int) -> tuple[int, int]:
    """Matches one address made over its sessions of ``tries`` ``new_game`` calls, and
    whether another address then made one."""
    with _serving(DEFAULT_LIMITS) as (server, _data):
        made = 0
        with _client(timeout=10) as client:
            sessions = [s for s in (_mcp_open(client, server.url) for _ in range(8)) if s]
            for n in range(tries):
                session = sessions[n % len(sessions)]
                made += _mcp_call(client, server.url, session, "new_game", game="cogcrawl")
        with _client(OTHER, timeout=10) as other:
            session = _mcp_open(other, server.url)
            served = int(
                bool(session) and _mcp_call(other, server.url, session, "new_game", game="cogcrawl")
            )
        return made, served


def connection_flood(count: int) -> tuple[int, int, str]:
    """Of ``count`` idle connections from one address: those held, those answered 503;
    and what another address is answered meanwhile."""
    with _serving(DEFAULT_LIMITS) as (server, _data):
        flood = _connections(server.port, count, b"")
        try:
            refused = 0
            for sock in flood:
                sock.settimeout(0.2)
                with contextlib.suppress(TimeoutError):
                    refused += sock.recv(65536).startswith(b"HTTP/1.1 503")
            with _client(OTHER, timeout=5) as other:
                answer = other.get(f"{server.url}/healthz").status_code
            return count - refused, refused, str(answer)
        finally:
            for sock in flood:
                sock.close()


def forwarded_rotation(requests: int, streams: int) -> tuple[int, int]:
    """With ``X-Forwarded-For`` rotated on every request: of ``requests`` (rate limit
    10/20 per address), those answered 200; of ``streams`` spectator streams, those
    opened (the cap is 8 per address)."""
    with _serving({**DEFAULT_LIMITS, "PLAYBENCH_RATE_PER_ADDRESS": "10/20"}) as (server, _data):
        with httpx.Client(base_url=server.url, timeout=10) as client:
            passed = sum(
                client.get(
                    "/api/games", headers={"X-Forwarded-For": f"10.9.{n // 250}.{n % 250}"}
                ).status_code
                == 200
                for n in range(requests)
            )
        time.sleep(2.5)  # the address's bucket refills
        with httpx.Client(base_url=server.url, timeout=10) as client:
            session = client.post("/games/gem-swap/api/new", json={"seed": 1}).json()["sessionId"]
        opened = []
        for n in range(streams):
            stream = httpx.Client(base_url=server.url, timeout=10)
            response = stream.send(
                stream.build_request(
                    "GET",
                    f"/api/spectate/sessions/{session}/stream",
                    headers={"X-Forwarded-For": f"10.8.0.{n}"},
                ),
                stream=True,
            )
            opened.append((stream, response))
        held = sum(response.status_code == 200 for _, response in opened)
        for stream, response in opened:
            response.close()
            stream.close()
        return passed, held


def new_session_disk(seconds: float, sample: int) -> tuple[int, int, float, float]:
    """Session ``new`` from one address at full speed for ``seconds`` on the default
    rate: sessions made and refused; bytes one stored Cogcrawl session takes (over
    ``sample`` sessions with the limit off); and the megabytes an hour one address can
    add at the default rate."""
    with _serving(DEFAULT_LIMITS) as (server, _data):
        made = refused = 0
        with httpx.Client(base_url=server.url, timeout=10) as client:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                status = client.post("/games/cogcrawl/api/new", json={}).status_code
                made += status == 200
                refused += status == 429
    # limits off: the bytes a session takes
    with _serving({}) as (server, data), httpx.Client(base_url=server.url, timeout=10) as client:
        client.post("/games/cogcrawl/api/new", json={})
        before = database_bytes(data)
        for _ in range(sample):
            client.post("/games/cogcrawl/api/new", json={})
        each = (database_bytes(data) - before) / sample
    rate = float(DEFAULT_LIMITS["PLAYBENCH_RATE_NEW_PER_ADDRESS"].split("/")[0])
    return made, refused, each, rate * 3600 * each / 1e6


TWO_HOSTS_RATE = "10/20"


@contextlib.contextmanager
def _two_hosts(env: dict[str, str]) -> Iterator[list[str]]:
    """Two servers on one SQLite database (a data folder each, the same database file and
    sealing key), on the default limits and ``env``: their URLs."""
    folders = [Path(tempfile.mkdtemp(prefix="playbench-abuse-")) for _ in range(2)]
    shared = {
        **DEFAULT_LIMITS,
        **env,
        "PLAYBENCH_DATABASE_URL": f"sqlite:///{folders[0] / 'playbench.db'}",
        "PLAYBENCH_SECRET": generate_key(),
    }
    servers: list[Server] = []
    try:
        servers.extend(Server(folder, env=shared).start() for folder in folders)
        yield [server.url for server in servers]
    finally:
        for server in servers:
            server.stop()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def two_hosts_rate(requests: int) -> tuple[int, float, float]:
    """Of ``requests`` from one address taking turns between two hosts on one database
    at ``TWO_HOSTS_RATE`` an address: those answered 200, the seconds they took, and the
    most the rate allows in that time."""
    with _two_hosts({"PLAYBENCH_RATE_PER_ADDRESS": TWO_HOSTS_RATE}) as urls:
        time.sleep(2.5)  # the tokens the start-up looks took flow back
        with _client(timeout=10) as client:
            start = time.monotonic()
            passed = sum(
                client.get(f"{urls[n % 2]}/api/games").status_code == 200 for n in range(requests)
            )
            took = time.monotonic() - start
    rate, _, burst = TWO_HOSTS_RATE.partition("/")
    return passed, took, float(burst) + float(rate) * took


def two_hosts_mcp(tries: int) -> tuple[int, int, int, bool]:
    """One address's MCP sessions opened on two hosts on one database, 6 tried on each
    (cap 8 an address): those opened and tried; ``tries`` ``new_game`` over them (cap 64
    an address): the matches made; and whether a match made on one host is played on
    the other."""
    with _two_hosts({}) as urls, _client(timeout=10) as client:
        opened = [(url, _mcp_open(client, url)) for url in urls * 6]
        sessions = [(url, session) for url, session in opened if session]
        made = sum(
            _mcp_call(client, url, session, "new_game", game="cogcrawl")
            for url, session in (sessions[n % len(sessions)] for n in range(tries))
        )
        with _client(OTHER, timeout=10) as other:
            here, there = (_mcp_open(other, url) for url in urls)
            match_id = _mcp_match(other, urls[0], here, game="chimestep")
            played = _mcp_call(other, urls[1], there, "act", match_id=match_id, command="start")
    return len(sessions), len(opened), made, played


def _mcp_match(client: httpx.Client, url: str, session: str | None, **arguments) -> str:
    """The matchId of a new match made by ``new_game`` in ``session``."""
    headers = {**MCP_ACCEPT, "mcp-session-id": session or "", "mcp-protocol-version": MCP_VERSION}
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "new_game", "arguments": arguments},
    }
    answer = client.post(f"{url}/mcp", json=body, headers=headers)
    found = re.search(r'matchId\\?":\s*\\?"([0-9a-f]{32})', answer.text)
    if found is None:
        raise RuntimeError(f"new_game made no match: {answer.text[:200]}")
    return found.group(1)


def hosting(scale: int) -> None:
    mine, others, rss = mcp_sessions(100 // scale, 400 // scale)
    print(
        f"MCP sessions: one address opened {mine} of {100 // scale} (cap 8 an address, "
        f"1,024 in all); another address opened {others} of 1 after it; RSS growth "
        f"{rss:.0f} KiB a session (initialize padded to 60 KB, many addresses)"
    )
    opened, stop = mcp_session_cap_and_stop(1100 // scale)
    print(
        f"MCP sessions from many addresses: {opened} of {1100 // scale} opened (1,024 in "
        f"all); SIGTERM to exit with them open: {stop:.2f} s"
    )
    made, served = mcp_matches(200 // scale)
    print(
        f"MCP matches: one address made {made} of {200 // scale} new_game calls over 8 "
        f"sessions (cap 64 an address, 4,096 in all); another address made {served} of 1"
    )
    held, refused, status = connection_flood(300 // scale)
    print(
        f"connections: one address opened {300 // scale} idle: {held} held (cap 100 an "
        f"address, 1,000 a worker), {refused} answered 503; another address answered {status}"
    )
    passed, streams = forwarded_rotation(400 // scale, 20)
    print(
        f"X-Forwarded-For rotated: {passed} of {400 // scale} requests answered 200 "
        f"(rate 10/20 an address), {streams} of 20 streams opened (cap 8)"
    )
    passed, took, allowed = two_hosts_rate(400 // scale)
    print(
        f"two hosts on one database, one address taking turns: {passed} of {400 // scale} "
        f"requests answered 200 in {took:.1f} s (rate {TWO_HOSTS_RATE} an address allows "
        f"{allowed:.0f} in that time)"
    )
    opened, tried, made, played = two_hosts_mcp(200 // scale)
    print(
        f"two hosts on one database, MCP: one address opened {opened} of {tried} sessions "
        f"over both (cap 8 an address) and made {made} matches of {200 // scale} new_game "
        f"(cap 64 an address); a match made on one host played on the other: {played}"
    )
    made, refused, each, hourly = new_session_disk(20.0, 300 // scale)
    print(
        f"session new at full speed for 20 s from one address: {made} made, {refused} "
        f"refused (rate 0.2/30); a Cogcrawl session stores {each:,.0f} bytes; at 0.2 a "
        f"second one address adds {hourly:.1f} MB an hour (plus the burst of 30 once)"
    )


# -- the bench shelf and sybils (issue 35) ---------------------------------------------------
BASELINE = Path(__file__).parents[1] / "docs" / "bench" / "bot"
#: the publishing rates off, as every other rate, so that the probes measure the shelf
SHELF_ENV = {"PLAYBENCH_RATE_PUBLISH_PER_ADDRESS": "0", "PLAYBENCH_RATE_PUBLISH_PER_PLAYER": "0"}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _session_procs(pid: int) -> list[str]:
    """The /proc entries of every process in the server's session (master, workers and
    whatever they started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == pid:
                found.append(entry)
    return found


def server_cpu(server: Server) -> float:
    """CPU seconds of the server's processes so far (children they waited for included)."""
    total = 0
    for entry in _session_procs(server.process.pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(value) for value in fields[11:15])
    return total / CLOCK_TICKS


def server_peak_mb(server: Server) -> float:
    """The largest peak resident size of the server's processes, in MB."""
    peaks = [0]
    for entry in _session_procs(server.process.pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]))
    return max(peaks) / 1024


def _tar(*members: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _bench_archive(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=str(path.relative_to(folder)))
    return buffer.getvalue()


def _long_replay(steps: int) -> bytes:
    """The bot's suite-v2 result with its first Gem Swap replay stretched to ``steps``
    actions (its last action repeated; the suite caps the game at 200)."""
    folder = Path(tempfile.mkdtemp(prefix="playbench-long-")) / "bot"
    shutil.copytree(BASELINE, folder)
    replay = folder / "gem-swap" / "replays" / "gem-swap-0.jsonl"
    lines = replay.read_text().splitlines()
    actions = lines[1:-1]
    stretched = [lines[0], *actions, *[actions[-1]] * (steps - len(actions)), lines[-1]]
    replay.write_text("\n".join(stretched) + "\n")
    body = _bench_archive(folder)
    shutil.rmtree(folder.parent, ignore_errors=True)
    return body


def _publish(client: httpx.Client, key: str, body: bytes) -> tuple[int, str, float, float]:
    started = time.perf_counter()
    answer = client.post(
        "/api/bench", params={"player": "shelf probe"}, content=body,
        headers={"X-Player-Key": key, "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    return answer.status_code, answer.text, len(answer.content), time.perf_counter() - started


def _costed(server: Server, client: httpx.Client, key: str, body: bytes) -> str:
    cpu, peak = server_cpu(server), server_peak_mb(server)
    status, text, size, seconds = _publish(client, key, body)
    shown = text[:90].replace(str(server.data), "<DATA>")
    return (
        f"HTTP {status} in {seconds:.2f} s, server CPU {server_cpu(server) - cpu:.2f} s, "
        f"peak RSS {peak:.0f} -> {server_peak_mb(server):.0f} MB; {len(body):,} B up, "
        f"{size:,} B back, data path shown: {str(server.data) in text}; {shown!r}"
    )


def _latencies(url: str, stop: threading.Event, found: list[float]) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get("/api/games")
            found.append(time.perf_counter() - started)


def shelf_probes(scale: int) -> None:
    """What a bench upload and the bench listing cost the server (rates off)."""
    with _serving(SHELF_ENV) as (server, data):
        _shelf_run(server, data, scale)


def _shelf_run(server: Server, data: Path, scale: int) -> None:
    name_bytes = (64 << 20) // scale
    steps = 300_000 // scale
    with httpx.Client(base_url=server.url, timeout=600) as client:
        key = register(client, "shelf probe")
        body = _tar(("a" * name_bytes, b"x"))
        print(f"shelf: a tar whose header names a file of {name_bytes >> 20} MiB: "
              + _costed(server, client, key, body))  # fmt: skip
        body = _long_replay(steps)
        print(f"shelf: suite-v2 with a {steps:,}-action Gem Swap replay (cap 200): "
              + _costed(server, client, key, body))  # fmt: skip
        print(f"shelf: the same archive again: {_costed(server, client, key, body)}")
        body = _tar(("notes.txt", b"no bench here"))
        print(f"shelf: a tar with no bench.json: {_costed(server, client, key, body)}")
        baseline = _bench_archive(BASELINE)
        print(f"shelf: the bot's suite-v2 result: {_costed(server, client, key, baseline)}")
        print(f"shelf: the same result again: {_costed(server, client, key, baseline)}")
        stop, quiet, loaded = threading.Event(), [], []
        probe = threading.Thread(target=_latencies, args=(server.url, stop, quiet))
        probe.start()
        time.sleep(3)
        stop.set()
        probe.join()
        stop = threading.Event()
        probe = threading.Thread(target=_latencies, args=(server.url, stop, loaded))
        probe.start()
        others = [_bench_archive_with(BASELINE, f"extra-{n}.txt") for n in range(3)]
        uploads = [threading.Thread(target=_publish, args=(client, key, other)) for other in others]
        for upload in uploads:
            upload.start()
        for upload in uploads:
            upload.join()
        stop.set()
        probe.join()
        print(
            "shelf: another client's GET /api/games p50/p99 "
            f"{_ms(quiet, 50)}/{_ms(quiet, 99)} ms alone, {_ms(loaded, 50)}/{_ms(loaded, 99)}"
            " ms while three new suite-v2 results are published at once"
        )
        many = data / "bench" / "many-files"
        shutil.copytree(BASELINE, many)
        extra = many / "gem-swap" / "extra"
        extra.mkdir()
        for number in range(19_900 // scale):
            (extra / f"{number}.txt").write_text("x")
        started = time.perf_counter()
        client.get("/api/bench").raise_for_status()
        first = time.perf_counter() - started
        times = []
        for _ in range(20):
            started = time.perf_counter()
            client.get("/api/bench").raise_for_status()
            times.append(time.perf_counter() - started)
        print(
            f"shelf: GET /api/bench beside a result of {19_900 // scale:,} files put in by "
            f"hand: {first * 1000:.0f} ms the first time, median "
            f"{statistics.median(times) * 1000:.1f} ms of the next 20"
        )


def _bench_archive_with(folder: Path, name: str) -> bytes:
    """The result with one more small file in a game folder (other bytes, same result)."""
    copy = Path(tempfile.mkdtemp(prefix="playbench-copy-")) / "bot"
    shutil.copytree(folder, copy)
    (copy / "gem-swap" / name).write_text(name)
    body = _bench_archive(copy)
    shutil.rmtree(copy.parent, ignore_errors=True)
    return body


def _ms(values: list[float], percent: int) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, len(ordered) * percent // 100)] * 1000:.1f}"


def sybils(count: int, games: int, honest_games: int) -> None:
    """``count`` names from one address, ``games`` ranked Gem Swap games each with the
    bot, beside an honest player's ``honest_games`` games of the same bot: where the best
    sybil and the honest player rank."""
    with _serving({}) as (server, _data), httpx.Client(base_url=server.url, timeout=60) as http:
        honest_key = register(http, "honest player")
        for index in range(honest_games):
            session, _ = ranked_game(http, "honest player", honest_key, 1000 + index)
            assert finish(http, session, honest_key) == 200
        for number in range(count):
            name = f"sybil {number:02d}"
            key = register(http, name)
            for index in range(games):
                session, _ = ranked_game(http, name, key, number * games + index)
                assert finish(http, session, key) == 200
        board = http.get("/api/leaderboard/gem-swap?limit=100").json()
    rows = {row["player"]: row for row in board["players"]}
    honest = rows["honest player"]
    best = min(
        (row for name, row in rows.items() if name.startswith("sybil")),
        key=lambda row: row["rank"] or 10**9,
    )
    for who, row in (("honest", honest), ("best sybil", best)):
        print(
            f"sybils: {who} ({row['player']}): rank {row['rank']} of {len(rows)}, "
            f"{row['games']} games, mean {row['mean']:.0f}, own 95% interval "
            f"{row['low']:.0f}-{row['high']:.0f}, ranked by {row.get('bound', row['low']):.0f}"
        )


# -- the bench shelf as evidence (issue 40) --------------------------------------------------
#: the random agent's published suite-v2 result, the forgeries' starting point
RANDOM_V1 = Path(__file__).parents[1] / "docs" / "bench" / "random"
#: the bot's Gem Swap scores of the published results (the sybil pools resample them)
BOT_RUNS = (
    Path(__file__).parents[1] / "docs" / "bench" / "bot" / "gem-swap",
    Path(__file__).parents[1] / "docs" / "bench" / "models-v1" / "bot" / "gem-swap",
)
MIB = 1 << 20
MARKUP_AGENT = "<script>alert('agent')</script>"
MARKUP_MODEL = '<img src=x onerror="alert(1)">'


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "runs.jsonl").read_text().splitlines()]


def _rewrite(run: Path, change) -> None:
    rows = [change(row) for row in _records(run)]
    (run / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def _forged(edit) -> bytes:
    """The random agent's suite-v2 result edited by ``edit`` (each game's run folder) and
    refigured with the runner's own ``bench_figures``, packed as ``playbench bench
    --publish`` packs it."""
    folder = Path(tempfile.mkdtemp(prefix="playbench-forged-")) / "random"
    shutil.copytree(RANDOM_V1, folder)
    for run in sorted(path.parent for path in folder.glob("*/run.json")):
        edit(run)
    (folder / "bench.json").write_text(json.dumps(bench_figures(folder), indent=2))
    body = archive(folder)
    shutil.rmtree(folder.parent, ignore_errors=True)
    return body


def _progress_won(run: Path) -> None:
    _rewrite(run, lambda row: {**row, "progress": 1.0, "outcome": "won"})


def _best_for_all(run: Path) -> None:
    top = max(_records(run), key=lambda row: row["score"])
    _rewrite(run, lambda row: {**top, "seed": row["seed"]})


def _best_on_every_seed(run: Path) -> None:
    top = max(_records(run), key=lambda row: row["score"])
    for row in _records(run):
        if row["seed"] != top["seed"]:
            shutil.copyfile(run / top["replay"], run / row["replay"])
    _rewrite(run, lambda row: {**top, "seed": row["seed"], "replay": row["replay"]})


def _own_suite(name: str) -> bytes:
    """The bot's one-game, one-seed suite of its own, named ``name``."""
    root = Path(tempfile.mkdtemp(prefix="playbench-own-"))
    suite = {
        "name": name,
        "description": "one game, one seed",
        "games": {"delvewick": {"seeds": "0", "options": {}, "maxSteps": 5000, "harness": {}}},
    }
    (root / f"{name}.json").write_text(json.dumps(suite))
    command = [
        sys.executable, "-m", "playbench.cli", "bench", "--agent", "bot", "--suite",
        str(root / f"{name}.json"), "--workers", "1", "--out", str(root / "own"),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)
    body = archive(root / "own")
    shutil.rmtree(root, ignore_errors=True)
    return body


def _shown(client: httpx.Client, key: str, body: bytes) -> str:
    """What publishing ``body`` answers, and the headline shown for it if it is kept."""
    status, text, _, seconds = _publish(client, key, body)
    if status != 201:
        return f"HTTP {status} in {seconds:.1f} s: {json.loads(text).get('error', text)[:150]!r}"
    answer = json.loads(text)
    where = "apart, unofficial" if answer.get("official") is False else answer["suite"]["name"]
    return (
        f"HTTP 201 in {seconds:.1f} s, listed under {where} with headline "
        f"{answer['headline']['meanProgress']:.3f}"
    )


def _result_tar(folder: Path) -> bytes:
    """The plain tar of a result's files, its end blocks cut off (more members follow)."""
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(folder).as_posix())
    head = inner.getvalue().rstrip(b"\0")
    return head + bytes(-len(head) % 512)


def _with_member(blocks: bytes, data_bytes: int) -> bytes:
    """The random agent's suite-v2 result with raw header ``blocks`` and ``data_bytes``
    zeros after them, gzipped (zeros pack small: 1 GiB is about a megabyte)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as packed:
        packed.write(_result_tar(RANDOM_V1) + blocks)
        chunk = bytes(MIB)
        for _ in range(data_bytes // MIB):
            packed.write(chunk)
        packed.write(bytes(1024))
    return buffer.getvalue()


def _pax_sized(name: str, size: int) -> bytes:
    """A member whose ustar header says 0 bytes and whose pax header says ``size``."""
    info = tarfile.TarInfo(name)
    info.size = 0
    info.pax_headers = {"size": str(size)}
    return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")


def _old_folder_hiding(hidden: bytes) -> bytes:
    """``junk/`` of the old file type, its data ``hidden``: :mod:`tarfile` reads it as a
    folder, and ``hidden`` as the headers that follow."""
    info = tarfile.TarInfo("junk/")
    info.type = tarfile.AREGTYPE
    info.size = len(hidden)
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape") + hidden


def _tree_mb(root: Path) -> float:
    found = 0
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                found += path.stat().st_size
    return found / MIB


def _result_with(edit) -> bytes:
    """The random agent's suite-v2 result with ``edit`` applied to its folder (no
    refiguring), packed."""
    folder = Path(tempfile.mkdtemp(prefix="playbench-edited-")) / "random"
    shutil.copytree(RANDOM_V1, folder)
    edit(folder)
    body = _bench_archive(folder)
    shutil.rmtree(folder.parent, ignore_errors=True)
    return body


def _report_markup(server: Server, client: httpx.Client, key: str) -> str:
    """A result whose agent and model are markup, published; once its report is drawn,
    the raw tags in it."""

    def markup(run: Path) -> None:
        config = json.loads((run / "run.json").read_text())
        config.update(agent=MARKUP_AGENT, model=MARKUP_MODEL)
        (run / "run.json").write_text(json.dumps(config))

    status, text, _, _ = _publish(client, key, _forged(markup))
    if status != 201:
        return f"HTTP {status}: {text[:120]!r}"
    result = json.loads(text)["id"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        rows = [row for row in client.get("/api/bench").json()["results"] if row["id"] == result]
        if rows and rows[0]["reportStatus"] != "drawing":
            break
        time.sleep(1)
    page = client.get(f"/bench/{result}/report/").text
    markdown = client.get(f"/bench/{result}/report/report.md").text
    return (
        f"HTTP 201; the drawn report holds {page.count('<script>alert')} raw <script> and "
        f"{page.count('<img src=x')} raw <img> in its HTML, {markdown.count('<script>')} raw "
        f"<script> and {markdown.count('<img src=x')} raw <img> in its Markdown"
    )


def _played(http: httpx.Client, slug: str, seed: int, options: dict, name: str, key: str) -> str:
    """A practice session of the episode under ``name``, played with random legal commands
    to its end and finished; its id."""
    session = Session.new(http, slug, seed, options or None, name, key)
    session_id = session.answer["sessionId"]
    draw = random.Random(f"{slug}-{seed}")
    for _ in range(400):
        if session.answer["gameOver"]:
            break
        session.act([draw.choice(session.answer["commands"]) for _ in range(100)])
    session.finish(6, "played by the probe")
    return session_id


def human_repeats(times: int) -> None:
    """The quick suite played through as practice sessions by one registered name and
    ``POST /api/bench/human`` sent ``times`` times with the same sessions, on the
    server's default limits: each answer, the server's CPU for it, the verdicts kept."""
    with _serving({}) as (server, data), httpx.Client(base_url=server.url, timeout=600) as http:
        name = "human probe"
        key = register(http, name)
        suite = load_suite("quick")
        sessions = [
            _played(http, entry.game, seed, entry.options_of(seed), name, key)
            for entry in suite.games
            for seed in entry.seeds
        ]
        body = {"suite": "quick", "player": name, "sessions": sessions}
        answers = []
        for _ in range(times):
            cpu = server_cpu(server)
            reply = http.post("/api/bench/human", json=body, headers={"X-Player-Key": key})
            answers.append(f"{reply.status_code} ({server_cpu(server) - cpu:.2f} s CPU)")
        kept = {
            folder: len(list((data / "bench" / folder).glob("*.json")))
            for folder in (".verdicts", ".archives")
        }
        print(
            f"evidence: POST /api/bench/human {times} times with one set of sessions: "
            f"{', '.join(answers)}; {kept['.verdicts']} verdict(s) on contents and "
            f"{kept['.archives']} on archives kept"
        )


def evidence_probes(scale: int, size_scale: int) -> None:
    """The shelf's evidence attacks (rates off): forged figures, replays that serve
    another slot, a suite of one's own under a shipped name, sizes in pax and old-type
    headers (the server's CPU, peak RSS and data folder after each), a deep and a huge
    ``bench.json``, a malformed record sent twice, and markup in a result's names."""
    size = (1 << 30) // size_scale
    with (
        _serving(SHELF_ENV) as (server, data),
        httpx.Client(base_url=server.url, timeout=900) as client,
    ):
        key = register(client, "shelf probe")
        for label, body in (
            ("every record edited to progress 1.0, won", _forged(_progress_won)),
            ("every record pointing at its game's best replay", _forged(_best_for_all)),
            ("each replay replaced by its game's best episode", _forged(_best_on_every_seed)),
            ("a one-game one-seed suite of its own named suite-v2", _own_suite("suite-v2")),
            ("the same suite under a name of its own", _own_suite("my-suite")),
        ):
            print(f"evidence: {label}: {_shown(client, key, body)}")
        for label, blocks in (
            ("a pax header stating", _pax_sized("gem-swap/junk.bin", size)),
            (
                "an old-type member 'junk/' hiding a pax header stating",
                _old_folder_hiding(_pax_sized("gem-swap/junk.bin", size)),
            ),
        ):
            body = _with_member(blocks, size)
            costed = _costed(server, client, key, body)
            print(
                f"evidence: {label} {size >> 20} MiB: {costed[:150]}; data folder "
                f"{_tree_mb(data):.1f} MB after"
            )
        server.stop()
        server.start()
        cpu, started = server_cpu(server), time.perf_counter()
        client.get("/api/bench").raise_for_status()
        print(
            f"evidence: GET /api/bench first after a restart: "
            f"{time.perf_counter() - started:.2f} s, "
            f"server CPU {server_cpu(server) - cpu:.2f} s, "
            f"peak RSS {server_peak_mb(server):.0f} MB"
        )
        _file_attacks(server, client, key, scale)


def file_probes(scale: int) -> None:
    """The malformed-file attacks of :func:`evidence_probes` alone."""
    with (
        _serving(SHELF_ENV) as (server, _data),
        httpx.Client(base_url=server.url, timeout=900) as client,
    ):
        _file_attacks(server, client, register(client, "shelf probe"), scale)


def _file_attacks(server: Server, client: httpx.Client, key: str, scale: int) -> None:
    """A deep and a huge ``bench.json``, a malformed record sent twice, markup names."""

    def deep(folder: Path) -> None:
        (folder / "bench.json").write_text("[" * 100_000 + "]" * 100_000)

    def huge(folder: Path) -> None:
        pad = "x" * (30_000_000 // scale)
        (folder / "bench.json").write_text(json.dumps({"bench": 1, "pad": pad}))

    costed = _costed(server, client, key, _result_with(deep))
    print(f"evidence: bench.json nested 100,000 deep: {costed[:170]}")
    stop, quiet, loaded = threading.Event(), [], []
    probe = threading.Thread(target=_latencies, args=(server.url, stop, quiet))
    probe.start()
    time.sleep(3)
    stop.set()
    probe.join()
    stop = threading.Event()
    probe = threading.Thread(target=_latencies, args=(server.url, stop, loaded))
    probe.start()
    costed = _costed(server, client, key, _result_with(huge))
    stop.set()
    probe.join()
    print(
        f"evidence: a {30 // scale} MB bench.json: {costed[:170]}; another client's "
        f"GET /api/games p50/p99 {_ms(quiet, 50)}/{_ms(quiet, 99)} ms alone, "
        f"{_ms(loaded, 50)}/{_ms(loaded, 99)} ms meanwhile (max {_ms(loaded, 100)} ms)"
    )

    def malformed(folder: Path) -> None:
        rows = _records(folder / "gem-swap")
        rows[0]["seed"] = "zero"
        del rows[1]["progress"]
        text = "".join(json.dumps(row) + "\n" for row in rows)
        (folder / "gem-swap" / "runs.jsonl").write_text(text)

    def text_seed(folder: Path) -> None:
        replay = folder / "gem-swap" / "replays" / "gem-swap-0.jsonl"
        lines = replay.read_text().splitlines()
        header = {**json.loads(lines[0]), "seed": "zero"}
        replay.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")

    for label, edit in (
        ("runs.jsonl with a seed of text and a record without progress", malformed),
        ("a replay header whose seed is text", text_seed),
    ):
        body = _result_with(edit)
        for attempt in ("first", "second"):
            costed = _costed(server, client, key, body)
            print(f"evidence: {label}, {attempt} time: {costed[:170]}")
    print(f"evidence: markup as agent and model names: {_report_markup(server, client, key)}")


def sybil_pools(idle_names: int, pools: int, sybils: int = 60) -> tuple[int, list[int]]:
    """The server's own ``standings()`` over ``pools`` resampled pools: an honest player
    of 40 ranked Gem Swap games and ``sybils`` names of 5, every score drawn from the
    bot's published Gem Swap scores, beside ``idle_names`` names that opened 6 ranked
    games each and never played (abandoned at 0). In how many pools a sybil is first,
    and the honest player's rank in each."""
    from playbench.server import standings
    from playbench.server.store import PlayerGames

    scores = [row["score"] for run in BOT_RUNS for row in _records(run)]
    has_finished = "finished" in {item.name for item in dataclasses.fields(PlayerGames)}

    def player(name: str, played: list[int], finished: int) -> PlayerGames:
        mean = statistics.fmean(played)
        variance = statistics.variance(played) if len(played) > 1 else 0.0
        fields = [name, len(played), mean, variance, max(played), 0.0]
        return PlayerGames(*fields, finished) if has_finished else PlayerGames(*fields)

    first, ranks = 0, []
    for pool in range(pools):
        rng = random.Random(pool)
        table = [player("honest", rng.choices(scores, k=40), 40)]
        table += [player(f"sybil {n}", rng.choices(scores, k=5), 5) for n in range(sybils)]
        table += [player(f"idle {n}", [0] * 6, 0) for n in range(idle_names)]
        rows = standings.standings(table)
        first += rows[0]["player"].startswith("sybil")
        ranks.append(next(row["rank"] for row in rows if row["player"] == "honest"))
    return first, ranks


def sybil_figures(pools: int) -> None:
    for idle in (0, 200, 2000):
        first, ranks = sybil_pools(idle, pools)
        print(
            f"evidence: sybil pools ({pools} resampled; honest 40 games, 60 sybils of 5, "
            f"{idle} names of 6 unplayed games): a sybil first in {first} of {pools}; the "
            f"honest player's median rank {statistics.median(ranks):.0f}, worst {max(ranks)}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tamper", type=int, default=10_000)
    parser.add_argument("--fuzz", type=int, default=20_000)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--refusals", type=int, default=2_000)
    parser.add_argument("--idle", type=int, default=450, help="idle connections of each kind")
    parser.add_argument("--quick", action="store_true", help="a tenth of every count")
    parser.add_argument("--server", choices=SERVERS, default=DEFAULT_SERVER, help="the stack")
    parser.add_argument("--claims", type=int, default=200, help="guessed keys tried")
    parser.add_argument(
        "--only",
        choices=(
            "ranked",
            "hosting",
            "shelf",
            "sybils",
            "evidence",
            "files",
            "human",
            "pools",
            "stalls",
            "report",
        ),
        help="run only these probes",
    )
    parser.add_argument(
        "--size-scale", type=int, default=1, help="divide the 1 GiB size claims (--only evidence)"
    )
    parser.add_argument("--pools", type=int, default=200, help="resampled pools (--only pools)")
    parser.add_argument("--sybils", type=int, default=60, help="sybil names (--only sybils)")
    args = parser.parse_args()
    Server.stack = args.server
    scale = 10 if args.quick else 1
    if args.only == "hosting":
        hosting(scale)
        return 0
    if args.only == "shelf":
        shelf_probes(scale)
        return 0
    if args.only == "sybils":
        sybils(args.sybils, 5, 40)
        return 0
    if args.only == "evidence":
        evidence_probes(scale, args.size_scale)
        return 0
    if args.only == "files":
        file_probes(scale)
        return 0
    if args.only == "human":
        human_repeats(6)
        return 0
    if args.only == "pools":
        sybil_figures(args.pools)
        return 0
    if args.only == "stalls":
        from abuse_stalls import stalls

        stalls()
        return 0
    if args.only == "report":
        from abuse_stalls import report_probe

        report_probe()
        return 0
    rng = random.Random(20261130)
    get_game("delvewick")
    if args.only == "ranked":
        ranked_attacks(args.claims // scale, rng)
        return 0
    data = Path(tempfile.mkdtemp(prefix="playbench-abuse-"))
    server = Server(data).start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            tampered = tampered_accepted(client, args.tamper // scale, rng)
            print(f"tampered states accepted: {tampered} of {args.tamper // scale}")
            errors, statuses = fuzz_5xx(client, args.fuzz // scale, rng)
            shown = ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items()))
            print(f"fuzz: {errors} answers of 5xx in {args.fuzz // scale} requests ({shown})")
            long, short = disk_per_refusal(data, client, args.refusals // scale)
            print(
                f"disk per refused request: {long:.0f} bytes for a 1,023-byte command, "
                f"{short:.0f} bytes for a 3-byte one"
            )
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    lost, acked = acts_lost(args.kills, 3.0)
    print(f"kill -9: {lost} of {acked} acknowledged acts lost over {args.kills} runs")
    one, two = one_connection_p50(1, 2000 // scale), one_connection_p50(2, 2000 // scale)
    print(f"one keep-alive connection p50: {one:.2f} ms with 1 worker, {two:.2f} ms with 2")
    silent, asked, status = idle_connections_held(args.idle // scale)
    print(
        f"idle connections held {IDLE_SECONDS + 2} s later (keep-alive {IDLE_SECONDS} s): "
        f"{silent} of {args.idle // scale} silent, {asked} of {args.idle // scale} after a "
        f"request; one past the cap of {2 * (args.idle // scale)}: {status}"
    )
    ranked_attacks(args.claims // scale, rng)
    hosting(scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
