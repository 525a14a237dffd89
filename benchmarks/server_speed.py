"""Server speed: the arena's routes beside a bare ASGI endpoint on three server stacks.

    python benchmarks/server_speed.py [--seconds 5] [--rounds 1] [--connections 64] [--record]
    python benchmarks/server_speed.py --parts [--seconds 5] [--record]

Needs ``wrk`` (Debian/Ubuntu: ``apt-get install -y wrk``). Everything runs on 127.0.0.1,
every load run is bounded by ``--seconds``, and each server is stopped after its runs.

What one run measures, side by side:

1. The reference: a bare ASGI app (defined here, no framework) answering the very bytes
   that the Delvewick action route answers, on each stack at its defaults (uvicorn with
   h11, uvicorn with httptools and uvloop, granian) and on the default stack as
   ``playbench serve`` runs it (its connection guards and one-write answers, see 5). The
   fastest is the reference.
2. ``POST /api/games/delvewick/action`` with a mid-level state (level 4, a few moves in),
   served by ``playbench serve --server STACK`` with one worker on each stack, as a ratio
   of the reference's requests/s (target 0.5, floor 0.3).
3. The same route and ratio for gem-swap, chimestep and cogcrawl (a Cogcrawl state 200
   delver turns in, five levels deep), on the default stack.
4. Delvewick's action route with ``--workers 2`` on uvicorn and granian: its p99 latency
   (target under 10 ms, on the default stack).
5. Side by side, in alternating rounds with every server up at once: the bare app on the
   default stack as ``playbench serve`` runs it (its connection guards and settings) and
   on granian, the action fast path alone (the game's work, no framework or layers) and
   the whole arena. The Delvewick ratio is taken round by round against the faster bare
   app of the round; its median is the figure the floor is judged on. From the same
   rounds, where the route's CPU goes; beside it, ``step_sealed`` timed in process (a
   warm loop, and with caches churned), and the bare app's p99 with two workers (the
   scheduling floor under the 2-worker target).
6. Session ``act`` at 64 connections on SQLite (WAL, ``synchronous=FULL``): acts per
   second and p99. Each act answers the agent-check puzzle of an earlier answer. After
   the run the server is killed (SIGKILL) and the database is read: every act that wrk
   saw acknowledged (200) must be in a session's log.

Each row gives requests/s, p50 and p99 latency (ms) and the server's CPU time per request
(all its processes, from ``/proc``: a figure that the machine's other load moves little).

``--parts`` runs none of that, only this: each part of the Delvewick route's work (the
state opened, sealed, played; all of ``step_sealed``; and a plain busy loop to compare)
done inside the bare app on the default stack as ``playbench serve`` runs it, every
server up at once and loaded in alternating rounds: the server CPU each part adds to a
request, beside its cost in process (a warm loop, and with caches churned).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playbench.cli import (
    BACKLOG,
    DEFAULT_SERVER,
    KEEP_ALIVE_SECONDS,
    MAX_CONNECTIONS,
    REQUEST_SECONDS,
)

HOST = "127.0.0.1"
STACKS = ("h11", "uvicorn", "granian")
STACK_NAMES = {
    "h11": "uvicorn + h11",
    "uvicorn": "uvicorn + httptools + uvloop",
    "granian": "granian",
}
SEED = 7
DELVEWICK_LEVEL = 4
MOVES_IN = 12
COGCRAWL_TURNS = 200
ACT_SESSIONS = 256
ACT_COMMAND = "wait"
ACT_GAME = "delvewick"
RATIO_TARGET, RATIO_FLOOR = 0.5, 0.3
P99_TARGET_MS = 10.0
STARTUP_SECONDS = 30.0
#: alternating rounds of the cost rows (see :func:`cost_rows`)
COST_ROUNDS = 5
#: the in-process step timing: calls a repeat, and the data written between two calls to
#: leave the caches cold (four times the 1 MiB L2 of the machine this was measured on)
STEP_CALLS = 2000
EVICT_BYTES = 4 << 20
CACHE_LINE = 64
WRK_THREADS = 1
WRK_TIMEOUT_SECONDS = 10
ENV_BARE_FILE = "PLAYBENCH_BENCH_BARE_FILE"
ENV_REQUEST_FILE = "PLAYBENCH_BENCH_REQUEST_FILE"
#: the parts of the Delvewick route's work that ``--parts`` serves one by one (see
#: :func:`part_work`), and the length of its busy loop
PARTS = ("busy", "open", "seal", "play", "step")
BUSY_SECONDS = 60e-6
HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"

POST_LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = io.open("{path}", "rb")
wrk.body = file:read("*a")
file:close()
"""

