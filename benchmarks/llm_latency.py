"""A model's latency against the harness: ``playbench bench --agent llm`` through a
stand-in API on 127.0.0.1 that answers every call after a fixed delay.

    python benchmarks/llm_latency.py --suite quick --latency 0.5 --concurrency 32
    python benchmarks/llm_latency.py --suite models-v2 --latency 0.5 --concurrency 32
    python benchmarks/llm_latency.py --suite quick --seeds 1 --max-steps 6 --latency 0.05

The server (threads: every request waits in its own, so as many wait at once as the
bench sends) speaks OpenAI's chat completions. A turn's answer is one to three moves,
drawn deterministically from the request (a hash of its messages): the first among the
legal moves the turn's message lists, the others among the moves the request's JSON
Schema offers (its ``enum``, or its ``anyOf`` of action objects), so a plan may hold a
move that is refused when reached, as a model's may. A reflection's answer is notes, a
review's a rating. Each answer reports its tokens as the estimate counts them
(:mod:`playbench.runner.estimate`: the messages' text with the chat template's tokens,
and the reply's), and the server keeps the peak of requests in flight at once. The
start-up check's one-token requests are answered at once and counted apart.

It runs the bench in a child process (``--concurrency N --max-tokens T``; ``--seeds K``
and ``--max-steps M`` play a cut copy of the suite: its first K seeds a game, each game's
steps at most M) and prints:

- the wall time, and the ideal: max(calls x latency / concurrency, the longest
  episode's calls x latency), the least any harness could take at that latency; their
  ratio (target at 0.5 s and 32: at most 1.15);
- the harness's own CPU a call: the bench process's CPU time (``getrusage`` of the
  child, its workers included), less the CPU of a child that only imports what a bench
  needs (shown beside it), over the calls (target: at most 5 ms);
- the estimate (``estimate_game`` for each game, the bench's settings) beside the calls
  and tokens the episodes really made (target: never below), and the peak in flight.

With ``--repeat R`` it runs R times and prints each run's figures and their medians.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playbench.agents.llm import LlmSettings
from playbench.runner.estimate import MESSAGE_TOKENS, REPLY_TOKENS, count, estimate_game
from playbench.runner.suite import load_suite, played

MODEL = "latency-model"
KEY_ENV = "PLAYBENCH_LATENCY_KEY"
LEGAL = "Legal moves now: "
#: how the child starts the command line
START = "from playbench.cli import main"
#: what a bench imports and loads before its first episode: the start-up left out of the
#: harness's CPU a call
IMPORTS = (
    f"{START}; import openai, playbench.runner.bench, playbench.runner.run, "
    "playbench.agents.llm.endpoint; from playbench.core import all_games; all_games()"
)
#: connections the server lets wait to be accepted
BACKLOG = 256


# -- the server ----------------------------------------------------------------------------


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content if isinstance(part, dict))


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The reply's JSON Schema of a request, in either form a seat sends it."""
    form = body.get("response_format") or {}
    if "json_schema" in form:
        return form["json_schema"].get("schema")
    return form.get("schema")


