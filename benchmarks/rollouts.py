"""Rollouts in flight against one ``playbench serve``: OpenEnv over HTTP and WebSocket.

Starts ``playbench serve`` on 127.0.0.1 (one worker; the rate limits off and the
connection limits above the run's, as a training cluster's host would set them), opens
``--episodes`` episodes of ``--game`` at once, half over OpenEnv's WebSocket (the
package's client, one connection each) and half over its HTTP routes (each step naming
its episode), and once every one is open plays ``--steps`` scripted replies in each, all
in flight together. Each episode has its own drawn seed; its replies play the first
legal move of the server's last observation.

The episodes are played twice, as a training run's rollouts arrive and at their worst:

- **paced**: before each step an episode waits a think time drawn uniformly between 0.5
  and 1.5 times ``--think`` seconds (its model writing the reply; a GRPO run's rollouts
  step between generations), so the steps arrive spread out;
- **at once**: no think time, every episode steps as soon as its last answer came, so
  all of them queue at the server together (a bound on its throughput, not on a step).

Every episode is then held to the same replies played in-process
(:class:`~playbench.train.episode.SeatEpisode`): its final fingerprint, score and step
count must be its own seed's. A dropped episode is one that errored; a mixed one, one
whose state is not its seed's. The figures, beside a reference run of one episode at a
time: the client's step times (p50, p99: the wait in the socket and for the server's
event loop included), the server's own step time (p50, p99 of its
``playbench_openenv_seconds`` histogram, read from ``/metrics``: from a step reaching the
environment's app to its answer leaving it, given as the bucket's upper bound), the
server's CPU per step (its user plus system time from /proc over the stepping), the
client's CPU per step and how late its event loop wakes a task (p99 of a 10 ms tick's
delay), and the server's memory per episode held (resident size with every episode open,
less before)::

    python benchmarks/rollouts.py --episodes 512 --steps 10 --think 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from playbench.core.game import JSON, Game
from playbench.core.registry import get_game
from playbench.train.client import GameEnv
from playbench.train.episode import SeatEpisode
from playbench.train.openenv import GameAction

#: seconds the server may take to start, and one answer to come
START_TIMEOUT = 300.0
ANSWER_TIMEOUT = 300.0
#: one TLS context for every HTTP episode's client (they speak plain HTTP, but httpx makes
#: a context per client unless given one: 27 ms of CPU each, which for 256 clients kept the
#: client's event loop from sending its WebSockets' opening requests for longer than the
#: server lets a connection stay silent, and the server closed them)
TLS = ssl.create_default_context()
#: the target: p99 step time at 512 episodes in flight
TARGET_P99 = 0.050
#: the server's histogram of its OpenEnv calls' times
HISTOGRAM = "playbench_openenv_seconds"


@dataclass(slots=True)
class Outcome:
    seed: int
    door: str
    fingerprint: str = ""
    score: int = 0
    steps: int = 0
    error: str = ""
    times: list[float] = field(default_factory=list)


class Gate:
    """Counts the episodes opened; ``ready`` is set when all are (or one failed)."""

    def __init__(self, count: int) -> None:
        self.left = count
        self.ready = asyncio.Event()
        self.go = asyncio.Event()

    def opened(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.ready.set()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """A process's user plus system CPU seconds, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def first_legal(game: Game, view: JSON) -> str:
    """The scripted reply: the first legal move, in the reply's form."""
    guide = game.seat_guide()
    return json.dumps({guide.reply_key: [guide.moves(view)[0]]})


async def think(seconds: float, rng: random.Random) -> None:
    """An episode's model writing its next reply: a drawn share of ``seconds``."""
    if seconds > 0:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * seconds)


async def over_websocket(
    base: str, game: Game, seed: int, steps: int, gate: Gate, pace: float
) -> Outcome:
    outcome = Outcome(seed, "ws")
    rng = random.Random(seed)
    opened = False
    try:
        async with GameEnv(
            base_url=base, connect_timeout_s=ANSWER_TIMEOUT, message_timeout_s=ANSWER_TIMEOUT
        ) as env:
            result = await env.reset(seed=seed, max_turns=steps)
            opened = True
            gate.opened()
            await gate.go.wait()
            while not result.done:
                reply = first_legal(game, result.observation.view)
                await think(pace, rng)
                started = time.perf_counter()
                result = await env.step(GameAction(reply=reply))
                outcome.times.append(time.perf_counter() - started)
            state = await env.state()
        outcome.fingerprint, outcome.score = state.fingerprint, state.score
        outcome.steps = state.step_count
    except Exception as error:  # any failure is the episode dropped
        outcome.error = f"{type(error).__name__}: {error}"
    finally:
        if not opened:
            gate.opened()
    return outcome


