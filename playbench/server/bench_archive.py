"""A published bench archive (a gzipped tar) surveyed and unpacked within the shelf's
limits, whatever tar form states a member's size.

:func:`survey` reads every header before anything is unpacked and refuses the archive at
the first past a limit; it reads sizes as :mod:`tarfile` will (a pax header's ``size``
over the ustar field, an old-style member whose name ends in ``/`` as a folder with no
data, GNU and pax sparse members refused). :func:`unpack` then reads the archive through
:mod:`tarfile` itself, with a header class that refuses a long-name or pax header past
:data:`MAX_HEADER_BYTES` before reading it, and writes each member through a counter that
stops at the limits: so even a size the survey misread cannot write or hold more. Only
the members a bench result is made of are kept (``bench.json`` and each game folder's
``run.json``, ``runs.jsonl`` and ``replays/*.jsonl``). :func:`within_caps` then counts
the replays' actions against the suite's caps, before anything is simulated.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import shutil
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from playbench.core.game import JSON
from playbench.runner.bench import BENCH
from playbench.runner.episode import REPLAYS
from playbench.runner.store import CONFIG, RUNS
from playbench.server.bench_derive import MAX_JSON_BYTES, Unsound, parse_bounded, read_bounded

#: a name in an archive: folders and files of letters, digits, ``.``, ``_`` and ``-``
MEMBER = re.compile(r"^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$")
#: the members a bench result is made of (the rest of a run folder is left out)
KEPT = re.compile(
    rf"^(?:{re.escape(BENCH)}|[A-Za-z0-9_-]+/(?:{re.escape(CONFIG)}|{re.escape(RUNS)}"
    rf"|{REPLAYS}/[A-Za-z0-9_-][A-Za-z0-9._-]*\.jsonl))$"
)
#: the members read whole as JSON, refused past :data:`MAX_JSON_BYTES` from their header
JSON_FILES = re.compile(rf"^(?:{re.escape(BENCH)}|[A-Za-z0-9_-]+/{re.escape(CONFIG)})$")
#: a result's id, and a game's folder in it
RESULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
#: the bytes of a replay line read in the server's own process at most (a model's turn
#: notes: a few KB)
MAX_LINE_BYTES = 1 << 20
#: the characters of a name or problem an answer quotes at most
QUOTED_CHARS = 80
#: a tar block, and the end of an archive (a block of zeros)
BLOCK = 512
END = bytes(BLOCK)
#: tar entry types: files, a folder, and the headers that carry a long name or pax fields
FILE_TYPES = (b"0", b"\0", b"7")
#: a folder, links, devices and pipes: no data follows their headers
DATALESS_TYPES = (b"1", b"2", b"3", b"4", b"5", b"6")
PAX_TYPES = (b"x", b"g", b"X")
HEADER_TYPES = (b"L", b"K", *PAX_TYPES)
#: a long-name or pax header's bytes at most (read before the member they describe)
MAX_HEADER_BYTES = 8 * 1024
#: bytes of a member's data skipped or copied at a time
CHUNK_BYTES = 1 << 20
#: one pax record: its length (of the whole record) and its key
PAX_RECORD = re.compile(rb"(\d+) ([^=]+)=")
#: pax keys that make a member sparse (its size on disk another than its data's)
SPARSE_KEYS = b"GNU.sparse."


@dataclass(frozen=True, slots=True)
class ShelfLimits:
    """What one published archive may cost: every limit but the CPU budget is checked
    from the tar headers and the replays' line counts, before anything is simulated."""

    #: files in the archive, the bytes of the largest and of all unpacked
    max_files: int = 20_000
    max_file_bytes: int = 32 * 1024 * 1024
    max_unpacked_bytes: int = 256 * 1024 * 1024
    #: characters of a member's name (its whole path in the archive)
    max_name_chars: int = 255
    #: actions in all the replays of one upload (suite-v2 at its step caps: 106,000)
    max_steps: int = 200_000
    #: CPU seconds the re-simulation of one result may take (its process is stopped past)
    cpu_seconds: int = 60


