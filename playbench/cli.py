"""The one command: ``playbench play | games | serve | run | bench | report | import | replay
| verify | mcp | prune``."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playbench import __version__
from playbench.core import PlaybenchError, all_games, get_game
from playbench.core.match import Match
from playbench.core.rng import draw_seed

#: what ``playbench --help`` says above the commands (plain words: no markup)
DESCRIPTION = (
    "Deterministic, seeded games for AI agents and the people who play beside them: play "
    "one in the terminal, serve the arena, run agents over many seeds and check their replays."
)
#: HTTP server stacks of ``serve``: uvicorn with httptools and uvloop, granian (Rust), and
#: uvicorn on its pure-Python h11 parser; benchmarks/server_speed.py measures all three.
#: uvicorn is the default because only its stacks take every connection limit below
#: (see playbench/server/stacks.py)
SERVERS = ("uvicorn", "granian", "h11")
DEFAULT_SERVER = "uvicorn"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
#: connections the kernel queues before the server accepts them (a burst of agents)
BACKLOG = 2048
#: an agent calls once per move, seconds apart while it thinks: keep its connection open
#: that long, and no longer (a client holding idle connections gets them closed)
KEEP_ALIVE_SECONDS = 20
#: a request's headers and body arrive within this (an agent's are a few kilobytes)
REQUEST_SECONDS = 10
#: the metrics client's folder for the samples of every worker (see server/metrics.py)
METRICS_FOLDER_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: connections one worker holds at once; one more is answered 503
MAX_CONNECTIONS = 1000
#: connections one worker holds at once from one client address (trusted proxies excepted)
MAX_CONNECTIONS_PER_ADDRESS = 100
#: ... and from one address group (an IPv4 /24, an IPv6 /64): a fifth of the worker's cap
MAX_CONNECTIONS_PER_GROUP = 200


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.options:
        try:
            options = json.loads(args.options)
        except json.JSONDecodeError as error:
            raise PlaybenchError(f"--options is not valid JSON: {error}") from None
        if not isinstance(options, dict):
            raise PlaybenchError("--options must be a JSON object")
    if args.level is not None:
        options["startLevel"] = args.level
    return options


#: the highest TCP port
MAX_PORT = 65535


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)") from None
    if not 1 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1-65535)")
    return value


def cmd_play(args: argparse.Namespace) -> int:
    from playbench.terminal import TerminalSession, require_terminal, run_curses

    options = _options(args)
    game = get_game(args.game)
    if args.seed is not None and not game.seeded:
        raise PlaybenchError(
            f"{game.name}'s seed changes nothing (every run plays the same levels): drop "
            "--seed; --level or --options choose where it starts"
        )
    seed = args.seed if args.seed is not None else draw_seed()
    match = Match.start(game, seed, options)
    require_terminal()
    session = TerminalSession(match)
    run_curses(session)
    sys.stdout.write(session.summary() + "\n")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    for game in all_games():
        entry = game.describe()
        sys.stdout.write(f"{entry['slug']:<12} {entry['name']}: {entry['goal']}\n")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    # every worker writes its metrics to files here, read together by any worker's scrape;
    # set before the metrics client is first imported (here and in each worker)
    if os.environ.get(METRICS_FOLDER_ENV):
        return _serve(args)
    with tempfile.TemporaryDirectory(prefix="playbench-metrics-") as folder:
        os.environ[METRICS_FOLDER_ENV] = folder
        try:
            return _serve(args)
        finally:
            del os.environ[METRICS_FOLDER_ENV]


def _serve(args: argparse.Namespace) -> int:
    from playbench.server import stacks
    from playbench.server.connections import ConnectionLimits
    from playbench.server.services import build_services
    from playbench.server.settings import (
        ENV_ABANDON_AFTER_HOURS,
        ENV_FORWARDED_ALLOW_IPS,
        ENV_METRICS_ALLOW_IPS,
        ENV_PRUNE_AFTER_HOURS,
        ENV_PRUNE_EVERY_MINUTES,
        ENV_RATE_NEW_PER_ADDRESS,
        ENV_RATE_PER_ADDRESS,
        ENV_RATE_PER_SESSION,
        ENV_RATE_REGISTER,
    )

    for value, name in (
        (args.rate_per_address, ENV_RATE_PER_ADDRESS),
        (args.rate_per_session, ENV_RATE_PER_SESSION),
        (args.rate_register, ENV_RATE_REGISTER),
        (args.rate_new_per_address, ENV_RATE_NEW_PER_ADDRESS),
        (args.forwarded_allow_ips, ENV_FORWARDED_ALLOW_IPS),
        (args.metrics_allow_ips, ENV_METRICS_ALLOW_IPS),
        (args.prune_after_hours, ENV_PRUNE_AFTER_HOURS),
        (args.prune_every_minutes, ENV_PRUNE_EVERY_MINUTES),
        (args.abandon_after_hours, ENV_ABANDON_AFTER_HOURS),
    ):
        if value is not None:
            os.environ[name] = str(value)
    if args.server == "granian":
        try:
            import granian  # noqa: F401
        except ImportError:
            raise PlaybenchError(
                "--server granian needs granian: pip install 'playbench[granian]'"
            ) from None
    # create the data folder, the sealing key and the tables once, before any worker starts
    settings = _server_settings(args)
    build_services(settings).close()
    if args.server == "granian":
        sys.stderr.write(f"playbench: {stacks.GRANIAN_UNGUARDED}\n")
    stacks.run(
        stacks.ServeOptions(
            server=args.server,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_level=args.log_level,
            access_log=args.access_log,
            backlog=args.backlog,
            limits=ConnectionLimits(
                idle_seconds=args.keep_alive,
                request_seconds=args.request_timeout,
                max_connections=args.max_connections,
                per_address=args.max_connections_per_address,
                trusted=settings.forwarded_allow_ips,
                per_group=args.max_connections_per_group,
            ),
        )
    )
    return 0


def _tell_unwritten(failures: list[Any], interrupted: bool, stopped_at_cost: bool = False) -> bool:
    """Name each episode not written on stderr; True when the run was stopped (Ctrl-C or
    ``--max-cost``)."""
    for failure in failures:
        seed = failure.task.seed if failure.task.seed is not None else "ranked"
        game = f"{failure.game} " if failure.game else ""
        sys.stderr.write(f"playbench: episode {game}{seed} not written: {failure.message}\n")
    if interrupted:
        sys.stderr.write(
            "playbench: interrupted; every finished episode is written and every episode in "
            "flight kept its turns: run the same command again to resume\n"
        )
    if stopped_at_cost:
        sys.stderr.write(
            "playbench: --max-cost reached; every finished episode is written and every "
            "episode in flight kept its turns: raise --max-cost and run again to resume\n"
        )
    return interrupted or stopped_at_cost


def _prices(args: argparse.Namespace) -> Any:
    from playbench.runner.run import Prices, RunError

    for flag, value in (
        ("--price-in", args.price_in),
        ("--price-out", args.price_out),
        ("--max-cost", args.max_cost),
    ):
        if value is not None and not (math.isfinite(value) and value >= 0):
            raise RunError(f"{flag} must be a number of dollars, at least 0, got {value:g}")
    if args.max_cost is not None and args.price_in is None and args.price_out is None:
        raise RunError("--max-cost needs the prices: give --price-in and --price-out")
    return Prices(args.price_in, args.price_out, args.max_cost)


def _estimate(args: argparse.Namespace, runs: list[tuple[Any, list[int], Any]]) -> int:
    """Print the most calls, tokens and dollars the runs can take; no call is made.
    ``runs``: (episode spec, seeds, options by seed) per game."""
    from rich.console import Console

    from playbench.agents.llm import DEFAULT_CONCURRENCY
    from playbench.runner.estimate import estimate_game, estimate_table
    from playbench.runner.run import RunError

    if args.agent != "llm":
        raise RunError("--estimate bounds what a model's calls take: it needs --agent llm")
    prices = _prices(args)
    estimates = []
    for spec, seeds, by_seed in runs:
        if spec.llm is None:
            raise RunError("--estimate needs --model (the settings of the calls it bounds)")
        episodes = [(seed, {**(spec.options or {}), **by_seed.get(seed, {})}) for seed in seeds]
        estimates.append(
            estimate_game(
                spec.game, episodes, spec.llm, spec.max_steps, spec.max_turns, spec.max_tokens
            )
        )
    per_call = args.seconds_per_call
    if per_call is not None and not per_call > 0:
        raise RunError(f"--seconds-per-call must be more than 0, got {per_call:g}")
    concurrency = args.concurrency or DEFAULT_CONCURRENCY
    out = Console(width=None if sys.stdout.isatty() else 160)
    table = estimate_table(estimates, prices.price_in, prices.price_out, per_call, concurrency)
    out.print(table)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from playbench.runner.episode import EpisodeSpec
    from playbench.runner.run import (
        DEFAULT_SEEDS,
        RunError,
        RunRequest,
        execute,
        no_model_turn,
        prepare,
        results_table,
    )
    from playbench.runner.seeds import parse_seeds

    if args.ranked is not None and args.seeds is not None:
        raise RunError("--ranked lets the server draw the seeds; drop --seeds")
    seeds = [] if args.ranked is not None else parse_seeds(args.seeds or DEFAULT_SEEDS)
    spec = EpisodeSpec(
        game=args.game,
        agent=args.agent,
        llm=_llm_settings(args),
        options=_options(args) or None,
        max_steps=args.max_steps,
        server=args.server,
        player=args.player,
        player_key_env=args.player_key_env,
        max_turns=args.max_turns,
        max_tokens=args.max_tokens_per_episode,
        concurrency=args.concurrency,
    )
    if args.estimate:
        return _estimate(args, [(spec, seeds, {})])
    prices = _prices(args)
    plan = prepare(
        RunRequest(
            spec=spec,
            seeds=seeds,
            ranked=args.ranked,
            out=Path(args.out) if args.out else None,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
        )
    )
    report = execute(plan, Console(stderr=True), prices)
    idle = no_model_turn(report.summary)
    out = Console(width=None if sys.stdout.isatty() else 160)
    if report.summary["episodes"]:
        out.print(results_table(report.summary))
    skipped = len(plan.done)
    already = f" ({skipped} already there)" if skipped else ""
    out.print(f"{report.written} episodes written to {plan.folder.path}{already}")
    if _tell_unwritten(report.failures, report.interrupted, report.stopped_at_cost):
        return 130 if report.interrupted else 1
    if idle is not None:
        sys.stderr.write(f"playbench: {idle}\n")
        return 1
    return 1 if report.failures else 0


#: the flags of ``run`` that only the llm agent takes, with their settings' names
LLM_FLAGS = {
    "model": "--model",
    "base_url": "--base-url",
    "api_key_env": "--api-key-env",
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "timeout": "--timeout",
    "retries": "--retries",
    "reply_format": "--reply-format",
    "fallback": "--fallback",
    "memory": "--memory",
    "reflect": "--reflect",
    "vision": "--vision",
}


def _llm_settings(args: argparse.Namespace) -> Any:
    """The llm agent's settings from the flags; a flag of it with another agent is an
    error, not ignored."""
    from playbench.agents import LlmSettings

    given = {name: getattr(args, name) for name in LLM_FLAGS if getattr(args, name) is not None}
    if args.agent != "llm":
        if given:
            flags = ", ".join(LLM_FLAGS[name] for name in given)
            verb = "applies" if len(given) == 1 else "apply"
            raise PlaybenchError(f"{flags} {verb} to --agent llm only (the agent is {args.agent})")
        return None
    if "model" not in given:
        return None
    return LlmSettings(**given)


def _check_publish(args: argparse.Namespace) -> None:
    """``--publish`` and ``--player`` checked before anything is played or written."""
    if args.publish:
        from playbench.runner.publish import player_key

        player_key(args.player, args.player_key_env)
    elif args.player:
        raise PlaybenchError("--player names who publishes: it needs --publish URL")


def _publish_the_models(args: argparse.Namespace, bench: Any, folder: Path, out: Any) -> bool:
    """Say what keeps a bench from being the model's result, and publish it with
    ``--publish`` when nothing does; True when it is no result of the model's."""
    from playbench.runner.bench import model_problems

    invalid, flagged = model_problems(bench)
    for line in [*invalid, *flagged]:
        sys.stderr.write(f"playbench: {line}\n")
    if invalid:
        sys.stderr.write(
            "playbench: this is no result of the model's: it is not published, and "
            "playbench report refuses it\n"
        )
        return True
    if args.publish:
        from playbench.runner.publish import publish

        shown = publish(folder, args.publish, args.player, args.player_key_env)
        out.print(f"published on {args.publish}/bench as {shown['id']}")
    return False


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console

    from playbench.runner.bench import BenchRequest, execute_bench, prepare_bench
    from playbench.runner.bench_table import bench_table
    from playbench.runner.episode import EpisodeSpec
    from playbench.runner.suite import load_suite

    _check_publish(args)
    suite = load_suite(args.suite)
    llm = _llm_settings(args)
    if args.estimate:
        return _estimate(
            args,
            [
                (
                    EpisodeSpec(
                        game=entry.game,
                        agent=args.agent,
                        llm=entry.llm_settings(llm),
                        options=entry.options or None,
                        max_steps=entry.max_steps,
                        max_turns=entry.max_turns,
                        max_tokens=entry.max_tokens,
                    ),
                    entry.seeds,
                    entry.options_by_seed,
                )
                for entry in suite.games
            ],
        )
    prices = _prices(args)
    plan = prepare_bench(
        BenchRequest(
            suite=suite,
            agent=args.agent,
            llm=llm,
            out=Path(args.out) if args.out else None,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            concurrency=args.concurrency,
        )
    )
    report = execute_bench(plan, Console(stderr=True), prices)
    out = Console(width=None if sys.stdout.isatty() else 160)
    invalid = False
    if report.bench is not None:
        out.print(bench_table(report.bench))
        out.print(f"bench.json written to {plan.folder}")
        invalid = _publish_the_models(args, report.bench, plan.folder, out)
    if _tell_unwritten(report.failures, report.interrupted, report.stopped_at_cost):
        return 130 if report.interrupted else 1
    return 1 if report.failures or invalid else 0


