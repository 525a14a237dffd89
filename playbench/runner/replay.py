"""Replay files: ``replays/<game>-<seed>.jsonl``, enough to replay a run and to show it.

- Line 1, the header: ``{"replay": 1, "game", "seed", "options", "agent", "version"}``
  (and ``model`` for a language model).
- Then one line per applied action, in order: ``{"step", "action", "reward",
  "score"}`` (the score after it). The first action of a language model's turn carries
  ``turns``: for each agent turn that led to it, the raw replies read (failed ones
  first), ``say``, every call's record and whether it was retried or fell back.
- Last, the end: ``{"end": {"score", "fingerprint", "steps", "outcome", "progress"}}``.

:func:`verify_replay` re-simulates a file through :class:`Match` and compares every
score on the way and the final score and fingerprint.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from playbench import __version__
from playbench.agents.remote import ServerError, read_answer
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.runner.outcome import outcome_of

FORMAT = 1
#: files of a run are readable by everyone, as any file written with open()
FILE_MODE = 0o644


class ReplayError(PlaybenchError):
    """A replay file that cannot be read."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay file read back."""

    header: JSON
    lines: list[JSON]
    end: JSON

    @property
    def actions(self) -> list[Any]:
        return [line["action"] for line in self.lines]


def header(game: str, seed: int, options: JSON | None, agent: str, model: str | None) -> JSON:
    data: JSON = {
        "replay": FORMAT,
        "game": game,
        "seed": seed,
        "options": options or {},
        "agent": agent,
        "version": __version__,
    }
    if model is not None:
        data["model"] = model
    return data


def replay_name(game: str, seed: int) -> str:
    return f"{game}-{seed}.jsonl"


def dump_lines(entries: list[JSON]) -> bytes:
    return "".join(
        json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n" for entry in entries
    ).encode()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file in the same
    folder, renamed over ``path`` once written (a process stopped at any point leaves
    the old file or the new one, never a part)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_lines(path: Path) -> list[JSON]:
    """The JSON lines of a replay being written, up to the first that does not read (a
    line torn by a stop mid-write); :class:`ReplayError` when the file cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror}") from None
    entries = []
    for line in text.split("\n"):
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return entries


def read_replay(path: Path) -> Replay:
    """Read a replay file; :class:`ReplayError` names what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path} is not UTF-8 text") from None
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ReplayError(f"{path} line {number} is not JSON: {error.msg}") from None
    if len(entries) < 2:
        raise ReplayError(f"{path} is no replay: it needs a header and an end line")
    head, *lines, last = entries
    if not isinstance(head, dict) or head.get("replay") != FORMAT:
        raise ReplayError(f"{path} is no replay: line 1 is not a replay header of format 1")
    for key in ("game", "seed", "options", "agent"):
        if key not in head:
            raise ReplayError(f"{path}: the header has no {key!r}")
    if not isinstance(last, dict) or not isinstance(last.get("end"), dict):
        raise ReplayError(f"{path}: the last line is not the end line")
    for number, line in enumerate(lines, start=2):
        if not isinstance(line, dict) or not {"action", "reward", "score"} <= line.keys():
            raise ReplayError(f"{path} line {number} is not an action line")
    return Replay(head, lines, last["end"])


@dataclass(frozen=True, slots=True)
class Verdict:
    """What re-simulating one replay found: ``problem`` is empty when it matches."""

    path: Path
    problem: str = ""
    score: int | None = None
    fingerprint: str | None = None
    #: the steps an episode was resumed at (a run stopped and started again)
    resumed: tuple[int, ...] = ()
    #: what the re-simulation found: the replay's header, the game's progress and the
    #: outcome at the end, and the actions applied (None when it did not match)
    header: JSON | None = None
    progress: float | None = None
    outcome: str | None = None
    steps: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problem


def verify_replay(path: Path) -> Verdict:
    """Re-simulate ``path``: every action must be accepted, every score after it and the
    final score and fingerprint must match."""
    try:
        replay = read_replay(path)
        match = Match.start(replay.header["game"], replay.header["seed"], replay.header["options"])
    except PlaybenchError as error:
        return Verdict(path, str(error))
    for number, line in enumerate(replay.lines, start=1):
        result = match.play(line["action"])
        if not result.advanced:
            return Verdict(path, f"step {number} was refused on replay: {result.reason}")
        if match.score != line["score"] or result.reward != line["reward"]:
            return Verdict(
                path,
                f"step {number} scores {match.score} (reward {result.reward}) on replay, "
                f"the file says {line['score']} (reward {line['reward']})",
            )
    score, fingerprint = match.score, match.fingerprint()
    end = replay.end
    if end.get("steps") != len(replay.lines):
        steps = len(replay.lines)
        return Verdict(path, f"{steps} steps in the file, its end says {end.get('steps')}")
    if end.get("score") != score:
        return Verdict(path, f"final score {score} on replay, the file says {end.get('score')}")
    if end.get("fingerprint") != fingerprint:
        said = end.get("fingerprint")
        return Verdict(path, f"final fingerprint {fingerprint} on replay, the file says {said}")
    resumed = tuple(step for step in end.get("resumedAt", ()) if isinstance(step, int))
    return Verdict(
        path,
        score=score,
        fingerprint=fingerprint,
        resumed=resumed,
        header=replay.header,
        progress=match.game.progress(match.state),
        outcome=outcome_of(match.game, match.state, match.over),
        steps=len(replay.lines),
    )


