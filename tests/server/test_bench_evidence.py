"""The bench shelf as evidence: every figure it shows is one the server derived from the
re-simulated replays of the suite's own episodes, under the suite's own name only when it
is a suite the server ships; no tar form writes past the shelf's limits; no malformed
file costs more than one check; markup in a result's names is escaped in its report.

Each attack is one a forger would try on the random agent's published suite-v2 result
(``docs/bench/random``), edited and refigured with the runner's own ``bench_figures`` so
that its ``bench.json`` agrees with its records."""

from __future__ import annotations

import gzip
import io
import json
import resource
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from playbench.cli import main
from playbench.core.rng import draw_seed
from playbench.runner.bench import BENCH, bench_figures, read_bench
from playbench.runner.publish import archive
from playbench.runner.report import write_report
from playbench.runner.suite import shipped_suites
from playbench.server.bench import BenchShelf, PublishRefused, ShelfLimits
from playbench.server.bench_archive import unpack
from playbench.server.bench_derive import is_official, unscaled
from tests.benches import small_bench

DOCS = Path(__file__).parents[2] / "docs" / "bench"
#: the published results in docs/bench (each a folder with bench.json)
PUBLISHED = sorted(path.parent for path in DOCS.rglob(BENCH))
MIB = 1 << 20


def checks() -> float:
    return REGISTRY.get_sample_value("playbench_bench_checks_total") or 0.0


def folder_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def refused(shelf: BenchShelf, body: bytes) -> PublishRefused:
    with pytest.raises(PublishRefused) as caught:
        shelf.publish(body, "Ada")
    kept = {path.name for path in shelf.root.iterdir()} if shelf.root.exists() else set()
    assert kept <= {".archives", ".verdicts"}  # no result, no draft
    return caught.value


@pytest.fixture
def forged(tmp_path: Path) -> Path:
    """A copy of the random agent's suite-v2 result, to be edited."""
    folder = tmp_path / "random"
    shutil.copytree(DOCS / "random", folder)
    return folder


@pytest.fixture
def shelf(tmp_path: Path) -> BenchShelf:
    return BenchShelf(tmp_path / "data" / "bench")


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "runs.jsonl").read_text().splitlines()]


