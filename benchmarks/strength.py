"""Strength of the four bots beside their simpler baselines: one run, one table.

    nice python benchmarks/strength.py [--games delvewick,chimestep,gem-swap,cogcrawl]
        [--quick] [--jobs 2] [--seeds GAME=FIRST-LAST ...] [--record]

Every player plays whole runs through ``playbench.core.match.Match`` and sees only
``Match.view()``; the runs are the per-game strength scripts' own (imported from
``strength_delvewick``, ``strength_chimestep``, ``strength_gemswap``,
``strength_cogcrawl``). Per game and player:

- **Delvewick** (score; the game has no randomness, so one run on seed 0 is the figure,
  no interval): the bot, the nearest-goal baseline and the solutions shipped before the
  beam search (``solve_delvewick.REFERENCE``). Target: more than
  ``solve_delvewick.TARGET_TOTAL`` points.
- **Chimestep** (stage reached, seeds 0-19; a run stops at stage 31, which then counts
  as 31, so the figures can only be understated by the cap): the lookahead bot and the
  greedy bot. Target: median stage at least 30.
- **Gem Swap** (score, seeds 0-99): the search bot and the visible-board greedy.
  Target: mean at least 6,000.
- **Cogcrawl** (deepest level, seeds 0-49, at most 3,000 seat turns a run): the delver
  and the random agent (the delver before the rebalance is not importable). Targets:
  the Cogheart in at least 25% of runs, median deepest level at least 8.

The interval is the 95% percentile bootstrap interval of the mean (10,000 seeded
resamples, ``strength_gemswap.bootstrap``). Time per move is each script's own measure:
Delvewick the decision (wall time), Chimestep one ``act`` plus one ``play`` (wall
time), Gem Swap the ``act`` (process time), Cogcrawl a whole seat turn (``act``,
``play`` and the next view, wall time).

``--quick`` is a smoke test: seeds 0-1 of each game (Delvewick's one run), Chimestep
runs stopped at stage 3. ``--seeds GAME=FIRST-LAST`` narrows a game's range. ``--jobs``
plays in that many processes (1: this process only). ``--record`` appends the table and
the command to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import solve_delvewick
import strength_chimestep
import strength_cogcrawl
import strength_delvewick
import strength_gemswap

from playbench.agents.random_agent import RandomAgent
from playbench.bots.cogcrawl import run_delver
from playbench.core import get_game
from playbench.core.match import Match
from playbench.games.cogcrawl.state import WON

GAMES = ("delvewick", "chimestep", "gem-swap", "cogcrawl")
RESULTS = Path(__file__).with_name("RESULTS.md")
SECTION = "## Strength of the four bots, one run"
CHIMESTEP_CAP = 31
QUICK_CHIMESTEP_CAP = 3


@dataclass(frozen=True)
class Run:
    """One whole run of one player: the game's figure (score, stage or deepest level)."""

    game: str
    player: str
    seed: int
    value: float
    moves: int
    seconds: float
    cogheart: bool = False


@dataclass(frozen=True)
class Task:
    """One run to play: ``cap`` is Chimestep's last stage or Cogcrawl's seat turns (0 where
    the game ends by itself)."""

    game: str
    player: str
    seed: int
    cap: int


def delvewick_run(task: Task) -> Run:
    makers: dict[str, Callable[[int], strength_delvewick.Chooser]] = {
        "bot": lambda seed: strength_delvewick.bot(seed, 0),
        "nearest-goal baseline": strength_delvewick.baseline,
        "old solutions": strength_delvewick.old_solutions,
    }
    view, times = strength_delvewick.run(makers[task.player](task.seed), task.seed)
    return Run(task.game, task.player, task.seed, view["score"], len(times), sum(times))


def chimestep_run(task: Task) -> Run:
    run = strength_chimestep.play(task.player, task.seed, task.cap)
    return Run(task.game, task.player, task.seed, run["stage"], run["moves"], run["seconds"])


def gemswap_run(task: Task) -> Run:
    _, _, score, thinking, moves = strength_gemswap.play((task.player, task.seed))
    return Run(task.game, task.player, task.seed, score, moves, thinking)


