"""A bench published with ``playbench bench --publish`` to a real server with a real
player key: its row on ``/bench``, the report the server draws for it (its pictures
decoded, its replays opening in ``/replay``); a result whose replay does not verify
refused, with no row and no report; a folder put in by hand whose report is held by
another drawer, then drawn, and one whose report cannot be drawn; and a second server
process on the same data folder that shows the rows without re-simulating."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from filelock import FileLock
from PIL import Image
from playwright.sync_api import Browser, Page, expect
from prometheus_client.parser import text_string_to_metric_families

from playbench.cli import main
from playbench.runner.bench import read_bench
from playbench.runner.charts import PIXELS
from playbench.server.bench import REPORT, REPORT_LOCK, VERDICTS
from tests.benches import change_a_line
from tests.web.layout import PHONE, layout_problems, viewing
from tests.web.reports import follow_a_replay_link
from tests.web.serving import Served, quiet, serve_process

ENV = "PLAYBENCH_PLAYER_KEY"
PLAYER = "Bench Publisher"
#: a report takes a second or two to draw, far longer on a busy machine
DRAWN_MS = 180_000
#: the report of one agent on the quick suite: the headline, the normalised score and the
#: progress per game, and a score spread per game (no paired charts: one agent)
PICTURES = 3 + 4


@dataclass(frozen=True)
class Published:
    data: Path
    folder: Path
    id: str
    served: Served


def bench_args(folder: Path) -> list[str]:
    return ["bench", "--agent", "bot", "--suite", "quick", "--workers", "1", "--out", str(folder)]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Published]:
    """The bot's quick bench, published by a registered player to ``playbench serve``
    with two workers."""
    root = tmp_path_factory.mktemp("bench-publish")
    data = root / "data"
    data.mkdir()
    folder = root / "bot"
    with serve_process(data, *quiet(2)) as served:
        answer = httpx.post(f"{served.base}/api/players", json={"name": PLAYER})
        assert answer.status_code == 201, answer.text
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(ENV, answer.json()["key"])
            assert main([*bench_args(folder), "--publish", served.base, "--player", PLAYER]) == 0
        [result] = httpx.get(f"{served.base}/api/bench").json()["results"]
        yield Published(data, folder, result["id"], served)


@pytest.fixture(scope="module")
def server(published: Published) -> str:
    return published.served.base


def row(page: Page, result_id: str):
    return page.locator(f'[data-testid="bench-row"][data-id="{result_id}"]')


def counted(base: str, name: str) -> float | None:
    """The value of an unlabelled counter on the server's ``/metrics``."""
    text = httpx.get(f"{base}/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == f"{name}_total" and not sample.labels:
                return sample.value
    return None


def put_in_by_hand(published: Published, name: str) -> Path:
    """A copy of the published bench folder, renamed into the data folder whole."""
    staging = published.data / "bench" / f".staging-{name}"
    shutil.copytree(published.folder, staging)
    return staging


def test_the_published_result_has_a_row_and_the_report_the_server_drew(
    page: Page, published: Published, server: str
):
    bench = read_bench(published.folder)
    page.goto("/bench")
    shown = row(page, published.id)
    expect(shown).to_have_count(1)
    # a shipped suite's headline is the normalised score, the mean progress beside it
    expect(shown.get_by_test_id("headline")).to_have_text(
        f"{bench['headline']['normalisedScore']:.3f}"
    )
    expect(shown.get_by_test_id("progress")).to_have_text(
        f"{bench['headline']['meanProgress']:.3f}"
    )
    expect(shown).to_contain_text(f"bot · {PLAYER}")
    link = shown.get_by_role("link", name="report")
    expect(link).to_be_visible(timeout=DRAWN_MS)  # the page reloads itself until then
    link.click()
    expect(page).to_have_url(f"{server}/bench/{published.id}/report/")
    expect(page.locator("h1")).to_have_text("playbench report")
    sizes = page.locator("img").evaluate_all(
        """images => Promise.all(images.map(image => image.decode().then(
            () => [image.naturalWidth, image.naturalHeight])))"""
    )
    assert sizes == [list(PIXELS)] * PICTURES
    report = published.data / "bench" / published.id / REPORT
    pictures = sorted(path.name for path in report.glob("*.png"))
    assert len(pictures) == PICTURES
    for name in pictures:
        answer = httpx.get(f"{server}/bench/{published.id}/report/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
        with Image.open(io.BytesIO(answer.content)) as image:
            image.load()
            assert image.size == PIXELS
            assert len(image.getcolors(PIXELS[0] * PIXELS[1])) > 1  # not one flat colour

    follow_a_replay_link(page, published.id, published.folder, "bot", "gem-swap")


def test_a_result_whose_replay_does_not_verify_gets_no_row_and_no_report(
    page: Page, published: Published, server: str, tmp_path: Path, capsys
):
    before = sorted(path.name for path in (published.data / "bench").iterdir())
    changed = tmp_path / "bot"
    shutil.copytree(published.folder, changed)
    replay = next((changed / "cogcrawl" / "replays").glob("*.jsonl"))
    change_a_line(replay, 3, "score", 1)
    key = httpx.post(f"{server}/api/players", json={"name": "Bench Forger"}).json()["key"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, key)
        assert main([*bench_args(changed), "--publish", server, "--player", "Bench Forger"]) == 2
    error = capsys.readouterr().err
    assert "HTTP 422" in error and f"{replay.name}: step 3" in error
    assert sorted(path.name for path in (published.data / "bench").iterdir()) == before
    page.goto("/bench")
    expect(page.get_by_test_id("bench-row").first).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("Bench Forger")
    expect(page.get_by_test_id("bench-refused")).to_have_count(0)
    listed = httpx.get(f"{server}/api/bench").json()
    assert "Bench Forger" not in [result["player"] for result in listed["results"]]
    assert listed["refused"] == []


def test_a_folder_put_in_by_hand_gets_its_report_once_no_other_drawer_holds_it(
    page: Page, published: Published
):
    staging = put_in_by_hand(published, "held")
    folder = published.data / "bench" / "by-hand"
    with FileLock(staging / REPORT_LOCK).acquire(timeout=0):
        staging.rename(folder)
        page.goto("/bench")
        expect(row(page, "by-hand").get_by_test_id("report-drawing")).to_have_text(
            "report being drawn"
        )
        assert not (folder / REPORT).exists()
    link = row(page, "by-hand").get_by_role("link", name="report")
    expect(link).to_be_visible(timeout=DRAWN_MS)
    assert (folder / REPORT / "index.html").is_file()


def test_a_report_that_cannot_be_drawn_is_shown_so_and_logged_never_a_500(
    browser: Browser, page: Page, published: Published, server: str
):
    staging = put_in_by_hand(published, "broken")
    (staging / REPORT).write_text("a file where the report goes")
    staging.rename(published.data / "bench" / "cannot-draw")
    page.goto("/bench")
    failed = row(page, "cannot-draw").get_by_test_id("report-failed")
    expect(failed).to_have_text(
        "not drawn: report is there but holds no index.html: move it away", timeout=DRAWN_MS
    )
    assert "report not drawn: cannot-draw" in published.served.log_path.read_text()
    assert httpx.get(f"{server}/bench/cannot-draw/report/").status_code == 404
    [listed] = [
        r for r in httpx.get(f"{server}/api/bench").json()["results"] if r["id"] == "cannot-draw"
    ]
    assert listed["report"] is None and listed["reportStatus"] == "failed"
    with viewing(browser, server, PHONE) as phone:
        phone.goto("/bench")
        expect(phone.get_by_test_id("report-failed")).to_be_visible()
        assert layout_problems(phone) == []


def test_a_second_server_on_the_same_data_folder_shows_the_rows_without_re_simulating(
    browser: Browser, page: Page, published: Published
):
    page.goto("/bench")
    expect(row(page, published.id).get_by_role("link", name="report")).to_be_visible(
        timeout=DRAWN_MS
    )
    first = counted(published.served.base, "playbench_bench_checks")
    assert first is not None and first >= 1  # the first server re-simulated the result
    verdicts = list((published.data / "bench" / VERDICTS).iterdir())
    assert verdicts
    with serve_process(published.data, *quiet(1), log_name="serve-2.log") as second:
        with viewing(browser, second.base, PHONE) as other:
            other.goto("/bench")
            shown = row(other, published.id)
            expect(shown.get_by_role("link", name="report")).to_be_visible()
            listed = httpx.get(f"{second.base}/api/bench").json()
            assert published.id in [result["id"] for result in listed["results"]]
        assert counted(second.base, "playbench_bench_checks") == 0
    assert sorted((published.data / "bench" / VERDICTS).iterdir()) == sorted(verdicts)