def cmd_report(args: argparse.Namespace) -> int:
    from playbench.runner.report import load_entries, pairs, write_report

    folders = [_bench_of(Path(folder), Path(args.out)) for folder in args.folders]
    written = write_report(folders, Path(args.out))
    for pair in pairs(load_entries(folders)):
        slots = len(pair.differences)
        sys.stdout.write(f"{pair.sentence()} ({slots} slot{'' if slots == 1 else 's'})\n")
    sys.stdout.write(f"{len(written)} files written to {args.out} (open {written[-2]})\n")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from playbench.runner.playback import (
        MAX_SPEED,
        MIN_SPEED,
        Playback,
        print_playback,
        run_playback,
    )
    from playbench.runner.replay import read_replay

    if not MIN_SPEED <= args.speed <= MAX_SPEED:
        raise PlaybenchError(f"--speed must be between {MIN_SPEED:g} and {MAX_SPEED:g}")
    playback = Playback.of(read_replay(Path(args.file)))
    if sys.stdout.isatty():
        run_playback(playback, args.speed)
    else:
        print_playback(playback, sys.stdout)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from playbench.runner.bench import BENCH, verify_bench
    from playbench.runner.replay import verify_path, verify_session

    if args.server is not None:
        verdict = verify_session(args.server, args.path)
        if not verdict.ok:
            sys.stdout.write(f"MISMATCH {verdict.path}: {verdict.problem}\n")
            return 1
        sys.stdout.write(
            f"ok: session {args.path} replays to score {verdict.score} and fingerprint "
            f"{verdict.fingerprint}, as the server stored them\n"
        )
        return 0
    path = Path(args.path)
    if not path.exists():
        raise PlaybenchError(f"{path}: no such file or folder")
    if _is_inspect_log(path):
        return _verify_inspect_log(path)
    problems: list[str] = []
    if (path / BENCH).is_file():
        verdicts, problems = verify_bench(path)
    else:
        verdicts = verify_path(path)
    bad = [verdict for verdict in verdicts if not verdict.ok]
    for verdict in bad:
        sys.stdout.write(f"MISMATCH {verdict.path}: {verdict.problem}\n")
    for problem in problems:
        sys.stdout.write(f"MISMATCH {problem}\n")
    replays = sum(1 for verdict in verdicts if verdict.ok)
    for verdict in verdicts:
        if verdict.ok and verdict.resumed:
            steps = ", ".join(str(step) for step in verdict.resumed)
            sys.stdout.write(f"{verdict.path}: resumed at step {steps}\n")
    if bad or problems:
        sys.stdout.write(f"{len(bad) + len(problems)} mismatch(es); {replays} replay(s) match\n")
        return 1
    sys.stdout.write(f"ok: {replays} replay(s) match their final score and fingerprint\n")
    return 0


