"""A published suite played by a person, made into a bench result like an agent's.

The person plays each episode of the suite (its game, seed and options, in order) as a
practice session under their registered name and finishes it. The finished sessions,
named in the suite's order, become the folder ``playbench bench`` would have written for
an agent called ``human``: a run folder per game (``run.json``, ``runs.jsonl`` and a
replay per episode, cut at the suite's ``maxSteps`` as a bench cuts an agent's run) and
``bench.json``. The folder is published on the shelf like any other result, so the server
re-simulates every replay before it lists the result under the player's name.

Finished sessions never change, so one set of sessions makes one result: the archive is
packed the same each time (no clock in it), and the set's result is kept in
``<bench>/.human/`` (:func:`published_before`), so that the same set named again is
answered with its result without being built or re-simulated again.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
from pathlib import Path

from playbench import __version__
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.runner.bench import BENCH, bench_figures
from playbench.runner.episode import REPLAYS, Episode
from playbench.runner.outcome import outcome_of
from playbench.runner.replay import header, replay_name, write_atomic
from playbench.runner.store import RunDir
from playbench.runner.suite import Suite
from playbench.server.bench import RESULT_ID, BenchShelf, Shelved
from playbench.server.store import PlayerRow, SessionRow, Storage

#: the agent name a person's bench result carries
HUMAN = "human"
#: the results of the sets of sessions published, one file per set, in the shelf
SETS = ".human"


class HumanBenchRefused(Exception):
    """A set of sessions that is not the suite played through (the message says why)."""


def episodes(suite: Suite) -> list[tuple[str, int, JSON, int]]:
    """The suite's episodes in order: (game, seed, options, maxSteps), each slot with its
    own options (``optionsBySeed``: Delvewick's start levels)."""
    return [
        (entry.game, seed, entry.options_of(seed), entry.max_steps)
        for entry in suite.games
        for seed in entry.seeds
    ]


def _checked(storage: Storage, suite: Suite, ids: list[str], player: PlayerRow) -> list[SessionRow]:
    wanted = episodes(suite)
    if len(ids) != len(wanted):
        raise HumanBenchRefused(
            f"suite {suite.name!r} has {len(wanted)} episodes; {len(ids)} sessions were named"
        )
    rows = []
    for index, (session_id, (game, seed, options, _)) in enumerate(zip(ids, wanted, strict=True)):
        row = storage.session_by_id(session_id)
        where = f"episode {index + 1} ({game}, seed {seed})"
        if row is None:
            raise HumanBenchRefused(f"{where}: no session {session_id!r}")
        if row.owner != player.name_key:
            raise HumanBenchRefused(f"{where}: session {session_id} is not {player.name!r}'s")
        if (row.slug, row.seed, row.options, row.ranked) != (game, seed, options, False):
            raise HumanBenchRefused(
                f"{where}: session {session_id} is {row.slug} on seed {row.seed} with options "
                f"{json.dumps(row.options)}, not this episode's practice game"
            )
        if not row.finished:
            raise HumanBenchRefused(f"{where}: session {session_id} is not finished yet")
        rows.append(row)
    return rows


def _episode(storage: Storage, row: SessionRow, max_steps: int, player: str) -> Episode:
    """The session's run as an episode: its applied actions replayed, cut at max_steps."""
    game = get_game(row.slug)
    match = Match.start(game, row.seed, row.options)
    lines: list[JSON] = []
    for entry in storage.log(row.id):
        if len(lines) == max_steps:
            break
        if entry.action is None:
            continue
        result = match.play(entry.action)
        if result.advanced:
            lines.append(
                {
                    "step": len(lines) + 1,
                    "action": result.action,
                    "reward": result.reward,
                    "score": match.score,
                }
            )
    outcome = outcome_of(game, match.state, match.over)
    fingerprint = match.fingerprint()
    progress = game.progress(match.state)
    record: JSON = {
        "game": game.slug,
        "seed": row.seed,
        "options": row.options,
        "agent": HUMAN,
        "score": match.score,
        "progress": progress,
        "steps": len(lines),
        "outcome": outcome,
        "seconds": 0.0,
        "fingerprint": fingerprint,
        "replay": f"{REPLAYS}/{replay_name(game.slug, row.seed)}",
        "player": player,
        "sessionId": row.id,
    }
    end = {
        "end": {
            "score": match.score,
            "fingerprint": fingerprint,
            "steps": len(lines),
            "outcome": outcome,
            "progress": progress,
        }
    }
    return Episode(record, [header(game.slug, row.seed, row.options, HUMAN, None), *lines, end])


def build(storage: Storage, suite: Suite, ids: list[str], player: PlayerRow) -> bytes:
    """The bench folder of ``player``'s sessions ``ids`` (one per episode of ``suite``, in
    order) as a gzipped tar, the form ``POST /api/bench`` takes."""
    rows = _checked(storage, suite, ids, player)
    with tempfile.TemporaryDirectory(prefix="playbench-human-") as scratch:
        folder = Path(scratch)
        limits = {entry.game: entry for entry in suite.games}
        for row in rows:
            entry = limits[row.slug]
            run = RunDir(folder / row.slug)
            run.open(
                {
                    "game": row.slug,
                    "agent": HUMAN,
                    "model": None,
                    "llm": None,
                    "harness": None,
                    "options": entry.options,
                    "maxSteps": entry.max_steps,
                    "server": None,
                    "player": player.name,
                    "ranked": False,
                    "version": __version__,
                    "suite": suite.describe(),
                }
            )
            run.write(_episode(storage, row, entry.max_steps, player.name))
        bench = bench_figures(folder)
        write_atomic(folder / BENCH, (json.dumps(bench, indent=2) + "\n").encode())
        packed = io.BytesIO()
        with tarfile.open(fileobj=packed, mode="w:gz") as tar:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    tar.add(path, arcname=path.relative_to(folder).as_posix(), filter=_plain)
        return packed.getvalue()


def _plain(member: tarfile.TarInfo) -> tarfile.TarInfo:
    """A member with no clock or owner in its header (the same files, the same tar)."""
    member.mtime, member.uid, member.gid, member.uname, member.gname = 0, 0, 0, "", ""
    return member


def _set_path(shelf: BenchShelf, suite: Suite, ids: list[str], player: PlayerRow) -> Path:
    named = json.dumps([suite.hash, player.name_key, ids]).encode()
    return shelf.root / SETS / f"{hashlib.sha256(named).hexdigest()}.json"


def published_before(
    shelf: BenchShelf, suite: Suite, ids: list[str], player: PlayerRow
) -> Shelved | None:
    """The verified result ``player``'s sessions ``ids`` of ``suite`` made, if they
    published them before (and the result is still there)."""
    try:
        path = _set_path(shelf, suite, ids, player)
        result_id = json.loads(path.read_text(encoding="utf-8"))["id"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(result_id, str) or not RESULT_ID.match(result_id):
        return None
    return shelf.verified(result_id)


def remember(
    shelf: BenchShelf, suite: Suite, ids: list[str], player: PlayerRow, shelved: Shelved
) -> None:
    """Keep the result ``player``'s sessions ``ids`` of ``suite`` made."""
    path = _set_path(shelf, suite, ids, player)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"id": shelved.id}).encode())
