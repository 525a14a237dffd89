"""Rollouts in flight against one ``playbench serve``: OpenEnv over HTTP and WebSocket.

Starts ``playbench serve`` on 127.0.0.1 (one worker; the rate limits off and the
connection limits above the run's, as a training cluster's host would set them), opens
``--episodes`` episodes of ``--game`` at once, half over OpenEnv's WebSocket (the
package's client, one connection each) and half over its HTTP routes (each step naming
its episode), and once every one is open plays ``--steps`` scripted replies in each, all
in flight together. Each episode has its own drawn seed; its replies play the first
legal move of the server's last observation.

Every episode is then held to the same replies played in-process
(:class:`~playbench.train.episode.SeatEpisode`): its final fingerprint, score and step
count must be its own seed's. A dropped episode is one that errored; a mixed one, one
whose state is not its seed's. The figures: the client's step times (p50, p99: the
server's queue included), the server's CPU per step (its user plus system time from
/proc over the stepping) and its memory per episode held (resident size with every
episode open, less before), beside a reference run of one episode at a time on the same
server::

    python benchmarks/rollouts.py --episodes 512 --steps 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from playbench.core.game import JSON, Game
from playbench.core.registry import get_game
from playbench.train.client import GameEnv
from playbench.train.episode import SeatEpisode
from playbench.train.openenv import GameAction

#: seconds the server may take to start, and one answer to come
START_TIMEOUT = 300.0
ANSWER_TIMEOUT = 300.0
#: the target of the issue: p99 step time at 512 episodes in flight
TARGET_P99 = 0.050


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


async def over_websocket(base: str, game: Game, seed: int, steps: int, gate: Gate) -> Outcome:
    outcome = Outcome(seed, "ws")
    opened = False
    try:
        async with GameEnv(base_url=base, message_timeout_s=ANSWER_TIMEOUT) as env:
            result = await env.reset(seed=seed, max_turns=steps)
            opened = True
            gate.opened()
            await gate.go.wait()
            while not result.done:
                reply = first_legal(game, result.observation.view)
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
    http: httpx.AsyncClient, base: str, game: Game, seed: int, steps: int, gate: Gate
) -> Outcome:
    outcome = Outcome(seed, "http")
    opened = False
    try:
        answer = await _json(http.post(f"{base}/reset", json={"seed": seed, "max_turns": steps}))
        key = answer["observation"]["info"]["episodeId"]
        opened = True
        gate.opened()
        await gate.go.wait()
        while not answer["done"]:
            reply = first_legal(game, answer["observation"]["view"])
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
        if not opened:
            gate.opened()
    return outcome


async def _json(request: Any) -> Any:
    response = await request
    response.raise_for_status()
    return response.json()


async def run(base: str, game: Game, seeds: list[int], steps: int, pid: int) -> JSON:
    """Every episode opened, then all stepped at once; the figures."""
    gate = Gate(len(seeds))
    limits = httpx.Limits(max_connections=len(seeds), max_keepalive_connections=len(seeds))
    async with httpx.AsyncClient(timeout=ANSWER_TIMEOUT, limits=limits) as http:
        rss_before = resident_bytes(pid)
        tasks = [
            asyncio.create_task(
                over_websocket(base, game, seed, steps, gate)
                if index % 2 == 0
                else over_http(http, base, game, seed, steps, gate)
            )
            for index, seed in enumerate(seeds)
        ]
        await gate.ready.wait()
        rss_open = resident_bytes(pid)
        cpu_before = cpu_seconds(pid)
        started = time.perf_counter()
        gate.go.set()
        outcomes = await asyncio.gather(*tasks)
        wall = time.perf_counter() - started
        cpu = cpu_seconds(pid) - cpu_before
    times = sorted(t for outcome in outcomes for t in outcome.times)
    return {
        "outcomes": outcomes,
        "steps": len(times),
        "p50": statistics.median(times) if times else 0.0,
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0,
        "cpuPerStep": cpu / len(times) if times else 0.0,
        "wall": wall,
        "bytesPerEpisode": (rss_open - rss_before) / len(seeds),
    }


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
    command += ["--max-connections-per-address", limit, "--backlog", limit]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=512)
    parser.add_argument("--steps", type=int, default=10, help="scripted replies an episode")
    parser.add_argument("--game", default="gem-swap")
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()
    game = get_game(args.game)
    seeds = random.sample(range(2**31), args.episodes + 1)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="playbench-rollouts-") as folder:
        process = serve(port, Path(folder) / "data", args.episodes)
        try:
            base = f"http://127.0.0.1:{port}/openenv/{game.slug}"
            wait_ready(base, process)
            reference = asyncio.run(run(base, game, seeds[:1], args.steps, process.pid))
            loaded = asyncio.run(run(base, game, seeds[1:], args.steps, process.pid))
        finally:
            process.terminate()
            process.wait(60)
    dropped, mixed = check(game, loaded["outcomes"], args.steps)
    _, reference_mixed = check(game, reference["outcomes"], args.steps)
    print(f"{game.name}: {args.episodes} episodes in flight, {args.steps} steps each")
    print(f"{'':24}{'1 in flight':>14}{f'{args.episodes} in flight':>16}{'ratio':>8}")
    for name, key, scale, unit in (
        ("step time p50", "p50", 1000, "ms"),
        ("step time p99", "p99", 1000, "ms"),
        ("server CPU per step", "cpuPerStep", 1000, "ms"),
    ):
        one, many = reference[key] * scale, loaded[key] * scale
        ratio = many / one if one else float("nan")
        print(f"{name + ' (' + unit + ')':24}{one:>14.2f}{many:>16.2f}{ratio:>8.2f}")
    print(f"steps played: {loaded['steps']} in {loaded['wall']:.2f} s")
    print(f"memory per episode held: {loaded['bytesPerEpisode'] / 1024:.1f} KiB")
    print(f"dropped: {len(dropped)}  mixed: {len(mixed) + len(reference_mixed)}")
    for line in (dropped + mixed)[:10]:
        print("  " + line)
    met = loaded["p99"] < TARGET_P99
    print(f"target p99 < {TARGET_P99 * 1000:.0f} ms: {'met' if met else 'not met'}")
    if args.json:
        figures = {k: v for k, v in loaded.items() if k != "outcomes"}
        figures.update(dropped=len(dropped), mixed=len(mixed), episodes=args.episodes)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if dropped or mixed or reference_mixed else 0


if __name__ == "__main__":
    raise SystemExit(main())