# -- the Inspect door: an Inspect log read as run and bench folders (docs/inspect.md) ------


def _is_inspect_log(path: Path) -> bool:
    from playbench.runner.inspect_log import is_eval_log

    return is_eval_log(path)


def _bench_of(path: Path, out: Path) -> Path:
    """A report's bench folder: the folder itself, or an Inspect log's, imported into
    ``<out>/inspect/<log name>`` (where the report's replay links lead)."""
    if not _is_inspect_log(path):
        return path
    import shutil

    from playbench.runner.inspect_log import import_log

    folder = out / "inspect" / path.stem
    shutil.rmtree(folder, ignore_errors=True)
    written = import_log(path, folder)
    if written.bench is None:
        raise PlaybenchError(f"{path} cannot be reported: {written.incomplete}")
    return folder


def _verify_inspect_log(path: Path) -> int:
    from playbench.runner.inspect_log import verify_log

    written = verify_log(path)
    for problem in written.problems:
        sys.stdout.write(f"MISMATCH {problem}\n")
    for skipped in written.skipped:
        sys.stdout.write(f"not scored: {skipped}\n")
    episodes = sum(written.games.values())
    if written.problems:
        sys.stdout.write(f"{len(written.problems)} mismatch(es) in {path}\n")
        return 1
    sys.stdout.write(
        f"ok: {episodes} episode(s) of {path} replay to their final score and fingerprint\n"
    )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from playbench.runner.inspect_log import import_log

    _check_publish(args)
    written = import_log(Path(args.log), Path(args.out))
    for skipped in written.skipped:
        sys.stderr.write(f"playbench: not imported: {skipped}\n")
    games = ", ".join(f"{slug} {count}" for slug, count in written.games.items())
    sys.stdout.write(f"{sum(written.games.values())} episodes ({games}) written to {args.out}\n")
    if written.bench is None:
        sys.stdout.write(f"{written.incomplete}\n")
        if args.publish:
            raise PlaybenchError(f"only a whole bench is published: {written.incomplete}")
        return 0
    from rich.console import Console

    from playbench.runner.bench_table import bench_table

    out = Console(width=None if sys.stdout.isatty() else 160)
    out.print(bench_table(written.bench))
    return 1 if _publish_the_models(args, written.bench, Path(args.out), out) else 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from playbench.mcp.server import run_stdio

    run_stdio()
    return 0