def cogcrawl_run(task: Task) -> Run:
    if task.player == "delver":
        run = run_delver(task.seed, task.cap)
        return Run(
            task.game, task.player, task.seed, run.deepest, run.turns, run.seconds, run.cogheart
        )
    agent = RandomAgent(get_game("cogcrawl"))
    agent.reset(task.seed)
    started = time.perf_counter()
    match = Match.start("cogcrawl", task.seed)
    view = match.view()
    while match.moves < task.cap and not view["gameOver"]:
        match.play(agent.act(view))
        view = match.view()
    dungeon = view["observation"]["run"]
    seconds = time.perf_counter() - started
    return Run(
        task.game,
        task.player,
        task.seed,
        dungeon["deepest"],
        match.moves,
        seconds,
        dungeon["state"] == WON,
    )


RUNNERS: dict[str, Callable[[Task], Run]] = {
    "delvewick": delvewick_run,
    "chimestep": chimestep_run,
    "gem-swap": gemswap_run,
    "cogcrawl": cogcrawl_run,
}
#: per game: the bot first, then its baselines
PLAYERS = {
    "delvewick": ("bot", "nearest-goal baseline", "old solutions"),
    "chimestep": ("bot", "greedy"),
    "gem-swap": ("search (make_bot)", "greedy"),
    "cogcrawl": ("delver", "random"),
}
MEASURE = {
    "delvewick": "score",
    "chimestep": "stage",
    "gem-swap": "score",
    "cogcrawl": "deepest level",
}
FULL_SEEDS = {"delvewick": "0", "chimestep": "0-19", "gem-swap": "0-99", "cogcrawl": "0-49"}
QUICK_SEEDS = {"delvewick": "0", "chimestep": "0-1", "gem-swap": "0-1", "cogcrawl": "0-1"}


def play(task: Task) -> Run:
    return RUNNERS[task.game](task)


def cap_of(game: str, quick: bool) -> int:
    if game == "chimestep":
        return QUICK_CHIMESTEP_CAP if quick else CHIMESTEP_CAP
    if game == "cogcrawl":
        return strength_cogcrawl.SEAT_TURNS
    return 0


def verdict(game: str, runs: list[Run]) -> tuple[str, bool]:
    """The game's target and whether the bot's runs (the first player's) meet it."""
    values = [run.value for run in runs]
    if game == "delvewick":
        total = solve_delvewick.TARGET_TOTAL
        return f"score > {total:,}", values[0] > total
    if game == "chimestep":
        target = strength_chimestep.TARGET_MEDIAN_STAGE
        return f"median >= {target}", statistics.median(values) >= target
    if game == "gem-swap":
        target = strength_gemswap.TARGET_MEAN
        return f"mean >= {target:,}", statistics.mean(values) >= target
    share = strength_cogcrawl.TARGET_COGHEART_SHARE
    deepest = strength_cogcrawl.TARGET_MEDIAN_DEEPEST
    met = (
        sum(run.cogheart for run in runs) >= share * len(runs)
        and statistics.median(values) >= deepest
    )
    return f"Cogheart >= {share:.0%}, median >= {deepest}", met


HEADER = (
    "game",
    "player",
    "seeds",
    "measure",
    "mean",
    "median",
    "95% interval",
    "note",
    "ms/move",
    "target",
    "met",
)


def row(game: str, player: str, seeds: list[int], runs: list[Run], bot: bool) -> list[str]:
    values = [run.value for run in runs]
    span = f"{seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else str(seeds[0])
    if len(values) > 1:
        low, high = strength_gemswap.bootstrap(values)
        interval = f"{low:,.1f}-{high:,.1f}"
    else:
        interval = "one run"
    note = ""
    if game == "cogcrawl":
        hearts = sum(run.cogheart for run in runs)
        note = f"Cogheart {hearts}/{len(runs)} ({hearts / len(runs):.0%})"
    elif game == "delvewick":
        note = "no randomness"
    moves = sum(run.moves for run in runs)
    ms = 1000 * sum(run.seconds for run in runs) / max(1, moves)
    target, met = verdict(game, runs) if bot else ("", None)
    return [
        game,
        player,
        span,
        MEASURE[game],
        f"{statistics.mean(values):,.2f}",
        f"{statistics.median(values):,.1f}",
        interval,
        note,
        f"{ms:.2f}",
        target,
        "" if met is None else ("yes" if met else "no"),
    ]


