"""The bench shelf: a result's verdict stored by the digest of its contents, so that a
restart or another worker reads it instead of re-simulating; a changed result checked
again; the report drawn once, beside the result, and a failed drawing kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from filelock import FileLock
from PIL import Image
from prometheus_client import REGISTRY

from playbench import __version__
from playbench.core.rng import draw_seed
from playbench.runner.charts import PIXELS
from playbench.server.bench import (
    REPORT,
    REPORT_FAILED,
    REPORT_LOCK,
    VERDICTS,
    BenchShelf,
    ReportStatus,
    draw_report,
)
from tests.benches import change_a_line, small_bench


def checks() -> float:
    return REGISTRY.get_sample_value("playbench_bench_checks_total") or 0.0


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random agent's bench over two games on a drawn seed."""
    root = tmp_path_factory.mktemp("shelf")
    seed = str(draw_seed() // 2)
    return small_bench(root / "pair.json", root / "made", ("gem-swap", "delvewick"), seed, 200)


@pytest.fixture
def shelved(made: Path, tmp_path: Path) -> Path:
    """A copy of the bench as a folder upload: ``<bench>/result``."""
    root = tmp_path / "bench"
    shutil.copytree(made, root / "result")
    return root


def test_a_verdict_is_stored_and_a_fresh_shelf_reads_it_without_re_simulating(shelved):
    start = checks()
    [first] = BenchShelf(shelved).results()
    assert first.verified and first.id == "result"
    assert checks() == start + 1
    assert BenchShelf(shelved).results()[0].verified  # a restart, another worker
    assert BenchShelf(shelved).verified("result") is not None
    assert checks() == start + 1
    [stored] = (shelved / VERDICTS).iterdir()
    assert json.loads(stored.read_text()) == {"version": __version__, "problems": []}


def test_a_changed_result_is_checked_again_and_its_old_contents_keep_their_verdict(shelved):
    BenchShelf(shelved).results()
    start = checks()
    replay = next((shelved / "result" / "gem-swap" / "replays").glob("*.jsonl"))
    before = change_a_line(replay, 1, "reward", 5)
    [changed] = BenchShelf(shelved).results()
    assert checks() == start + 1
    assert not changed.verified and changed.bench is None
    assert changed.problems[0].startswith(f"gem-swap/replays/{replay.name}: step 1")
    assert BenchShelf(shelved).verified("result") is None
    replay.write_text(before)  # the same bytes again, at another time
    assert BenchShelf(shelved).results()[0].verified
    assert checks() == start + 1
    assert len(list((shelved / VERDICTS).iterdir())) == 2


def test_a_verdict_of_another_version_or_unreadable_is_checked_again(shelved):
    BenchShelf(shelved).results()
    [stored] = (shelved / VERDICTS).iterdir()
    start = checks()
    other = {"version": "0.0.0", "problems": []}
    for text in (json.dumps(other), "not json", json.dumps({"version": __version__})):
        stored.write_text(text)
        assert BenchShelf(shelved).results()[0].verified
    assert checks() == start + 3
    assert json.loads(stored.read_text())["version"] == __version__


def test_the_report_is_drawn_once_beside_the_result(shelved):
    folder = shelved / "result"
    shelf = BenchShelf(shelved)
    assert shelf.verified("result").report_status is ReportStatus.DRAWING
    assert draw_report(folder) is True
    assert shelf.verified("result").report_status is ReportStatus.DRAWN
    pictures = sorted(path.name for path in (folder / REPORT).glob("*.png"))
    assert pictures == [
        "headline.png",
        "progress.png",
        "scores-delvewick.png",
        "scores-gem-swap.png",
    ]
    for name in pictures:
        with Image.open(folder / REPORT / name) as image:
            image.load()
            assert image.size == PIXELS and len(image.getcolors(PIXELS[0] * PIXELS[1])) > 1
    page = (folder / REPORT / "index.html").read_text()
    replay = next((folder / "gem-swap" / "replays").glob("*.jsonl")).name
    assert f'data-replay="../gem-swap/replays/{replay}"' in page
    assert [path.name for path in folder.iterdir() if path.name.startswith(".report-")] == []
    drawn = (folder / REPORT / "index.html").stat().st_mtime_ns
    assert draw_report(folder) is False
    assert (folder / REPORT / "index.html").stat().st_mtime_ns == drawn
    assert BenchShelf(shelved).results()[0].verified  # the report is no part of the result


def test_no_report_is_drawn_while_another_process_holds_the_lock(shelved):
    folder = shelved / "result"
    with FileLock(folder / REPORT_LOCK).acquire(timeout=0):
        assert draw_report(folder) is False
    assert not (folder / REPORT).exists()


def test_a_failed_drawing_is_kept_and_shown_not_raised(shelved, caplog):
    folder = shelved / "result"
    (folder / REPORT).write_text("a file where the report goes")
    assert draw_report(folder) is False
    assert "report not drawn: result" in caplog.text
    failure = (folder / REPORT_FAILED).read_text()
    assert failure == "report is there but holds no index.html: move it away\n"
    shelved_result = BenchShelf(shelved).verified("result")
    assert shelved_result.report_status is ReportStatus.FAILED
    assert shelved_result.report_failure == failure.strip()
    assert draw_report(folder) is False  # not again, until the file is deleted