def cmd_openenv(args: argparse.Namespace) -> int:
    import uvicorn

    from playbench.train import TRAIN_EXTRA

    game = get_game(args.game)
    try:
        from playbench.train.openenv import openenv_app
    except ImportError:
        raise PlaybenchError(TRAIN_EXTRA) from None
    if args.cap < 1 or args.idle <= 0:
        raise PlaybenchError("--cap must be at least 1 and --idle more than 0 seconds")
    app = openenv_app(game, cap=args.cap, idle_seconds=args.idle)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _server_settings(args: argparse.Namespace) -> Any:
    """The server's settings from the environment, after the flags set it."""
    from playbench.server.settings import ENV_DATA, ENV_DATABASE, Settings

    if args.data:
        os.environ[ENV_DATA] = args.data
    if args.database:
        os.environ[ENV_DATABASE] = args.database
    try:
        return Settings.from_env()
    except ValueError as error:
        raise PlaybenchError(str(error)) from None


def cmd_prune(args: argparse.Namespace) -> int:
    from playbench.server.services import build_services
    from playbench.server.settings import ENV_ABANDON_AFTER_HOURS, ENV_PRUNE_AFTER_HOURS

    for value, flag, name in (
        (args.older_than_hours, "--older-than-hours", ENV_PRUNE_AFTER_HOURS),
        (args.abandon_after_hours, "--abandon-after-hours", ENV_ABANDON_AFTER_HOURS),
    ):
        if value is not None:
            if value < 0:
                raise PlaybenchError(f"{flag} must be 0 or more")
            os.environ[name] = str(value)
    services = build_services(_server_settings(args))
    try:
        report = services.prune()
    finally:
        services.close()
    sys.stdout.write(
        f"closed {report.abandoned} idle ranked sessions as abandoned; "
        f"pruned {report.sessions} unfinished sessions ({report.actions} logged commands) "
        f"and {report.puzzles} spent puzzles\n"
    )
    return 0