def listed_moves(messages: list[dict[str, Any]]) -> list[Any]:
    """The legal moves the turn's message lists (the last user message that has them)."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        for line in text_of(message).splitlines():
            if line.startswith(LEGAL):
                return json.loads(line.removeprefix(LEGAL))
    return []


def offered_moves(items: dict[str, Any]) -> list[Any]:
    """The moves a schema's entry offers: its enum, or one object per ``anyOf`` branch
    (a property that offers several values takes its first)."""
    if "enum" in items:
        return list(items["enum"])
    return [
        {key: value["enum"][0] for key, value in branch["properties"].items()}
        for branch in items.get("anyOf", [])
    ]


def reply_to(body: dict[str, Any]) -> str:
    """The answer to one request, drawn from a hash of its messages."""
    messages = body.get("messages", [])
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    schema = schema_of(body)
    properties = (schema or {}).get("properties", {})
    if "rating" in properties:
        return json.dumps({"rating": 1 + digest[0] % 10, "review": "a steady game"})
    if set(properties) == {"notes"}:
        return json.dumps({"notes": "keep to the plan"})
    legal = listed_moves(messages)
    key = next((name for name in properties if name != "notes"), None)
    if key is None:
        key = "actions" if legal and isinstance(legal[0], dict) else "commands"
    offered = offered_moves(properties[key]["items"]) if key in properties else legal
    first = legal or offered
    if not first:
        return json.dumps({key: ["wait"], "notes": ""})
    moves = [first[digest[1] % len(first)]]
    for index in range(digest[0] % 3):
        pool = offered or first
        moves.append(pool[digest[2 + index] % len(pool)])
    return json.dumps({key: moves, "notes": f"turn plan {digest[5]}"})


@dataclass
class Tally:
    calls: int = 0
    pings: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    in_flight: int = 0
    peak: int = 0


class LatencyServer:
    """The stand-in API; ``with LatencyServer(latency) as server`` runs it."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.tally = Tally()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        ThreadingHTTPServer.request_queue_size = BACKLOG
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> LatencyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(timeout=5)

    def reset(self) -> None:
        with self.lock:
            self.tally = Tally()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """A chat completion for ``body``, after the latency (a ping: at once)."""
        tally = self.tally
        if body.get("max_tokens") == 1:
            with self.lock:
                tally.pings += 1
            return completion("OK", 1, 1)
        with self.lock:
            tally.calls += 1
            tally.in_flight += 1
            tally.peak = max(tally.peak, tally.in_flight)
        try:
            content = reply_to(body)
            messages = body.get("messages", [])
            prompt = sum(count(text_of(m)) + MESSAGE_TOKENS for m in messages) + REPLY_TOKENS
            used = count(content)
            self.stopping.wait(self.latency)
        finally:
            with self.lock:
                tally.in_flight -= 1
                tally.prompt_tokens += prompt
                tally.completion_tokens += used
        return completion(content, prompt, used)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}
                    self._send(200, {"object": "list", "data": [model]})
                else:
                    self._send(404, {"error": {"message": "no such route", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "no such route", "type": "not_found"}})
                    return
                self._send(200, server.answer(body))

            def _send(self, code: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler


def completion(content: str, prompt: int, used: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-latency",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": used,
            "total_tokens": prompt + used,
        },
    }


# -- the bench -----------------------------------------------------------------------------


def cut_suite(name: str, seeds: int | None, max_steps: int | None, folder: Path) -> str:
    """The suite as the bench plays it: the shipped name, or a cut copy's path."""
    if seeds is None and max_steps is None:
        return name
    shipped = load_suite(name)
    games = {}
    for game in shipped.games:
        entry = dict(shipped.data["games"][game.game])
        if seeds is not None:
            kept = game.seeds[:seeds]
            entry["seeds"] = ",".join(str(seed) for seed in kept)
            by_seed = entry.get("optionsBySeed")
            if by_seed is not None:
                entry["optionsBySeed"] = {k: v for k, v in by_seed.items() if int(k) in kept}
        if max_steps is not None:
            entry["maxSteps"] = min(entry["maxSteps"], max_steps)
        games[game.game] = entry
    # a cut suite plays other slots under other budgets: the shipped baselines are not its
    data = played(shipped.data)
    cut = {**data, "name": f"{data['name']}-cut", "games": games}
    path = folder / f"{data['name']}-cut.json"
    path.write_text(json.dumps(cut), encoding="utf-8")
    return str(path)


@dataclass
class Figures:
    wall: float
    ideal: float
    calls: int
    recorded_calls: int
    longest: int
    cpu: float
    #: of ``cpu``, what starting the command line takes
    start: float
    peak: int
    pings: int
    made: dict[str, tuple[int, int, int]]
    exit_code: int

    @property
    def ratio(self) -> float:
        return self.wall / self.ideal if self.ideal else float("inf")

    @property
    def cpu_per_call(self) -> float:
        """The child's CPU a call, its start-up left out."""
        return max(0.0, self.cpu - self.start) / self.calls if self.calls else float("inf")


