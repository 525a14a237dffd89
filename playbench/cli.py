"""The one command: ``playbench play | games | serve | mcp``."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Sequence
from typing import Any

from playbench import __version__
from playbench.core import PlaybenchError, all_games, get_game
from playbench.core.match import Match
from playbench.core.rng import MAX_SEED

#: HTTP server stacks of ``serve``: granian (Rust), uvicorn with httptools and uvloop, and
#: uvicorn on its pure-Python h11 parser; benchmarks/server_speed.py measures all three
#: (granian and uvicorn spent about the same CPU per action request, but uvicorn's p99
#: reached seconds under overload where granian's stayed under 0.4 s)
SERVERS = ("granian", "uvicorn", "h11")
DEFAULT_SERVER = "granian"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
#: connections the kernel queues before the server accepts them (a burst of agents)
BACKLOG = 2048
#: an agent calls once per move, seconds apart while it thinks: keep its connection open
KEEP_ALIVE_SECONDS = 30


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


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def cmd_play(args: argparse.Namespace) -> int:
    from playbench.terminal import TerminalSession, require_terminal, run_curses

    options = _options(args)
    seed = args.seed if args.seed is not None else secrets.randbelow(MAX_SEED + 1)
    match = Match.start(get_game(args.game), seed, options)
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
    from playbench.server import stacks
    from playbench.server.services import build_services
    from playbench.server.settings import ENV_DATA, ENV_DATABASE, Settings

    if args.data:
        os.environ[ENV_DATA] = args.data
    if args.database:
        os.environ[ENV_DATABASE] = args.database
    # create the data folder, the sealing key and the tables once, before any worker starts
    build_services(Settings.from_env()).close()
    stacks.run(
        stacks.ServeOptions(
            server=args.server,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_level=args.log_level,
            access_log=args.access_log,
            backlog=args.backlog,
            keep_alive_seconds=args.keep_alive,
        )
    )
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from playbench.mcp.server import run_stdio

    run_stdio()
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
    from playbench.server.settings import ENV_PRUNE_AFTER_HOURS

    if args.older_than_hours is not None:
        if args.older_than_hours < 0:
            raise PlaybenchError("--older-than-hours must be 0 or more")
        os.environ[ENV_PRUNE_AFTER_HOURS] = str(args.older_than_hours)
    services = build_services(_server_settings(args))
    try:
        report = services.prune()
    finally:
        services.close()
    sys.stdout.write(
        f"pruned {report.sessions} unfinished sessions ({report.actions} logged commands) "
        f"and {report.puzzles} spent puzzles\n"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playbench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"playbench {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play a game in the terminal")
    play.add_argument("game", help="game slug, e.g. delvewick")
    play.add_argument("--seed", type=int, help="seed (random when left out)")
    play.add_argument("--level", type=int, help="start level (games with levels)")
    play.add_argument("--options", help="game options as a JSON object")
    play.set_defaults(run=cmd_play)

    games = commands.add_parser("games", help="list the games")
    games.set_defaults(run=cmd_games)

    serve = commands.add_parser("serve", help="run the arena server (HTTP API and pages)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
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
        help="seconds an idle keep-alive connection stays open (uvicorn stacks)",
    )
    serve.set_defaults(run=cmd_serve)

    prune = commands.add_parser(
        "prune", help="delete stale unfinished sessions and spent puzzles (finished ones stay)"
    )
    prune.add_argument("--data", help="data folder (default ./data)")
    prune.add_argument("--database", help="any SQLAlchemy URL (default SQLite in the data folder)")
    prune.add_argument(
        "--older-than-hours",
        type=float,
        help="unfinished sessions idle this long go (default 168, or PLAYBENCH_PRUNE_AFTER_HOURS)",
    )
    prune.set_defaults(run=cmd_prune)

    mcp = commands.add_parser(
        "mcp", help="serve the games to an MCP client on stdio (HTTP: /mcp on serve)"
    )
    mcp.set_defaults(run=cmd_mcp)
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