#: session act: each request acts on the next session that holds an unanswered puzzle
#: (puzzles are bound to their session; an answer carries its session's next one)
ACT_LUA = """local sessions = {{}}
local puzzles = {{}}
for line in io.lines("{sessions}") do
  local id, token, check, answer = line:match("(%S+) (%S+) (%S+) (%S+)")
  sessions[#sessions + 1] = {{id = id, token = token}}
  puzzles[id] = check .. " " .. answer
end
local turn = 0
local body = '{{"command":"{command}"}}'
request = function()
  local session, puzzle
  for _ = 1, #sessions do
    turn = turn % #sessions + 1
    session = sessions[turn]
    puzzle = puzzles[session.id]
    if puzzle then break end
  end
  puzzles[session.id] = nil
  local check, answer = (puzzle or "none 0"):match("(%S+) (%S+)")
  return wrk.format("POST", "/games/{slug}/api/act", {{
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. session.token,
    ["X-Agent-Check"] = check,
    ["X-Agent-Answer"] = answer,
  }}, body)
end
response = function(status, headers, body)
  local id = body:match('"sessionId":"([^"]+)"')
  local check, a, b, c = body:match(
    '"agentCheck":{{"token":"([^"]+)","question":"What is (%d+) %+ (%d+) %* (%d+)%?"')
  if id and check then puzzles[id] = check .. " " .. (a + b * c) end
end
"""


# -- the reference: a bare ASGI app ------------------------------------------------------
def _bare_body() -> bytes:
    path = os.environ.get(ENV_BARE_FILE)
    return Path(path).read_bytes() if path else b"{}"


BARE_BODY = _bare_body()
BARE_HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BARE_BODY)).encode()),
]


async def bare_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Reads the request body and answers fixed bytes: a server stack's own cost."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": BARE_HEADERS})
    await send({"type": "http.response.body", "body": BARE_BODY})


def fast_path_app() -> Any:
    """The action route's fast path alone (no framework, no arena layers) in front of
    :func:`bare_app`: the game's work on the request (open, play, seal, answer) and the
    fast path's reading and writing, with the sealing key from the environment."""
    from playbench.server.routes.games import ActionFastPath
    from playbench.server.settings import Settings

    settings = Settings.from_env()
    return ActionFastPath(bare_app, sealer=sealer_of(settings), limit=settings.max_body_bytes)


def sealer_of(settings: Any) -> Any:
    """The sealer of the keys in ``settings`` (the benchmark passes its key in the
    environment, so no key file is read or written)."""
    from playbench.server.sealing import Sealer

    return Sealer(settings.secrets, settings.max_sealed_state_chars, settings.max_state_json_bytes)


def part_work(name: str, env: Any) -> Any:
    """One part of the Delvewick route's work on the benchmark's request, as a call:
    ``busy`` (a :data:`BUSY_SECONDS` loop on the clock), ``open`` and ``seal`` (the state),
    ``play`` (the trusted read and the move on the match kernel) or ``step`` (all of
    ``step_sealed``)."""
    from playbench.core import get_game
    from playbench.core.match import Match
    from playbench.server.routes.games import step_sealed
    from playbench.server.settings import Settings

    sealer = sealer_of(Settings.from_env(dict(env)))
    body = json.loads(Path(env[ENV_REQUEST_FILE]).read_bytes())
    game = get_game("delvewick")
    opened = sealer.open("delvewick", body["state"])

    def busy() -> None:
        until = time.perf_counter() + BUSY_SECONDS
        while time.perf_counter() < until:
            pass

    return {
        "busy": busy,
        "open": lambda: sealer.open("delvewick", body["state"]),
        "seal": lambda: sealer.seal("delvewick", opened),
        "play": lambda: Match(game, game.from_trusted_json(opened)).play(body["action"]),
        "step": lambda: step_sealed(sealer, game, body["state"], body["action"]),
    }[name]