async def over_http(
    base: str, game: Game, seed: int, steps: int, gate: Gate, pace: float
) -> Outcome:
    """One episode over the HTTP routes, on a client of its own (as a rollout worker has:
    one pool shared by hundreds of episodes costs the client more than the server)."""
    outcome = Outcome(seed, "http")
    rng = random.Random(seed)
    opened = False
    http = httpx.AsyncClient(timeout=ANSWER_TIMEOUT, verify=TLS)
    try:
        answer = await _json(http.post(f"{base}/reset", json={"seed": seed, "max_turns": steps}))
        key = answer["observation"]["info"]["episodeId"]
        opened = True
        gate.opened()
        await gate.go.wait()
        while not answer["done"]:
            reply = first_legal(game, answer["observation"]["view"])
            await think(pace, rng)
            started = time.perf_counter()
            step = {"action": {"reply": reply}, "episode_id": key}
            answer = await _json(http.post(f"{base}/step", json=step))
            outcome.times.append(time.perf_counter() - started)
        state = await _json(http.get(f"{base}/state", params={"episode_id": key}))
        outcome.fingerprint, outcome.score = state["fingerprint"], state["score"]
        outcome.steps = state["step_count"]
    except Exception as error:  # any failure is the episode dropped
        outcome.error = f"{type(error).__name__}: {error}"
    finally:
        await http.aclose()
        if not opened:
            gate.opened()
    return outcome


#: seconds between the client's looks at its own event loop
LAG_TICK = 0.01