class PublishRefused(Exception):
    """An archive that is not a sound bench result; ``status`` is the HTTP answer, and
    ``final`` whether the same bytes would always be refused so (the verdict kept)."""

    def __init__(self, status: int, message: str, final: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.final = final


def clip(text: str, chars: int = QUOTED_CHARS) -> str:
    return text if len(text) <= chars else f"{text[: chars - 1]}…"


def quote(name: str) -> str:
    """A name from an archive as an answer quotes it: in quotes, cut to a few words."""
    return repr(clip(name))


def over(limit: str) -> PublishRefused:
    return PublishRefused(413, f"{limit}, the shelf's limit (nothing was kept)")


def not_a_tar(why: str) -> PublishRefused:
    return PublishRefused(
        422, f"the body is not a gzipped tar of a bench folder: {clip(why)} (nothing was kept)"
    )


def _json_size(name: str, size: int) -> None:
    """:class:`PublishRefused` naming ``name`` when it is read whole as JSON and is past
    :data:`MAX_JSON_BYTES`."""
    if size > MAX_JSON_BYTES and JSON_FILES.match(name):
        raise PublishRefused(422, f"{name} is over {MAX_JSON_BYTES:,} bytes (nothing was kept)")


def _odd() -> PublishRefused:
    return PublishRefused(422, "the archive holds an odd entry: only a bench folder's files")


class _Sizes:
    """The running counts of a survey or an unpacking, refused past ``limits``."""

    def __init__(self, limits: ShelfLimits) -> None:
        self.limits = limits
        self.files = 0
        self.total = 0

    def file(self, size: int) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise over(f"the archive holds over {self.limits.max_files} files")
        self.bytes(size, size)

    def bytes(self, size: int, added: int) -> None:
        if size > self.limits.max_file_bytes:
            raise over(f"a file of the archive is over {self.limits.max_file_bytes} bytes")
        self.total += added
        if self.total > self.limits.max_unpacked_bytes:
            raise over(f"the archive unpacks to over {self.limits.max_unpacked_bytes} bytes")


def survey(archive: bytes, limits: ShelfLimits) -> str:
    """Read every tar header of ``archive`` (and nothing of its members but their sizes
    and pax fields) before anything is unpacked: :class:`PublishRefused` at the first
    past a limit, a member's size read as :mod:`tarfile` reads it. The digest of the tar
    it holds (the same result packed again at another time is another gzip, the same
    tar)."""
    sizes = _Sizes(limits)
    digest = hashlib.sha256()
    pax_size: int | None = None
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(archive)) as stream:
            while True:
                header = stream.read(BLOCK)
                if len(header) < BLOCK:
                    raise not_a_tar("it ends inside a header")
                if header == END:
                    return digest.hexdigest()
                digest.update(header)
                size, kind = _member_size(header), header[156:157]
                if kind in HEADER_TYPES:
                    if size > MAX_HEADER_BYTES:
                        raise over(f"a member's name or header is over {MAX_HEADER_BYTES} bytes")
                    data = _read(stream, -(-size // BLOCK) * BLOCK, digest)[:size]
                    if kind in PAX_TYPES:
                        found = _pax_size(data)
                        if kind == b"g" and found is not None:
                            raise _odd()
                        pax_size = found if found is not None else pax_size
                    continue
                if pax_size is not None:
                    size, pax_size = pax_size, None
                if kind == b"\0" and header[:100].split(b"\0", 1)[0].endswith(b"/"):
                    continue  # tarfile reads an old-style name ending in / as a folder
                if kind in DATALESS_TYPES:
                    continue  # no data follows (anything but a file or folder is refused later)
                if kind not in FILE_TYPES:
                    raise _odd()
                _json_size(header[:100].split(b"\0", 1)[0].decode("utf-8", "replace"), size)
                sizes.file(size)
                _read(stream, -(-size // BLOCK) * BLOCK, digest, keep=False)
    except (OSError, EOFError, zlib.error) as error:
        raise not_a_tar(type(error).__name__ if not str(error) else str(error)) from None


def _pax_size(data: bytes) -> int | None:
    """The ``size`` a pax header's records give (None without one), read record by record
    as :mod:`tarfile` reads them; a sparse member's keys refuse the archive."""
    found, position = None, 0
    while position < len(data) and data[position] != 0:
        record = PAX_RECORD.match(data, position)
        if record is None or int(record.group(1)) < record.end() - position + 1:
            raise not_a_tar("a pax header's records are malformed")
        end = position + int(record.group(1))
        key, value = record.group(2), data[record.end() : end - 1]
        if key.startswith(SPARSE_KEYS):
            raise _odd()
        if key == b"size":
            if not value.isdigit():
                raise not_a_tar("a pax header's size is not a number")
            found = int(value)
        position = end
    return found


def _member_size(header: bytes) -> int:
    """The size field of a tar header: octal text, or base-256 with its high bit set."""
    field = header[124:136]
    if field[0] == 0x80:
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip()
    if not text or not all(48 <= byte <= 55 for byte in text):
        raise not_a_tar("a header's size is not a number")
    return int(text, 8)


def _read(stream: IO[bytes], count: int, digest: Any, keep: bool = True) -> bytes:
    kept = []
    while count > 0:
        chunk = stream.read(min(count, CHUNK_BYTES))
        if not chunk:
            raise not_a_tar("it ends inside a member")
        digest.update(chunk)
        if keep:
            kept.append(chunk)
        count -= len(chunk)
    return b"".join(kept)


class _BoundedInfo(tarfile.TarInfo):
    """A tar header that refuses, before reading it, a long-name or pax header past
    :data:`MAX_HEADER_BYTES` and a sparse member."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise _odd()
        if self.type in HEADER_TYPES and self.size > MAX_HEADER_BYTES:
            raise over(f"a member's name or header is over {MAX_HEADER_BYTES} bytes")
        return super()._proc_member(tarfile_)  # type: ignore[misc]


def unpack(archive: bytes, into: Path, limits: ShelfLimits) -> None:
    """Unpack the members of a gzipped tar that a bench result is made of, each plain
    file of a plain name; :class:`PublishRefused` for anything else, or past a limit, as
    soon as it is seen (counting the bytes written, not the sizes claimed)."""
    sizes = _Sizes(limits)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r|gz", tarinfo=_BoundedInfo) as tar:
            for member in tar:
                name = member.name.removeprefix("./").rstrip("/")
                if len(name) > limits.max_name_chars:
                    raise over(f"a member's name is over {limits.max_name_chars} characters")
                if member.isdir() and (not name or MEMBER.match(name)):
                    continue
                if (
                    not member.isfile()
                    or member.sparse is not None
                    or not MEMBER.match(name)
                    or "report" in name.split("/")
                ):
                    raise PublishRefused(
                        422,
                        f"the archive holds {quote(member.name)}: only a bench folder's files"
                        " (nothing was kept)",
                    )
                sizes.file(0)
                _json_size(name, member.size)
                if KEPT.match(name):
                    _write(tar, member, into / name, sizes)
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise not_a_tar(str(error).replace(str(into), "the result")) from None
    except FileExistsError:
        raise PublishRefused(
            422, "the archive holds one name twice: only a bench folder's files"
        ) from None
    except OSError as error:
        raise not_a_tar(error.strerror or type(error).__name__) from None


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path, sizes: _Sizes) -> None:
    """Copy a member's data to ``path`` (a new file), counting every byte written."""
    source = tar.extractfile(member)
    if source is None:
        raise _odd()
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with path.open("xb") as target:
        while chunk := source.read(CHUNK_BYTES):
            written += len(chunk)
            sizes.bytes(written, len(chunk))
            target.write(chunk)


def within_caps(folder: Path, limits: ShelfLimits) -> JSON:
    """``bench.json`` of an unpacked result once every replay of its suite's games is
    within the game's ``maxSteps`` (and ``maxTurns`` where the suite has one) and all of
    them within ``limits.max_steps``: counted from their lines, before any is simulated;
    :class:`PublishRefused` otherwise."""
    if not (folder / BENCH).is_file():
        raise PublishRefused(
            422, f"the result holds no {BENCH}: not a bench folder (nothing was kept)"
        )
    try:
        bench = read_bounded(folder / BENCH, BENCH)
    except Unsound as error:
        raise PublishRefused(422, f"{error} (nothing was kept)") from None
    suite = bench.get("suite")
    games = suite.get("games") if isinstance(suite, dict) else None
    if not isinstance(games, dict) or not games:
        raise PublishRefused(422, f"{BENCH} names no suite with games (nothing was kept)")
    total = 0
    for slug, entry in games.items():
        caps = {
            key: entry.get(key) if isinstance(entry, dict) else None
            for key in ("maxSteps", "maxTurns")
        }
        if not RESULT_ID.match(str(slug)) or not _whole(caps["maxSteps"]):
            raise PublishRefused(
                422,
                f"{BENCH}: the suite's game {quote(str(slug))} has no maxSteps (nothing was kept)",
            )
        if caps["maxTurns"] is not None and not _whole(caps["maxTurns"]):
            raise PublishRefused(
                422, f"{BENCH}: the maxTurns of {slug} is not a whole number (nothing was kept)"
            )
        for replay in sorted((folder / slug / "replays").glob("*.jsonl")):
            steps, turns = _replay_counts(replay, caps["maxTurns"] is not None)
            where = replay.relative_to(folder).as_posix()
            for key, count in (("maxSteps", steps), ("maxTurns", turns)):
                if caps[key] is not None and count > caps[key]:
                    raise PublishRefused(
                        422,
                        f"{where}: {count} {'actions' if key == 'maxSteps' else 'turns'}, "
                        f"past the suite's {key} of {caps[key]} for {slug}: not simulated "
                        "(nothing was kept)",
                    )
            total += steps
            if total > limits.max_steps:
                raise over(f"the replays hold over {limits.max_steps} actions in all")
    return bench


def prune(folder: Path, bench: JSON) -> None:
    """Remove the folders of games the result's suite does not play (none of its
    figures read them)."""
    games = set(bench["suite"]["games"])
    for child in folder.iterdir():
        if child.is_dir() and child.name not in games:
            shutil.rmtree(child)


def _whole(value: object) -> bool:
    return type(value) is int and value >= 1


def _replay_counts(replay: Path, turns: bool) -> tuple[int, int]:
    """A replay file's actions (its lines but the header and the end line) and, when
    ``turns``, the agent turns its lines note (0 otherwise), read a line at a time."""
    lines = noted = 0
    with replay.open("rb") as stream:
        for line in stream:
            lines += 1
            if turns and b'"turns"' in line:
                where = f"{replay.parent.parent.name}/{replay.parent.name}/{replay.name}"
                try:
                    found = parse_bounded(line, f"{where} line {lines}", MAX_LINE_BYTES)
                except Unsound as error:
                    raise PublishRefused(422, f"{error} (nothing was kept)") from None
                turned = found.get("turns", ()) if isinstance(found, dict) else ()
                noted += len(turned) if isinstance(turned, list) else 0
    return max(0, lines - 2), noted