def start_cpu() -> float:
    """The CPU seconds of a child that only imports what a bench needs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", IMPORTS], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_bench(
    server: LatencyServer, suite: str, concurrency: int, max_tokens: int, folder: Path
) -> Figures:
    """One bench through the server, in a child process."""
    server.reset()
    out = folder / "bench"
    command = [sys.executable, "-c", f"{START}; raise SystemExit(main())"]
    command += ["bench", "--agent", "llm", "--suite", suite, "--out", str(out)]
    command += ["--model", MODEL, "--base-url", server.base_url, "--api-key-env", KEY_ENV]
    command += ["--concurrency", str(concurrency), "--max-tokens", str(max_tokens)]
    env = {**os.environ, KEY_ENV: "latency-key"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"the bench failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    made: dict[str, tuple[int, int, int]] = {}
    longest = 0
    for runs in sorted(out.glob("*/runs.jsonl")):
        stats = [json.loads(line)["llm"] for line in runs.read_text().splitlines() if line]
        made[runs.parent.name] = (
            sum(row["calls"] for row in stats),
            sum(row["promptTokens"] for row in stats),
            sum(row["completionTokens"] for row in stats),
        )
        longest = max([longest, *(row["calls"] for row in stats)])
    tally = server.tally
    latency = server.latency
    ideal = max(tally.calls * latency / concurrency, longest * latency)
    return Figures(
        wall=wall,
        ideal=ideal,
        calls=tally.calls,
        recorded_calls=sum(calls for calls, _p, _c in made.values()),
        longest=longest,
        cpu=cpu,
        start=start_cpu(),
        peak=tally.peak,
        pings=tally.pings,
        made=made,
        exit_code=done.returncode,
    )


def estimates(suite: str, max_tokens: int) -> dict[str, tuple[int, int, int]]:
    """Per game: the estimate's calls, prompt and completion tokens."""
    llm = LlmSettings(model=MODEL, max_tokens=max_tokens)
    found = {}
    for game in load_suite(suite).games:
        episodes = [(seed, game.options_of(seed)) for seed in game.seeds]
        settings = game.llm_settings(llm) or llm
        estimate = estimate_game(
            game.game, episodes, settings, game.max_steps, game.max_turns, game.max_tokens
        )
        found[game.game] = (estimate.calls, estimate.prompt_tokens, estimate.completion_tokens)
    return found


def report(figures: Figures, bounds: dict[str, tuple[int, int, int]], latency: float) -> bool:
    """Print one run's figures; whether the estimate held."""
    print(f"calls: {figures.calls} (runs.jsonl: {figures.recorded_calls}), pings {figures.pings}")
    print(f"bench exit: {figures.exit_code}")
    print(f"peak in flight: {figures.peak}")
    print(f"longest episode: {figures.longest} calls")
    print(f"wall: {figures.wall:.2f} s")
    print(
        f"ideal: {figures.ideal:.2f} s (calls x latency / concurrency, longest episode "
        f"{figures.longest} x {latency:g} s)"
    )
    print(f"wall / ideal: {figures.ratio:.3f}")
    print(
        f"harness cpu: {figures.cpu:.2f} s, of which start-up {figures.start:.2f} s; "
        f"{figures.cpu_per_call * 1000:.2f} ms a call"
    )
    held = True
    for game, (calls, prompt, completion) in figures.made.items():
        bound = bounds[game]
        ok = calls <= bound[0] and prompt <= bound[1] and completion <= bound[2]
        held = held and ok
        print(
            f"estimate {game}: calls {calls:,} of {bound[0]:,}, prompt tokens {prompt:,} of "
            f"{bound[1]:,}, completion tokens {completion:,} of {bound[2]:,}: "
            f"{'holds' if ok else 'BELOW WHAT THE RUN MADE'}"
        )
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="quick", help="a shipped suite or a suite file")
    parser.add_argument("--latency", type=float, default=0.5, help="seconds a call waits")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--seeds", type=int, default=None, help="the first K seeds a game")
    parser.add_argument("--max-steps", type=int, default=None, help="each game's steps at most")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp, LatencyServer(args.latency) as server:
        folder = Path(temp)
        suite = cut_suite(args.suite, args.seeds, args.max_steps, folder)
        bounds = estimates(suite, args.max_tokens)
        print(f"suite: {load_suite(suite).name}")
        print(f"latency: {args.latency:g} s, concurrency {args.concurrency}")
        runs, held = [], True
        for index in range(args.repeat):
            print(f"-- run {index + 1}")
            figures = run_bench(
                server, suite, args.concurrency, args.max_tokens, folder / str(index)
            )
            held = report(figures, bounds, args.latency) and held
            runs.append(figures)
        ratio = statistics.median(figures.ratio for figures in runs)
        cpu = statistics.median(figures.cpu_per_call for figures in runs)
        print(f"median wall / ideal: {ratio:.3f} (target 1.15)")
        print(f"median harness cpu a call: {cpu * 1000:.2f} ms (target 5)")
        print(f"estimate never below the run: {'yes' if held else 'no'}")
    return 0 if held else 1


if __name__ == "__main__":
    raise SystemExit(main())