def rewrite(run: Path, change: Callable[[dict], dict]) -> None:
    rows = [change(row) for row in records(run)]
    (run / "runs.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def refigure(folder: Path) -> dict:
    """``bench.json`` recomputed from the (edited) records, as a forger would."""
    bench = bench_figures(folder)
    (folder / BENCH).write_text(json.dumps(bench, indent=2))
    return bench


def best(run: Path) -> dict:
    return max(records(run), key=lambda row: row["score"])


def test_forged_progress_and_outcomes_are_refused_with_the_replays_figure(forged, shelf):
    for run in sorted(path.parent for path in forged.glob("*/run.json")):
        rewrite(run, lambda row: {**row, "progress": 1.0, "outcome": "won"})
    assert refigure(forged)["headline"]["meanProgress"] == 1.0
    error = refused(shelf, archive(forged))
    assert error.status == 422
    first = records(DOCS / "random" / "delvewick")[0]
    assert f"records progress 1.0, its replay gives {first['progress']!r}" in str(error)


def test_every_record_pointing_at_the_best_replay_is_refused(forged, shelf):
    run = forged / "gem-swap"
    top = best(run)
    rewrite(run, lambda row: {**top, "seed": row["seed"]})
    assert refigure(forged)["games"]["gem-swap"]["meanScore"] == top["score"]
    error = refused(shelf, archive(forged))
    assert error.status == 422
    assert f"names the replay {top['replay']!r}, not its own replays/gem-swap-" in str(error)


def test_each_replay_replaced_by_the_best_episode_of_another_seed_is_refused(forged, shelf):
    run = forged / "gem-swap"
    top = best(run)
    for row in records(run):
        if row["seed"] != top["seed"]:
            shutil.copyfile(run / top["replay"], run / row["replay"])
    rewrite(run, lambda row: {**top, "seed": row["seed"], "replay": row["replay"]})
    refigure(forged)
    error = refused(shelf, archive(forged))
    assert error.status == 422
    assert f"is 'gem-swap' on seed {top['seed']} with options {{}}: the suite's episode" in str(
        error
    )


def test_a_suite_of_ones_own_under_a_shipped_name_is_refused(tmp_path, shelf):
    seed = draw_seed() // 2
    made = small_bench(tmp_path / "suite-v2.json", tmp_path / "own", ("gem-swap",), str(seed), 40)
    assert read_bench(made)["suite"]["name"] == "suite-v2"
    error = refused(shelf, archive(made))
    assert error.status == 422
    assert "its suite is named 'suite-v2' but is not the shipped suite-v2" in str(error)


def test_a_suite_of_its_own_name_is_kept_apart_as_unofficial(tmp_path, shelf):
    seed = draw_seed() // 2
    made = small_bench(tmp_path / "mine.json", tmp_path / "own", ("gem-swap",), str(seed), 40)
    kept = shelf.publish(archive(made), "Ada")
    assert kept.verified and not kept.official
    assert kept.bench == read_bench(made)


@pytest.mark.parametrize("folder", PUBLISHED, ids=lambda path: path.relative_to(DOCS).as_posix())
def test_the_published_results_publish_with_their_figures_unchanged(folder, shelf):
    """A shipped suite's result keeps every figure; one of a suite of its own (the
    model bench's ``cpu-model``) keeps all but the scale, which its publisher chose."""
    kept = shelf.publish(archive(folder), "Ada")
    assert kept.verified, kept.problems
    claimed = read_bench(folder)
    assert kept.official == (claimed["suite"]["name"] in shipped_suites())
    assert kept.bench == (claimed if kept.official else unscaled(claimed))
    if not kept.official:
        assert claimed["headline"]["normalisedScore"] is not None
        assert kept.bench["headline"]["normalisedScore"] is None
        assert read_bench(kept.folder) == kept.bench
        assert all("scale" not in game for game in kept.bench["games"].values())


def test_a_result_just_played_by_the_cli_publishes_as_official(tmp_path, shelf):
    """The runner's output as the shelf's input: ``playbench bench`` on a shipped suite,
    its folder archived as is."""
    suite = "quick"
    out = tmp_path / "honest"
    assert (
        main(["bench", "--agent", "random", "--suite", suite, "--workers", "1", "--out", str(out)])
        == 0
    )
    kept = shelf.publish(archive(out), "Ada")
    assert kept.verified and kept.official
    assert kept.bench == read_bench(out)
    assert is_official(kept.bench["suite"])


# -- archive forms --------------------------------------------------------------------------


def small(tmp_path: Path) -> Path:
    seed = draw_seed() // 2
    return small_bench(tmp_path / "tiny.json", tmp_path / "tiny", ("gem-swap",), str(seed), 30)


def tar_all(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(folder).as_posix())
    return buffer.getvalue()


def with_member(folder: Path, blocks: bytes, data_bytes: int) -> bytes:
    """The result's tar with raw header ``blocks`` and ``data_bytes`` zeros after them,
    before the end of the archive (zeros pack small: a 64 MiB claim is a few KB)."""
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(folder).as_posix())
    head = inner.getvalue().rstrip(b"\0")
    head += bytes(-len(head) % 512)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as packed:
        packed.write(head + blocks)
        for _ in range(data_bytes // MIB):
            packed.write(bytes(MIB))
        packed.write(bytes(1024))
    return buffer.getvalue()


def pax_sized(name: str, size: int) -> bytes:
    """A member whose ustar header says 0 bytes and whose pax header says ``size``."""
    info = tarfile.TarInfo(name)
    info.size = 0
    info.pax_headers = {"size": str(size)}
    return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")


def old_folder_hiding(hidden: bytes) -> bytes:
    """A member named ``junk/`` of the old file type whose data holds ``hidden``: a reader
    that skips a file's data skips it, :mod:`tarfile` takes the member for a folder and
    reads ``hidden`` as headers."""
    info = tarfile.TarInfo("junk/")
    info.type = tarfile.AREGTYPE
    info.size = len(hidden)
    return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape") + hidden


LIMITS = ShelfLimits(max_file_bytes=MIB, max_unpacked_bytes=4 * MIB)


@pytest.mark.parametrize(
    "blocks",
    [
        pax_sized("gem-swap/junk.bin", 64 * MIB),
        old_folder_hiding(pax_sized("gem-swap/junk.bin", 64 * MIB)),
    ],
    ids=["pax-size", "old-type-folder"],
)
def test_a_size_stated_past_the_ustar_field_is_refused_and_nothing_is_written(tmp_path, blocks):
    body = with_member(small(tmp_path), blocks, 64 * MIB)
    assert len(body) < MIB
    shelf = BenchShelf(tmp_path / "data" / "bench", LIMITS)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error = refused(shelf, body)
    assert (error.status, str(error)) == (
        413,
        f"a file of the archive is over {MIB} bytes, the shelf's limit (nothing was kept)",
    )
    assert folder_bytes(tmp_path / "data") < 64 * 1024
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 32 * 1024  # KiB


@pytest.mark.parametrize(
    "blocks",
    [
        pax_sized("gem-swap/replays/junk.jsonl", 64 * MIB),
        old_folder_hiding(pax_sized("gem-swap/replays/junk.jsonl", 64 * MIB)),
    ],
    ids=["pax-size", "old-type-folder"],
)
def test_unpacking_alone_stops_at_the_limit_counting_the_bytes_it_writes(tmp_path, blocks):
    body = with_member(small(tmp_path), blocks, 64 * MIB)
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(PublishRefused) as caught:
        unpack(body, into, LIMITS)
    assert caught.value.status == 413
    assert folder_bytes(into) <= MIB + 64 * 1024


def test_a_pax_header_past_its_bound_is_refused_before_it_is_read(tmp_path):
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = 64 * MIB
    blocks = info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")
    body = with_member(small(tmp_path), old_folder_hiding(blocks), 64 * MIB)
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(PublishRefused) as caught:
        unpack(body, into, LIMITS)
    assert caught.value.status == 413 and "header is over 8192 bytes" in str(caught.value)


def test_only_the_files_of_the_result_are_kept(tmp_path, shelf):
    made = small(tmp_path)
    (made / "gem-swap" / "notes.txt").write_text("not part of a result")
    (made / "elsewhere").mkdir()
    (made / "elsewhere" / "run.json").write_text("{}")
    kept = shelf.publish(tar_all(made), "Ada")
    assert kept.verified
    names = {path.relative_to(kept.folder).as_posix() for path in kept.folder.rglob("*")}
    assert "gem-swap/notes.txt" not in names and "gem-swap/summary.json" not in names
    assert not any(name.startswith("elsewhere") for name in names)


# -- malformed files --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "bench.json is not JSON"),
        ('{"bench": 1, "pad": "' + "x" * (30 * MIB) + '"}', "bench.json is over 1,048,576 bytes"),
    ],
    ids=["deep", "huge"],
)
def test_a_deep_or_huge_bench_json_is_a_422_naming_it(tmp_path, shelf, text, problem):
    made = small(tmp_path)
    (made / BENCH).write_text(text)
    start = checks()
    error = refused(shelf, tar_all(made))
    assert error.status == 422 and str(error).startswith(problem), str(error)
    assert checks() == start