def table(rows: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in [list(HEADER), *rows]) for i in range(len(HEADER))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [list(HEADER), *rows]
    ]
    return "\n".join(lines)


def progress(run: Run) -> Run:
    """Say on stderr that a run ended, so a long benchmark shows where it is."""
    sys.stderr.write(
        f"{run.game} {run.player} seed {run.seed}: {MEASURE[run.game]} {run.value:g},"
        f" {run.moves} moves, {run.seconds:.1f} s\n"
    )
    sys.stderr.flush()
    return run


def parse_seeds(texts: list[str]) -> dict[str, list[int]]:
    chosen: dict[str, list[int]] = {}
    for text in texts:
        game, sep, span = text.partition("=")
        if not sep or game not in GAMES:
            names = ", ".join(GAMES)
            raise ValueError(f"--seeds wants GAME=FIRST-LAST, GAME one of {names}: {text!r}")
        try:
            chosen[game] = strength_chimestep.seed_range(span)
        except ValueError:
            chosen[game] = []
        if not chosen[game]:
            raise ValueError(f"--seeds: {span!r} is not a range such as 0-19")
    return chosen


def parse_games(text: str) -> list[str]:
    games = [game.strip() for game in text.split(",") if game.strip()]
    unknown = [game for game in games if game not in GAMES]
    if unknown or not games:
        raise ValueError(f"--games: {unknown or text!r} not among {', '.join(GAMES)}")
    return games


def record(text: str, command: str, started: datetime.datetime, seconds: float) -> None:
    with RESULTS.open("a", encoding="utf-8") as results:
        results.write(
            f"\n{SECTION}\n\n- Command: `{command}`\n"
            f"- Started {started:%Y-%m-%d %H:%M} UTC, {seconds:.0f} s.\n\n"
            f"```\n{text}\n```\n"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated slugs")
    parser.add_argument("--quick", action="store_true", help="seeds 0-1, a smoke test")
    parser.add_argument("--jobs", type=int, default=2, help="processes to play in")
    parser.add_argument("--seeds", action="append", default=[], metavar="GAME=FIRST-LAST")
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    try:
        games = parse_games(args.games)
        chosen = parse_seeds(args.seeds)
    except ValueError as error:
        parser.error(str(error))
    ranges = QUICK_SEEDS if args.quick else FULL_SEEDS
    seeds = {game: strength_chimestep.seed_range(ranges[game]) for game in games}
    seeds.update({game: span for game, span in chosen.items() if game in seeds})
    tasks = [
        Task(game, player, seed, cap_of(game, args.quick))
        for game in games
        for player in PLAYERS[game]
        for seed in seeds[game]
    ]
    started = datetime.datetime.now(datetime.UTC)
    clock = time.perf_counter()
    if args.jobs == 1:
        runs = [progress(play(task)) for task in tasks]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            runs = [progress(run) for run in pool.map(play, tasks)]
    seconds = time.perf_counter() - clock
    rows = []
    for game in games:
        for place, player in enumerate(PLAYERS[game]):
            mine = [run for run in runs if run.game == game and run.player == player]
            rows.append(row(game, player, seeds[game], mine, place == 0))
    lines = [table(rows), ""]
    if "delvewick" in games:
        lines.append("Delvewick has no randomness: one run is the figure (every seed repeats it).")
    if "chimestep" in games:
        cap = cap_of("chimestep", args.quick)
        lines.append(f"Chimestep runs stop at stage {cap}, which counts as {cap}.")
    lines.append(
        "interval: 95% percentile bootstrap of the mean (10,000 seeded resamples); met: the"
        " bot's row against the issue's target"
        + (" (--quick: not the target's seed range)" if args.quick else "")
    )
    text = "\n".join(lines)
    print(text)
    print(f"{seconds:.0f} s")
    if args.record:
        command = shlex.join(["python", "benchmarks/strength.py", *sys.argv[1:]])
        record(text, command, started, seconds)


if __name__ == "__main__":
    main()