def part_app(name: str) -> Any:
    """:func:`bare_app` doing one part of the route's work (:func:`part_work`) first."""
    work = part_work(name, os.environ)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            work()
        await bare_app(scope, receive, send)

    return app


def serve_bare(stack: str, port: int, variant: str = "plain", workers: int = 1) -> None:
    """Serve :func:`bare_app` on ``stack`` (run in its own process by the benchmark).

    ``variant``: ``plain`` is the stack's own defaults; ``guarded`` is a uvicorn stack
    with the connection guards and settings that ``playbench serve`` uses; ``fastpath``
    is that, serving :func:`fast_path_app`; ``part-NAME`` serves :func:`part_app`."""
    if stack == "granian":
        from granian.constants import Interfaces, Loops
        from granian.log import LogLevels
        from granian.server import Server

        Server(
            "server_speed:bare_app",
            address=HOST,
            port=port,
            interface=Interfaces.ASGI,
            loop=Loops.uvloop,
            working_dir=HERE,
            log_level=LogLevels.warning,
        ).serve()
        return
    import uvicorn

    from playbench.server.connections import ConnectionLimits
    from playbench.server.stacks import UVICORN, ServeOptions, uvicorn_options

    if variant == "plain":
        http, loop = UVICORN[stack]
        options: dict[str, Any] = {"http": http, "loop": loop, "host": HOST, "port": port}
        options |= {"workers": workers, "access_log": False, "log_level": "warning"}
    else:
        limits = ConnectionLimits(KEEP_ALIVE_SECONDS, REQUEST_SECONDS, MAX_CONNECTIONS)
        options = uvicorn_options(
            ServeOptions(stack, HOST, port, workers, "warning", False, BACKLOG, limits)
        )
    # several workers import the app by name, from this folder
    app: Any = "server_speed:bare_app"
    if variant == "fastpath":
        app = fast_path_app()
    elif variant.startswith("part-"):
        app = part_app(variant.removeprefix("part-"))
    os.chdir(HERE)
    uvicorn.run(app, **options)


# -- the workloads -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Workload:
    slug: str
    request: bytes
    answer: bytes


def workloads(secret: str, data: Path) -> dict[str, Workload]:
    """A request for each game's action route (a state some moves in) and its answer."""
    from fastapi.testclient import TestClient

    from playbench.bots.cogcrawl import delver_reply
    from playbench.core import Rng
    from playbench.core.match import Match
    from playbench.server import Settings, create_app

    app = create_app(Settings(data_dir=data, secrets=(secret,)))
    sealer = app.state.services.sealer
    found: dict[str, Workload] = {}
    with TestClient(app) as client:

        def workload(slug: str, state: str, action: Any) -> Workload:
            request = json.dumps({"state": state, "action": action}).encode()
            answer = client.post(
                f"/api/games/{slug}/action",
                content=request,
                headers={"Content-Type": "application/json"},
            )
            assert answer.status_code == 200 and answer.json()["ok"], answer.text
            return Workload(slug, request, answer.content)

        for slug, options in (
            ("delvewick", {"startLevel": DELVEWICK_LEVEL}),
            ("gem-swap", {}),
            ("chimestep", {}),
        ):
            chooser = Rng.from_seed(SEED, 1)
            url = f"/api/games/{slug}/action"
            body = client.post(
                f"/api/games/{slug}/init", json={"seed": SEED, "options": options}
            ).json()
            for _ in range(MOVES_IN):
                action = chooser.choice(body["legalActions"])
                body = client.post(url, json={"state": body["state"], "action": action}).json()
                assert body["ok"] and not body["gameOver"], "the walk must stay in the game"
            found[slug] = workload(slug, body["state"], chooser.choice(body["legalActions"]))

        match = Match.start("cogcrawl", SEED)
        for _ in range(COGCRAWL_TURNS):
            match.play(delver_reply(match.view()["observation"]))
        assert not match.over, "the delver must still be alive mid-dungeon"
        sealed = sealer.seal("cogcrawl", match.game.to_json(match.state))
        found["cogcrawl"] = workload("cogcrawl", sealed, delver_reply(match.view()["observation"]))
    return found