def verify_session(server: str, session_id: str, timeout: float = 30.0) -> Verdict:
    """Fetch a server's session replay (a ranked session's once finished or abandoned:
    its revealed seed, options and log) and re-simulate it here: every step must be
    accepted and score as the server says, and the end must match the score and the
    fingerprint of the state the server stored. :class:`ReplayError` when the server
    cannot give the replay."""
    url = f"{server.rstrip('/')}/api/spectate/sessions/{session_id}/replay"
    try:
        response = httpx.get(url, timeout=timeout)
    except httpx.HTTPError as error:
        raise ReplayError(f"cannot reach the server {server}: {error}") from None
    try:
        data = read_answer(response, url)
    except ServerError as error:
        raise ReplayError(str(error)) from None
    where = Path(f"{server.rstrip('/')}/replay/{session_id}")
    try:
        match = Match.start(data["game"], data["seed"], data["options"])
        steps = [(step["action"], step["reward"], step["score"]) for step in data["steps"]]
        claimed_score, claimed_print = data["score"], data["fingerprint"]
    except (KeyError, TypeError) as error:
        raise ReplayError(f"{url} is no session replay: {error}") from None
    except PlaybenchError as error:
        return Verdict(where, str(error))
    for number, (action, reward, score) in enumerate(steps, start=1):
        result = match.play(action)
        if not result.advanced:
            return Verdict(where, f"step {number} was refused on replay: {result.reason}")
        if match.score != score or result.reward != reward:
            return Verdict(
                where,
                f"step {number} scores {match.score} (reward {result.reward}) on replay, "
                f"the server says {score} (reward {reward})",
            )
    if match.score != claimed_score:
        return Verdict(
            where, f"final score {match.score} on replay, the server stored {claimed_score}"
        )
    if match.fingerprint() != claimed_print:
        return Verdict(
            where,
            f"final fingerprint {match.fingerprint()} on replay, the server stored {claimed_print}",
        )
    return Verdict(where, score=match.score, fingerprint=match.fingerprint())


def verify_path(path: Path) -> list[Verdict]:
    """Verify one replay file, or every replay of a run folder: each file re-simulated,
    and each line of the folder's ``runs.jsonl`` matched with its replay's final score
    and fingerprint. :class:`ReplayError` when ``path`` is neither."""
    if not path.exists():
        raise ReplayError(f"{path}: no such file or folder")
    if path.is_file():
        return [verify_replay(path)]
    if not path.is_dir():
        raise ReplayError(f"{path} is neither a replay file nor a run folder")
    files = sorted((path / "replays").glob("*.jsonl"))
    runs = path / "runs.jsonl"
    if not files and not runs.exists():
        raise ReplayError(f"{path} holds no replays/ and no runs.jsonl: not a run folder")
    verdicts = {file.resolve(): verify_replay(file) for file in files}
    checked = list(verdicts.values())
    if runs.exists():
        checked += _check_records(path, runs, verdicts)
    return checked


def _check_records(folder: Path, runs: Path, verdicts: dict[Path, Verdict]) -> list[Verdict]:
    """A verdict for each ``runs.jsonl`` line whose replay is missing or disagrees."""
    problems = []
    for number, text in enumerate(runs.read_text(encoding="utf-8").splitlines(), start=1):
        where = Path(f"{runs}:{number}")
        try:
            record = json.loads(text)
            replay = folder / record["replay"]
        except (json.JSONDecodeError, KeyError, TypeError):
            problems.append(Verdict(where, "not a run record"))
            continue
        verdict = verdicts.get(replay.resolve())
        if verdict is None:
            problems.append(Verdict(where, f"its replay {record['replay']} is missing"))
        elif verdict.ok and (
            verdict.score != record.get("score") or verdict.fingerprint != record.get("fingerprint")
        ):
            problems.append(
                Verdict(
                    where,
                    f"records score {record.get('score')} and fingerprint "
                    f"{record.get('fingerprint')}; its replay gives {verdict.score} and "
                    f"{verdict.fingerprint}",
                )
            )
    return problems