async def loop_lag(lags: list[float]) -> None:
    """How late the client's event loop wakes a task: every ``LAG_TICK`` the delay past it
    (the wait a step's answer has before the client reads it, when the client is busy)."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        lags.append(time.perf_counter() - asked - LAG_TICK)


async def _json(request: Any) -> Any:
    response = await request
    response.raise_for_status()
    return response.json()


def step_buckets(root: str) -> dict[float, float]:
    """The server's histogram of its OpenEnv steps (every game and door): upper bound ->
    steps at most that long."""
    text = httpx.get(f"{root}/metrics", timeout=ANSWER_TIMEOUT).text
    buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != HISTOGRAM:
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket") and sample.labels.get("call") == "step":
                bound = float(sample.labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + sample.value
    return buckets


def bucket_quantile(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """The upper bound of the bucket that holds the ``q`` quantile of the steps counted
    between the two reads (``inf`` past the last bound; 0 when none was counted)."""
    counts = sorted((bound, after[bound] - before.get(bound, 0.0)) for bound in after)
    total = counts[-1][1] if counts else 0.0
    if total <= 0:
        return 0.0
    return next(bound for bound, count in counts if count >= q * total)


async def run(
    base: str, game: Game, seeds: list[int], steps: int, pid: int, pace: float = 0.0
) -> JSON:
    """Every episode opened, then all stepped (each after a think time drawn from
    ``pace``, or none); the figures."""
    root = base.split("/openenv/", 1)[0]
    gate = Gate(len(seeds))
    rss_before = resident_bytes(pid)
    tasks = [
        asyncio.create_task(
            over_websocket(base, game, seed, steps, gate, pace)
            if index % 2 == 0
            else over_http(base, game, seed, steps, gate, pace)
        )
        for index, seed in enumerate(seeds)
    ]
    await gate.ready.wait()
    rss_open = resident_bytes(pid)
    buckets_before = await asyncio.to_thread(step_buckets, root)
    cpu_before = cpu_seconds(pid)
    client_before = time.process_time()
    started = time.perf_counter()
    gate.go.set()
    lags: list[float] = []
    watch = asyncio.create_task(loop_lag(lags))
    outcomes = await asyncio.gather(*tasks)
    watch.cancel()
    wall = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu_before
    client_cpu = time.process_time() - client_before
    buckets_after = await asyncio.to_thread(step_buckets, root)
    times = sorted(t for outcome in outcomes for t in outcome.times)
    return {
        "outcomes": outcomes,
        "steps": len(times),
        "p50": quantile(times, 0.50),
        "p99": quantile(times, 0.99),
        "serverP50": bucket_quantile(buckets_before, buckets_after, 0.50),
        "serverP99": bucket_quantile(buckets_before, buckets_after, 0.99),
        "cpuPerStep": cpu / len(times) if times else 0.0,
        "clientCpuPerStep": client_cpu / len(times) if times else 0.0,
        "clientLagP99": quantile(sorted(lags), 0.99),
        "wall": wall,
        "bytesPerEpisode": (rss_open - rss_before) / len(seeds),
    }


def quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def expected(game: Game, seed: int, steps: int) -> tuple[str, int, int]:
    """The fingerprint, score and steps the scripted replies give in-process."""
    episode = SeatEpisode(game, seed, max_turns=steps)
    while not episode.done:
        episode.reply(first_legal(game, episode.view()))
    return episode.match.fingerprint(), episode.match.score, len(episode.table.lines)


def check(game: Game, outcomes: list[Outcome], steps: int) -> tuple[list[str], list[str]]:
    """The dropped episodes (an error) and the mixed ones (not their seed's state)."""
    dropped = [f"{o.door} seed {o.seed}: {o.error}" for o in outcomes if o.error]
    mixed = []
    for outcome in outcomes:
        if outcome.error:
            continue
        if (outcome.fingerprint, outcome.score, outcome.steps) != expected(
            game, outcome.seed, steps
        ):
            mixed.append(f"{outcome.door} seed {outcome.seed}")
    return dropped, mixed


def serve(port: int, data: Path, episodes: int) -> subprocess.Popen:
    limit = str(max(1000, 4 * episodes))
    command = [sys.executable, "-m", "playbench.cli", "serve", "--port", str(port)]
    command += ["--data", str(data), "--log-level", "warning", "--rate-per-address", "0"]
    command += ["--rate-per-session", "0", "--max-connections", limit]
    command += ["--max-connections-per-address", limit, "--max-connections-per-group", limit]
    command += ["--backlog", limit]
    return subprocess.Popen(command)


def wait_ready(base: str, process: subprocess.Popen) -> None:
    """Until the game's environment answers its health check (the first request under
    /openenv builds the environments)."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=ANSWER_TIMEOUT).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("playbench serve did not start")
        time.sleep(0.1)


ROWS = (
    ("client step p50 (ms)", "p50"),
    ("client step p99 (ms)", "p99"),
    ("server step p50 (ms) <=", "serverP50"),
    ("server step p99 (ms) <=", "serverP99"),
    ("server CPU per step (ms)", "cpuPerStep"),
    ("client CPU per step (ms)", "clientCpuPerStep"),
    ("client loop lag p99 (ms)", "clientLagP99"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=512)
    parser.add_argument("--steps", type=int, default=10, help="scripted replies an episode")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="the paced run's mean seconds between an episode's steps (0: no paced run)",
    )
    parser.add_argument("--game", default="gem-swap")
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()
    if args.episodes < 1 or args.steps < 1 or args.think < 0:
        parser.error("--episodes and --steps must be at least 1, --think at least 0")
    game = get_game(args.game)
    seeds = random.sample(range(2**31), 2 * args.episodes + 1)
    port = free_port()
    runs: dict[str, JSON] = {}
    with tempfile.TemporaryDirectory(prefix="playbench-rollouts-") as folder:
        process = serve(port, Path(folder) / "data", args.episodes)
        try:
            base = f"http://127.0.0.1:{port}/openenv/{game.slug}"
            wait_ready(base, process)
            runs["1 in flight"] = asyncio.run(run(base, game, seeds[:1], args.steps, process.pid))
            many = seeds[1 : args.episodes + 1]
            if args.think > 0:
                runs[f"{args.episodes} paced"] = asyncio.run(
                    run(base, game, many, args.steps, process.pid, args.think)
                )
            runs[f"{args.episodes} at once"] = asyncio.run(
                run(base, game, seeds[args.episodes + 1 :], args.steps, process.pid)
            )
        finally:
            process.terminate()
            process.wait(60)
    checked = {name: check(game, figures["outcomes"], args.steps) for name, figures in runs.items()}
    dropped = [line for lost, _ in checked.values() for line in lost]
    mixed = [line for _, wrong in checked.values() for line in wrong]
    print(f"{game.name}: {args.episodes} episodes in flight, {args.steps} steps each", end="")
    print(f"; paced: a think time of {args.think:g} s on average" if args.think else "")
    print(f"{'':26}" + "".join(f"{name:>16}" for name in runs))
    for label, key in ROWS:
        print(f"{label:26}" + "".join(f"{figures[key] * 1000:>16.2f}" for figures in runs.values()))
    for name, figures in runs.items():
        print(f"{name}: {figures['steps']} steps in {figures['wall']:.2f} s, ", end="")
        print(f"memory per episode held {figures['bytesPerEpisode'] / 1024:.1f} KiB")
    print(f"dropped: {len(dropped)}  mixed: {len(mixed)}")
    for line in (dropped + mixed)[:10]:
        print("  " + line)
    loaded = runs[f"{args.episodes} paced"] if args.think else runs[f"{args.episodes} at once"]
    for who, key in (("client", "p99"), ("server", "serverP99")):
        met = loaded[key] < TARGET_P99
        print(f"target p99 < {TARGET_P99 * 1000:.0f} ms, {who}: {'met' if met else 'not met'}")
    if args.json:
        figures = {
            name: {key: value for key, value in run_figures.items() if key != "outcomes"}
            for name, run_figures in runs.items()
        }
        Path(args.json).write_text(
            json.dumps(
                {"runs": figures, "dropped": len(dropped), "mixed": len(mixed), **vars(args)},
                indent=2,
            )
            + "\n"
        )
    return 1 if dropped or mixed else 0


if __name__ == "__main__":
    raise SystemExit(main())