# -- servers and load ----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Server:
    """A server process on a free port, up until :meth:`stop` (SIGTERM, or SIGKILL)."""

    def __init__(self, command: list[str], env: dict[str, str], probe: str) -> None:
        self.port = free_port()
        self.root = f"http://{HOST}:{self.port}"
        command = [part.replace("{port}", str(self.port)) for part in command]
        self.process = subprocess.Popen(command, env=env, start_new_session=True)
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"{command} exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.root + probe, timeout=1):
                    return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit(f"{command} did not answer within {STARTUP_SECONDS} s")

    def stop(self, kill: bool = False) -> None:
        os.killpg(self.process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.process.wait(timeout=STARTUP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def cpu_seconds(self) -> float:
        """User + system CPU of the server and every process it started (Linux /proc)."""
        parents: dict[int, int] = {}
        times: dict[int, float] = {}
        tick = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
        total = 0.0
        for pid, spent in times.items():
            walker = pid
            while walker > 1 and walker != self.process.pid:
                walker = parents.get(walker, 0)
            if walker == self.process.pid:
                total += spent
        return total


@dataclass(frozen=True, slots=True)
class Run:
    rps: float
    p50: float
    p99: float
    cpu_us: float
    requests: int
    non_2xx: int
    socket_errors: int


def wrk(server: Server, path: str, script: Path, seconds: int, connections: int) -> Run:
    command = ["wrk", f"-t{WRK_THREADS}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    command += ["--timeout", f"{WRK_TIMEOUT_SECONDS}s"]
    command += ["-s", str(script), server.root + path]
    before = server.cpu_seconds()
    output = subprocess.run(
        command, capture_output=True, text=True, check=True, timeout=seconds + 30
    ).stdout
    spent = server.cpu_seconds() - before
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    return Run(
        rps=float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        p50=_latency(output, "50%"),
        p99=_latency(output, "99%"),
        cpu_us=spent / max(requests, 1) * 1e6,
        requests=requests,
        non_2xx=int(bad.group(1)) if bad else 0,
        socket_errors=sum(map(int, socket_errors.groups())) if socket_errors else 0,
    )


def _latency(output: str, percentile: str) -> float:
    value, unit = re.search(rf"^\s+{percentile}\s+([\d.]+)(us|ms|s)\s*$", output, re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def post_script(folder: Path, name: str, body: bytes) -> Path:
    (folder / f"{name}.json").write_bytes(body)
    script = folder / f"{name}.lua"
    script.write_text(POST_LUA.format(path=folder / f"{name}.json"))
    return script


def median(runs: list[Run]) -> Run:
    return sorted(runs, key=lambda run: run.rps)[len(runs) // 2]


def measured(
    server: Server, path: str, script: Path, args: argparse.Namespace, check: bool = True
) -> Run:
    wrk(server, path, script, 1, args.connections)
    runs = [wrk(server, path, script, args.seconds, args.connections) for _ in range(args.rounds)]
    run = median(runs)
    if check and (run.non_2xx or run.socket_errors):
        raise SystemExit(f"{path}: {run.non_2xx} error answers, {run.socket_errors} socket errors")
    sys.stderr.write(f"{path}: {run}\n")
    return run


# -- the session act run ---------------------------------------------------------------------
def session_act(folder: Path, env: dict[str, str], stack: str, args: argparse.Namespace) -> dict:
    """Acts per second and p99 on SQLite, then the acknowledged acts checked in the log."""
    server = Server(playbench_serve(stack, 1), env, "/api/games")
    try:
        lines = []
        for _ in range(ACT_SESSIONS):
            new = _post_json(f"{server.root}/games/{ACT_GAME}/api/new", {"seed": SEED})
            lines.append(f"{new['sessionId']} {new['token']} {_solved(new['agentCheck'])}")
        (folder / "sessions.txt").write_text("\n".join(lines) + "\n")
        script = folder / "act.lua"
        script.write_text(
            ACT_LUA.format(sessions=folder / "sessions.txt", command=ACT_COMMAND, slug=ACT_GAME)
        )
        run = wrk(server, f"/games/{ACT_GAME}/api/act", script, args.seconds, args.connections)
    finally:
        server.stop(kill=True)
    acknowledged = run.requests - run.non_2xx
    with sqlite3.connect(Path(env["PLAYBENCH_DATA"]) / "playbench.db") as db:
        stored = db.execute("SELECT count(*) FROM actions").fetchone()[0]
    return {"run": run, "acknowledged": acknowledged, "stored": stored}


def _post_json(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)


def _solved(puzzle: dict) -> str:
    a, b, c = (int(n) for n in re.findall(r"\d+", puzzle["question"]))
    return f"{puzzle['token']} {a + b * c}"


def playbench_serve(stack: str, workers: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "playbench.cli",
        "serve",
        "--server",
        stack,
        "--host",
        HOST,
        "--port",
        "{port}",
        "--workers",
        str(workers),
        "--log-level",
        "warning",
    ]


# -- the whole run -------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=1, help="runs per row (median shown)")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--stacks", default=",".join(STACKS), help="stacks to compare")
    parser.add_argument("--skip-act", action="store_true", help="leave out session act")
    parser.add_argument("--act-only", action="store_true", help="only session act")
    parser.add_argument("--record", action="store_true", help=f"append to {RESULTS.name}")
    parser.add_argument(
        "--parts",
        action="store_true",
        help="only the server CPU each part of the Delvewick route's work adds to a request",
    )
    parser.add_argument("--bare-server", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        stack, port, variant, workers = args.bare_server
        serve_bare(stack, int(port), variant, int(workers))
        return 0
    if shutil.which("wrk") is None:
        sys.stderr.write("wrk is not installed: on Debian/Ubuntu run `apt-get install -y wrk`\n")
        return 2
    stacks = [stack for stack in args.stacks.split(",") if stack]
    from playbench.server.sealing import generate_key

    with tempfile.TemporaryDirectory(prefix="playbench-bench-") as tmp:
        folder = Path(tmp)
        secret = generate_key()
        loads = workloads(secret, folder / "prep")
        env = {
            **os.environ,
            "PLAYBENCH_SECRET": secret,
            "PLAYBENCH_DATA": str(folder / "data"),
            # a load benchmark measures the routes, not the rate limits
            "PLAYBENCH_RATE_PER_ADDRESS": "0",
            "PLAYBENCH_RATE_PER_SESSION": "0",
        }
        lines, verdicts = report_rows(folder, env, loads, stacks, args)
    command = "python benchmarks/server_speed.py " + " ".join(sys.argv[1:])
    print("\n".join(lines))
    if args.record:
        record(command.strip(), lines)
    return 0 if all(verdicts) else 1


def report_rows(
    folder: Path,
    env: dict[str, str],
    loads: dict[str, Workload],
    stacks: list[str],
    args: argparse.Namespace,
) -> tuple[list[str], list[bool]]:
    lines: list[str] = []
    verdicts: list[bool] = []
    if args.parts:
        post_script(folder, "answer-delvewick", loads["delvewick"].answer)
        script = post_script(folder, "request-delvewick", loads["delvewick"].request)
        lines = parts_rows(folder, env, script, args)
    elif not args.act_only:
        lines, verdicts = route_rows(folder, env, loads, stacks, args)
    if not (args.skip_act or args.parts):
        acts_env = {**env, "PLAYBENCH_DATA": str(folder / "acts")}
        act = session_act(folder, acts_env, DEFAULT_SERVER, args)
        run = act["run"]
        lines.append(
            f"session act ({ACT_GAME} {ACT_COMMAND!r}, SQLite synchronous=FULL, {DEFAULT_SERVER}): "
            f"{run.rps:.0f} acts/s, p50 {run.p50:.2f} ms, p99 {run.p99:.2f} ms, "
            f"{run.cpu_us:.0f} us CPU/act, {run.non_2xx} error answers, {run.socket_errors} "
            f"socket errors (timeouts); acknowledged "
            f"{act['acknowledged']}, stored after SIGKILL {act['stored']}"
        )
        verdicts.append(act["stored"] >= act["acknowledged"])
    lines.append(
        f"{args.connections} connections, wrk -t{WRK_THREADS}, {args.seconds} s a run, "
        f"median of {args.rounds}"
    )
    return lines, verdicts


def route_rows(
    folder: Path,
    env: dict[str, str],
    loads: dict[str, Workload],
    stacks: list[str],
    args: argparse.Namespace,
) -> tuple[list[str], list[bool]]:
    delvewick = loads["delvewick"]
    action = "/api/games/{slug}/action"
    rows: list[tuple[str, Run, str]] = []
    bare: dict[str, dict[str, Run]] = {}
    routes: dict[str, Run] = {}
    for stack in stacks:
        bare[stack] = {}
        games = list(loads) if stack == DEFAULT_SERVER else ["delvewick"]
        for slug in games:
            script = post_script(folder, f"answer-{slug}", loads[slug].answer)
            server = reference_server(folder, env, stack, slug)
            try:
                bare[stack][slug] = measured(server, "/", script, args)
            finally:
                server.stop()
        server = Server(playbench_serve(stack, 1), env, "/api/games")
        try:
            for slug in games:
                script = post_script(folder, f"request-{slug}", loads[slug].request)
                run = measured(server, action.format(slug=slug), script, args)
                routes[f"{stack}:{slug}"] = run
        finally:
            server.stop()
    script = post_script(folder, "request-delvewick", delvewick.request)
    where: dict[str, Any] = {}
    if DEFAULT_SERVER in stacks:
        where = cost_rows(folder, env, script, delvewick.request, stacks, args)
    # the fastest bare endpoint measured, each stack at its defaults and the default stack
    # as playbench serves it, is the reference
    candidates = {STACK_NAMES[stack]: bare[stack]["delvewick"] for stack in stacks}
    if where:
        candidates[where["stack label"]] = where["stack"]
    reference_name = max(candidates, key=lambda name: candidates[name].rps)
    reference = candidates[reference_name]
    for stack in stacks:
        rows.append((f"bare ASGI, {STACK_NAMES[stack]}", bare[stack]["delvewick"], ""))
    verdicts = []
    for stack in stacks:
        run = routes[f"{stack}:delvewick"]
        ratio = run.rps / reference.rps
        rows.append((f"delvewick action, {STACK_NAMES[stack]}", run, f"{ratio:.2f}"))
        if stack == DEFAULT_SERVER:
            verdicts.append((where["paired"] if where else ratio) >= RATIO_FLOOR)
    if DEFAULT_SERVER in stacks:
        for slug in loads:
            if slug == "delvewick":
                continue
            run = routes[f"{DEFAULT_SERVER}:{slug}"]
            own = bare[DEFAULT_SERVER][slug]
            rows.append((f"bare ASGI, {slug} answer, {DEFAULT_SERVER}", own, ""))
            rows.append((f"{slug} action, {DEFAULT_SERVER}", run, f"{run.rps / reference.rps:.2f}"))
    if where:
        rows += [
            (label, run, f"{run.rps / reference.rps:.2f}" if ratio else "")
            for label, run, ratio in where["rows"]
        ]
    for stack in stacks:
        if stack == "h11":
            continue
        server = Server(playbench_serve(stack, 2), env, "/api/games")
        try:
            two = measured(server, action.format(slug="delvewick"), script, args)
        finally:
            server.stop()
        rows.append((f"delvewick action, {STACK_NAMES[stack]}, 2 workers", two, ""))
        if stack == DEFAULT_SERVER:
            verdicts.append(two.p99 < P99_TARGET_MS)
    header = (
        f"{'endpoint, stack':<50} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'CPU us/req':>10} {'ratio':>6}"
    )
    lines = [header]
    for label, run, ratio in rows:
        lines.append(
            f"{label:<50} {run.rps:>8.0f} {run.p50:>7.2f} {run.p99:>7.2f} {run.cpu_us:>10.0f} "
            f"{ratio:>6}"
        )
    lines.append(
        f"ratio: requests/s over the reference, bare ASGI on {reference_name} "
        f"(target {RATIO_TARGET}, floor {RATIO_FLOOR}); 2 workers: p99 target under "
        f"{P99_TARGET_MS:.0f} ms"
    )
    sizes = ", ".join(
        f"{slug} {len(load.request)}/{len(load.answer)}" for slug, load in loads.items()
    )
    lines.append(f"request/answer bytes: {sizes}")
    if where:
        lines += where["lines"]
    return lines, verdicts


def reference_server(
    folder: Path,
    env: dict[str, str],
    stack: str,
    slug: str,
    variant: str = "plain",
    workers: int = 1,
) -> Server:
    """A reference app (see :func:`serve_bare`) answering ``slug``'s action answer."""
    command = [sys.executable, str(Path(__file__).resolve()), "--bare-server", stack, "{port}"]
    command += [variant, str(workers)]
    return Server(command, {**env, ENV_BARE_FILE: str(folder / f"answer-{slug}.json")}, "/")


def cost_rows(
    folder: Path,
    env: dict[str, str],
    script: Path,
    request: bytes,
    stacks: list[str],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """The Delvewick route side by side with its references, and where its CPU goes.

    Up at once and loaded in turn, :data:`COST_ROUNDS` rounds in alternating order (so the
    machine's drift falls on all alike): the bare app on the default stack as ``playbench
    serve`` runs it (guards and settings) and on granian, the action fast path alone (the
    game's work, no framework or layers) and the whole arena. Each row is its median
    round; the ratio is taken round by round against the faster bare app of that round,
    and its median is the verdict's figure. Then the bare app's p99 with two workers: the
    floor the machine's scheduling puts under the 2-worker target."""
    action = "/api/games/delvewick/action"
    servers = {
        "stack": (reference_server(folder, env, DEFAULT_SERVER, "delvewick", "guarded"), "/"),
        "fast": (reference_server(folder, env, DEFAULT_SERVER, "delvewick", "fastpath"), action),
        "arena": (Server(playbench_serve(DEFAULT_SERVER, 1), env, "/api/games"), action),
    }
    if "granian" in stacks and DEFAULT_SERVER != "granian":
        servers["granian"] = (reference_server(folder, env, "granian", "delvewick"), "/")
    bares = [name for name in ("stack", "granian") if name in servers]
    runs = alternating(servers, script, args)
    ratios = [
        runs["arena"][i].rps / max(runs[name][i].rps for name in bares) for i in range(COST_ROUNDS)
    ]
    paired = sorted(ratios)[COST_ROUNDS // 2]
    middle = {name: median_cpu(found) for name, found in runs.items()}
    stack_alone, fast, arena = middle["stack"], middle["fast"], middle["arena"]
    server = reference_server(folder, env, DEFAULT_SERVER, "delvewick", "guarded", workers=2)
    try:
        two = measured(server, "/", script, args)
    finally:
        server.stop()
    warm, cold = in_process_us(part_work("step", request_env(folder, env)))
    stack_label = f"{STACK_NAMES[DEFAULT_SERVER]} as playbench serves it"
    rows = [(f"bare ASGI, {DEFAULT_SERVER} as playbench serves it", stack_alone, False)]
    if "granian" in middle:
        rows.append(("bare ASGI, granian, in the same rounds", middle["granian"], False))
    rows += [
        (f"delvewick fast path alone, {DEFAULT_SERVER}", fast, True),
        (f"delvewick action, {DEFAULT_SERVER}, in the same rounds", arena, True),
        (f"bare ASGI, {DEFAULT_SERVER} as playbench serves it, 2 workers", two, False),
    ]
    parts = (
        ("the stack with playbench serve's guards and settings, bare app", stack_alone.cpu_us),
        (
            f"+ the game's work and the fast path (in process {warm:.0f} warm, {cold:.0f} churned)",
            fast.cpu_us - stack_alone.cpu_us,
        ),
        ("+ the arena's layers and the framework's door", arena.cpu_us - fast.cpu_us),
        ("= the route", arena.cpu_us),
    )
    lines = [
        f"where the delvewick route's server CPU goes ({DEFAULT_SERVER}, 1 worker, us/req, "
        f"median of {COST_ROUNDS} alternating rounds):"
    ]
    lines += [f"  {label:<72} {value:>5.0f}" for label, value in parts]
    lines.append(
        f"2 workers, bare app on the same stack: p50 {two.p50:.2f} ms, p99 {two.p99:.2f} ms "
        "(the machine's scheduling floor under the route's p99)"
    )
    lines.append(
        f"delvewick action ({DEFAULT_SERVER}) over the faster bare app of each round: "
        + ", ".join(f"{ratio:.2f}" for ratio in ratios)
        + f"; median {paired:.2f} (target {RATIO_TARGET}, floor {RATIO_FLOOR})"
    )
    return {
        "rows": rows,
        "lines": lines,
        "stack": stack_alone,
        "stack label": stack_label,
        "paired": paired,
    }


def alternating(
    servers: dict[str, tuple[Server, str]], script: Path, args: argparse.Namespace
) -> dict[str, list[Run]]:
    """:data:`COST_ROUNDS` rounds of wrk on each (server, path), in alternating order (so
    the machine's drift falls on all alike); every server is stopped after."""
    runs: dict[str, list[Run]] = {name: [] for name in servers}
    try:
        for server, path in servers.values():
            wrk(server, path, script, 1, args.connections)
        for round_ in range(COST_ROUNDS):
            order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
            for name in order:
                server, path = servers[name]
                runs[name].append(wrk(server, path, script, args.seconds, args.connections))
    finally:
        for server, _ in servers.values():
            server.stop()
    return runs


def median_cpu(runs: list[Run]) -> Run:
    return sorted(runs, key=lambda run: run.cpu_us)[len(runs) // 2]


def request_env(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """``env`` naming the Delvewick request file that :func:`post_script` wrote."""
    return {**env, ENV_REQUEST_FILE: str(folder / "request-delvewick.json")}


def in_process_us(work: Any) -> tuple[float, float]:
    """Microseconds of one call of ``work`` in this process, no server around it: the mean
    call of a tight loop (caches warm), and the mean call when each follows :func:`churn`
    (caches and branch predictors holding other work, as a server's between two
    requests); the best of five repeats each."""

    def mean_call(between: Any) -> float:
        spent = 0.0
        for _ in range(STEP_CALLS):
            between()
            start = time.perf_counter()
            work()
            spent += time.perf_counter() - start
        return spent / STEP_CALLS * 1e6

    warm = min(mean_call(lambda: None) for _ in range(5))
    return warm, min(mean_call(churn) for _ in range(5))


def parts_rows(
    folder: Path, env: dict[str, str], script: Path, args: argparse.Namespace
) -> list[str]:
    """Each part of the route's work (:func:`part_work`) added to the bare app on the
    default stack as ``playbench serve`` runs it, every server up at once and loaded in
    alternating rounds: the server CPU each adds to a request, beside its cost in process."""
    env = request_env(folder, env)
    servers = {
        name: (reference_server(folder, env, DEFAULT_SERVER, "delvewick", name), "/")
        for name in ("guarded", *(f"part-{part}" for part in PARTS))
    }
    runs = {name: median_cpu(found) for name, found in alternating(servers, script, args).items()}
    bare = runs["guarded"].cpu_us
    lines = [
        f"each part of the delvewick route's work, added to the bare app ({DEFAULT_SERVER} as "
        f"playbench serves it: {bare:.0f} us CPU/req), median of {COST_ROUNDS} alternating rounds:",
        "  part     in process, warm us  churned us  server CPU added us/req",
    ]
    for part in PARTS:
        warm, churned = in_process_us(part_work(part, env))
        added = runs[f"part-{part}"].cpu_us - bare
        lines.append(f"  {part:<8} {warm:>19.1f} {churned:>11.1f} {added:>24.0f}")
    return lines


CHURN_DATA = bytearray(EVICT_BYTES)
CHURN_FILL = b"\x01" * (EVICT_BYTES // CACHE_LINE)
CHURN_TEXT = "def f(a, b):\n    return [x * b for x in a if x % 3]\n" * 8


def churn() -> None:
    """Unrelated work: a write to every cache line of :data:`EVICT_BYTES`, then a parse,
    an encode, a regex and a compression (interpreter and C code far from the route's)."""
    CHURN_DATA[::CACHE_LINE] = CHURN_FILL
    ast.parse(CHURN_TEXT)
    json.dumps({"a": [1, 2, {"b": "c" * 50}] * 20})
    re.sub(r"(\w+)\((\w+)", r"\2", CHURN_TEXT)
    zlib.compress(CHURN_TEXT.encode())


def record(command: str, lines: list[str]) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        f"\n## Server stacks and routes\n\n`{command}` ({stamp}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]})\n\n```\n" + "\n".join(lines) + "\n```\n"
    )
    with RESULTS.open("a") as handle:
        handle.write(text)


if __name__ == "__main__":
    raise SystemExit(main())