def test_a_bench_json_nested_past_the_depth_bound_is_named(tmp_path, shelf):
    made = small(tmp_path)
    bench = read_bench(made)
    bench["pad"] = json.loads("[" * 40 + "]" * 40)
    (made / BENCH).write_text(json.dumps(bench))
    error = refused(shelf, tar_all(made))
    assert (error.status, str(error)) == (
        422,
        "bench.json nests deeper than 16 levels (nothing was kept)",
    )


@pytest.mark.parametrize(
    "edit",
    ["record-seed-text", "record-without-progress", "record-not-an-object", "header-seed-text"],
)
def test_a_malformed_record_or_replay_is_a_final_422_checked_once(tmp_path, shelf, edit):
    made = small(tmp_path)
    run = made / "gem-swap"
    if edit.startswith("record"):
        rows = records(run)
        if edit == "record-seed-text":
            rows[0]["seed"] = "zero"
        elif edit == "record-without-progress":
            del rows[0]["progress"]
        lines = [json.dumps(row) for row in rows]
        if edit == "record-not-an-object":
            lines.append("[1, 2]")
        (run / "runs.jsonl").write_text("\n".join(lines) + "\n")
    else:
        replay = next((run / "replays").glob("*.jsonl"))
        lines = replay.read_text().splitlines()
        header = json.loads(lines[0])
        header["seed"] = "zero"
        replay.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    body = tar_all(made)
    start = checks()
    first = refused(shelf, body)
    assert first.status == 422 and first.final, str(first)
    assert checks() == start + 1
    again = refused(shelf, body)
    assert (again.status, str(again)) == (first.status, str(first))
    assert checks() == start + 1  # answered from the first verdict


# -- the report --------------------------------------------------------------------------------

MARKUP = {
    "suite": "<script>alert('suite')</script>",
    "agent": '<img src=x onerror="alert(1)">',
    "model": "[click](javascript:alert(2)) | <b>bold</b> *",
}


def test_markup_in_every_name_of_a_result_is_escaped_in_its_drawn_report(tmp_path, shelf):
    seed = draw_seed() // 2
    suite = {
        "name": MARKUP["suite"],
        "description": "markup in every name",
        "games": {"gem-swap": {"seeds": str(seed), "options": {}, "maxSteps": 30, "harness": {}}},
    }
    suite_file = tmp_path / "marked.json"
    suite_file.write_text(json.dumps(suite))
    made = tmp_path / "made"
    command = ["bench", "--agent", "random", "--suite", str(suite_file), "--workers", "1"]
    assert main([*command, "--out", str(made)]) == 0
    config = json.loads((made / "gem-swap" / "run.json").read_text())
    config.update(agent=MARKUP["agent"], model=MARKUP["model"])
    (made / "gem-swap" / "run.json").write_text(json.dumps(config))
    refigure(made)
    kept = shelf.publish(archive(made), "Ada")
    assert kept.verified and kept.bench["agent"] == MARKUP["agent"]
    out = tmp_path / "report"
    write_report([kept.folder], out)
    page = (out / "index.html").read_text()
    markdown = (out / "report.md").read_text()
    assert "<script>alert" not in page and "<img src=x" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(&#39;suite&#39;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page
    for raw in ("<script>", "<img", "<b>", "[click](javascript"):
        assert raw not in markdown
    assert '&lt;img src=x onerror="alert(1)"&gt; \\[click\\](javascript:alert(2)) \\|' in markdown