def _add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=int, help="processes for agents that need CPU (default: one per CPU)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        help="episodes in flight at once for an agent that waits on the network (the llm "
        "agent, --server play), in one process, across every game (default 16; a 429 "
        "lowers it for a while)",
    )
    parser.add_argument("--backend", default="local", help="local (processes) or ray")
    parser.add_argument("--ray-address", help="join this Ray cluster instead of starting one")


def _add_cost_arguments(parser: argparse.ArgumentParser) -> None:
    cost = parser.add_argument_group("what a model's run may take")
    cost.add_argument(
        "--estimate",
        action="store_true",
        help="print the most calls, tokens and cost the run can take, and call nothing",
    )
    cost.add_argument(
        "--seconds-per-call",
        type=float,
        metavar="S",
        help="with --estimate, the most time too: S seconds a call (measured: a run's "
        "summary.json seconds / calls), --concurrency at once",
    )
    cost.add_argument("--price-in", type=float, help="dollars per million prompt tokens")
    cost.add_argument("--price-out", type=float, help="dollars per million completion tokens")
    cost.add_argument(
        "--max-cost",
        type=float,
        help="stop cleanly once this many dollars are spent (episodes in flight resume)",
    )


def _add_publish_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that publish a bench on a server, the same for ``bench`` and ``import``."""
    publish = parser.add_argument_group("publish the result on a playbench server")
    publish.add_argument("--publish", metavar="URL", help="the server, e.g. http://127.0.0.1:8000")
    publish.add_argument("--player", help="a name registered there (POST /api/players)")
    publish.add_argument(
        "--player-key-env",
        default="PLAYBENCH_PLAYER_KEY",
        help="variable that holds the player's key (default PLAYBENCH_PLAYER_KEY)",
    )


def _add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The llm agent's flags, the same for ``run`` and ``bench``; their defaults are
    :class:`~playbench.agents.LlmSettings`'s, so a flag given with another agent is seen."""
    llm = parser.add_argument_group("the llm agent (any OpenAI-compatible endpoint)")
    llm.add_argument("--model", help="model name")
    llm.add_argument("--base-url", help="endpoint, e.g. http://127.0.0.1:8080/v1")
    llm.add_argument("--api-key-env", help="variable that holds the key (OPENAI_API_KEY)")
    llm.add_argument("--temperature", type=float, help="sampling temperature (0)")
    llm.add_argument("--max-tokens", type=int, help="most tokens per reply (512)")
    llm.add_argument("--timeout", type=float, help="seconds per call (120)")
    llm.add_argument(
        "--retries", type=int, help="retries of a 429, 5xx or timed-out call, with backoff (4)"
    )
    llm.add_argument(
        "--reply-format",
        help="text, json_object, or json_schema (default: the reply's schema with the "
        "legal moves as an enum)",
    )
    llm.add_argument(
        "--fallback",
        help="what plays a turn the model failed twice: bot (default), random or wait "
        "(Cogcrawl keeps its delver)",
    )
    llm.add_argument("--memory", type=int, help="the last N turns in the prompt (1)")
    llm.add_argument(
        "--reflect", type=int, help="every K turns the model rewrites its notes (0: never)"
    )
    llm.add_argument(
        "--vision",
        action="store_const",
        const=True,
        help="send the board's picture as a PNG (pip install 'playbench[vision]')",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="playbench",
        description=DESCRIPTION,
        epilog="Each command has its own --help, e.g. playbench run --help.",
    )
    parser.add_argument("--version", action="version", version=f"playbench {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play a game in the terminal")
    play.add_argument("game", help="game slug, e.g. delvewick")
    play.add_argument(
        "--seed",
        type=int,
        help="seed (random when left out; refused by a game whose seed changes nothing, "
        "such as Delvewick)",
    )
    play.add_argument("--level", type=int, help="start level (games with levels)")
    play.add_argument("--options", help="game options as a JSON object")
    play.set_defaults(run=cmd_play)

    games = commands.add_parser("games", help="list the games")
    games.set_defaults(run=cmd_games)

    serve = commands.add_parser("serve", help="run the arena server (HTTP API and pages)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (1-65535)")
    serve.add_argument(
        "--data", help="data folder for the SQLite database and the key (default ./data)"
    )
    serve.add_argument("--database", help="any SQLAlchemy URL (default SQLite in the data folder)")
    serve.add_argument(
        "--server",
        choices=SERVERS,
        default=DEFAULT_SERVER,
        help=f"HTTP server stack (default {DEFAULT_SERVER}; h11 is uvicorn's pure-Python parser)",
    )
    serve.add_argument("--workers", type=_positive, default=1, help="worker processes")
    serve.add_argument("--log-level", default="info", choices=LOG_LEVELS, help="server log level")
    serve.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="log each request (off by default: under load it costs more than the route)",
    )
    serve.add_argument(
        "--backlog", type=_positive, default=BACKLOG, help="connections waiting to be accepted"
    )
    serve.add_argument(
        "--keep-alive",
        type=_positive,
        default=KEEP_ALIVE_SECONDS,
        help=f"seconds a connection may stay silent, before or between requests "
        f"(default {KEEP_ALIVE_SECONDS})",
    )
    serve.add_argument(
        "--request-timeout",
        type=_positive,
        default=REQUEST_SECONDS,
        help=f"seconds a request's headers and body may take to arrive, else 408 "
        f"(default {REQUEST_SECONDS}; granian: headers only)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive,
        default=MAX_CONNECTIONS,
        help=f"connections a worker holds at once; at the cap an idle one makes room, else "
        f"503 (default {MAX_CONNECTIONS}; uvicorn stacks)",
    )
    serve.add_argument(
        "--max-connections-per-address",
        type=_positive,
        default=MAX_CONNECTIONS_PER_ADDRESS,
        help=f"connections a worker holds at once from one address, more are answered 503 "
        f"(default {MAX_CONNECTIONS_PER_ADDRESS}; trusted proxies excepted; uvicorn stacks)",
    )
    serve.add_argument(
        "--max-connections-per-group",
        type=_positive,
        default=MAX_CONNECTIONS_PER_GROUP,
        help=f"connections a worker holds at once from one address group (an IPv4 /24, an "
        f"IPv6 /64), never fewer than per address; at the cap an idle one of the group makes "
        f"room, else 503 (default {MAX_CONNECTIONS_PER_GROUP}; uvicorn stacks)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="proxies (addresses or networks, comma-separated) trusted to name the client in "
        "X-Forwarded-For (default none: the client is the connection's peer)",
    )
    serve.add_argument(
        "--metrics-allow-ips",
        metavar="IPS",
        help="addresses or networks that may read /metrics (default 127.0.0.1,::1)",
    )
    serve.add_argument(
        "--rate-per-address",
        metavar="RATE/BURST",
        help="requests a second and burst per client address (default 200/400; 0: no limit)",
    )
    serve.add_argument(
        "--rate-per-session",
        metavar="RATE/BURST",
        help="requests a second and burst per session token (default 100/200; 0: no limit)",
    )
    serve.add_argument(
        "--rate-register",
        metavar="RATE/BURST",
        help="player registrations a second and burst per client address (default ten an "
        "hour: 0.00277778/10; 0: no limit)",
    )
    serve.add_argument(
        "--rate-new-per-address",
        metavar="RATE/BURST",
        help="new sessions a second and burst per client address, across every host on one "
        "database (default 0.2/30; 0: no limit)",
    )
    serve.add_argument(
        "--prune-after-hours", type=float, help="unfinished sessions idle this long are pruned"
    )
    serve.add_argument(
        "--prune-every-minutes", type=float, help="minutes between prunes (0: never)"
    )
    serve.add_argument(
        "--abandon-after-hours",
        type=float,
        help="a ranked session idle this long is closed as abandoned at its score, and "
        "counts (default 1; checked at every prune)",
    )
    serve.set_defaults(run=cmd_serve)

    run = commands.add_parser("run", help="run an agent over many seeds; results and replays")
    run.add_argument("game", help="game slug, e.g. delvewick")
    run.add_argument("--agent", required=True, help="random, bot or llm")
    run.add_argument("--seeds", help="seeds to play: 0-49, 1,5,9 or a mix (default 0-9)")
    _add_backend_arguments(run)
    run.add_argument("--out", help="run folder (default runs/<game>-<agent>-<UTC time>)")
    run.add_argument("--max-steps", type=int, default=100_000, help="cut an episode here")
    run.add_argument("--level", type=int, help="start level (games with levels)")
    run.add_argument("--options", help="game options as a JSON object")
    remote = run.add_argument_group("remote play on a playbench server")
    remote.add_argument("--server", help="the server's URL, e.g. http://127.0.0.1:8000")
    remote.add_argument(
        "--player", help="a name registered on the server (POST /api/players), 1-40 characters"
    )
    remote.add_argument(
        "--player-key-env",
        default="PLAYBENCH_PLAYER_KEY",
        help="variable that holds the player's key (default PLAYBENCH_PLAYER_KEY)",
    )
    remote.add_argument("--ranked", type=int, help="N ranked games on seeds the server draws")
    _add_llm_arguments(run)
    budgets = run.add_argument_group("a model's budget per episode (ends it truncated)")
    budgets.add_argument("--max-turns", type=int, help="model calls an episode")
    budgets.add_argument(
        "--max-tokens-per-episode", type=int, help="prompt plus completion tokens an episode"
    )
    _add_cost_arguments(run)
    run.set_defaults(run=cmd_run)

    bench = commands.add_parser(
        "bench", help="an agent over a whole suite: per-game figures and one headline"
    )
    bench.add_argument("--agent", required=True, help="random, bot or llm")
    bench.add_argument(
        "--suite",
        default="suite-v2",
        help="a shipped suite (models-v2, suite-v2, quick) or the path of a suite file "
        "(default suite-v2)",
    )
    bench.add_argument("--out", help="bench folder (default runs/bench-<suite>-<agent>-<UTC time>)")
    _add_backend_arguments(bench)
    _add_publish_arguments(bench)
    _add_llm_arguments(bench)
    _add_cost_arguments(bench)
    bench.set_defaults(run=cmd_bench)

    report = commands.add_parser(
        "report",
        help="compare bench folders: an HTML page, PNG charts and report.md; every two "
        "agents' paired difference per game and on the headline, with its 95%% interval",
    )
    report.add_argument(
        "folders", nargs="+", metavar="DIR", help="bench folders or Inspect logs (.eval)"
    )
    report.add_argument("--out", default="report", help="report folder (default ./report)")
    report.set_defaults(run=cmd_report)

    imported = commands.add_parser(
        "import",
        help="an Inspect log (inspect eval playbench/...) as the run and bench folders of "
        "playbench bench, every episode re-simulated",
    )
    imported.add_argument("log", help="an Inspect log file, e.g. logs/...playbench-suite....eval")
    imported.add_argument("--out", required=True, help="a new bench folder")
    _add_publish_arguments(imported)
    imported.set_defaults(run=cmd_import)

    replay = commands.add_parser("replay", help="play a replay file back in the terminal")
    replay.add_argument("file", help="a replay file, e.g. runs/.../replays/delvewick-0.jsonl")
    replay.add_argument("--speed", type=float, default=10.0, help="actions per second")
    replay.set_defaults(run=cmd_replay)

    verify = commands.add_parser("verify", help="re-simulate replays; exit 1 on a mismatch")
    verify.add_argument(
        "path",
        help="a replay file, a run folder or an Inspect log (.eval); with --server, a session id",
    )
    verify.add_argument(
        "--server",
        help="fetch a finished ranked session's revealed seed, options and log from this "
        "server and re-simulate them (exit 0 when score and fingerprint match, 1 when not)",
    )
    verify.set_defaults(run=cmd_verify)

    prune = commands.add_parser(
        "prune",
        help="close idle ranked games as abandoned, delete stale unfinished sessions and spent "
        "puzzles (finished ones stay)",
    )
    prune.add_argument("--data", help="data folder (default ./data)")
    prune.add_argument("--database", help="any SQLAlchemy URL (default SQLite in the data folder)")
    prune.add_argument(
        "--older-than-hours",
        type=float,
        help="unfinished sessions idle this long go (default 168, or PLAYBENCH_PRUNE_AFTER_HOURS)",
    )
    prune.add_argument(
        "--abandon-after-hours",
        type=float,
        help="ranked sessions idle this long are closed as abandoned first, and count "
        "(default 1, or PLAYBENCH_ABANDON_AFTER_HOURS)",
    )
    prune.set_defaults(run=cmd_prune)

    mcp = commands.add_parser(
        "mcp", help="serve the games to an MCP client on stdio (HTTP: /mcp on serve)"
    )
    mcp.set_defaults(run=cmd_mcp)

    openenv = commands.add_parser(
        "openenv", help="serve one game as an OpenEnv environment (serve mounts every game)"
    )
    openenv.add_argument("game", help="the game's slug (playbench games lists them)")
    openenv.add_argument("--host", default="127.0.0.1")
    openenv.add_argument("--port", type=int, default=8000)
    openenv.add_argument(
        "--cap", type=int, default=1024, help="episodes held at once (default 1024)"
    )
    openenv.add_argument(
        "--idle",
        type=float,
        default=600.0,
        help="seconds untouched before an episode is dropped (default 600)",
    )
    openenv.set_defaults(run=cmd_openenv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except PlaybenchError as error:
        sys.stderr.write(f"playbench: {error}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
