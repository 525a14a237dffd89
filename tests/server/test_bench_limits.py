"""The bench shelf's costs bounded: every archive limit (names, files, their sizes, all
unpacked) refused from the tar headers with the limit named and nothing kept; a replay past
its suite's ``maxSteps`` or ``maxTurns`` refused before anything is simulated; the same
bytes answered from their first verdict; errors that quote nothing unbounded and show no
server path; publishing's own rate per player and per address; ``GET /api/bench`` whose
work does not grow with a result's files."""

from __future__ import annotations

import io
import json
import shutil
import sys
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from playbench.core.rng import draw_seed
from playbench.runner.publish import KEY_HEADER, archive
from playbench.server import Settings, create_app
from playbench.server.bench import BenchShelf, PublishRefused, ShelfLimits, draw_report, shelf_for
from playbench.server.guards import Rate
from tests.benches import small_bench
from tests.server.helpers import register


def checks() -> float:
    return REGISTRY.get_sample_value("playbench_bench_checks_total") or 0.0


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random agent's Gem Swap bench on two drawn seeds, 40 steps at most."""
    root = tmp_path_factory.mktemp("limits")
    seed = draw_seed() // 2
    return small_bench(root / "short.json", root / "made", ("gem-swap",), f"{seed}-{seed + 1}", 40)


@pytest.fixture
def copy(made: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(made, folder)
    return folder


def tar_of(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def refused(shelf: BenchShelf, body: bytes) -> PublishRefused:
    start = checks()
    with pytest.raises(PublishRefused) as caught:
        shelf.publish(body, "Ada")
    assert checks() == start  # nothing simulated
    kept = {path.name for path in shelf.root.iterdir()} if shelf.root.exists() else set()
    assert kept <= {".archives"}  # perhaps the verdict on those bytes; no result, no draft
    assert "nothing was kept" in str(caught.value)
    assert str(shelf.root) not in str(caught.value)
    return caught.value


def test_a_long_name_header_is_refused_before_it_is_read(tmp_path):
    shelf = BenchShelf(tmp_path / "bench")
    body = tar_of((tarfile.TarInfo("a" * 20_000), b"x"))
    error = refused(shelf, body)
    assert error.status == 413
    assert str(error) == (
        "a member's name or header is over 8192 bytes, the shelf's limit (nothing was kept)"
    )


def test_a_name_past_the_name_limit_is_refused_and_not_quoted_whole(tmp_path):
    shelf = BenchShelf(tmp_path / "bench")
    error = refused(shelf, tar_of((tarfile.TarInfo("b/" * 150), b"x")))
    assert (error.status, str(error)) == (
        413,
        "a member's name is over 255 characters, the shelf's limit (nothing was kept)",
    )
    odd = "c" * 200 + "?"  # within the name limit, not a name a bench folder has
    error = refused(shelf, tar_of((tarfile.TarInfo(odd), b"x")))
    assert error.status == 422
    assert str(error) == (
        f"the archive holds {'c' * 79 + '…'!r}: only a bench folder's files (nothing was kept)"
    )


@pytest.mark.parametrize(
    ("limits", "sizes", "limit"),
    [
        (ShelfLimits(max_files=3), (1, 1, 1, 1), "the archive holds over 3 files"),
        (ShelfLimits(max_file_bytes=100), (10, 101), "a file of the archive is over 100 bytes"),
        (
            ShelfLimits(max_unpacked_bytes=250),
            (100, 100, 100),
            "the archive unpacks to over 250 bytes",
        ),
    ],
)
def test_each_archive_limit_is_refused_with_the_limit_named(tmp_path, limits, sizes, limit):
    shelf = BenchShelf(tmp_path / "bench", limits)
    body = tar_of(*((tarfile.TarInfo(f"f{n}.txt"), b"z" * size) for n, size in enumerate(sizes)))
    error = refused(shelf, body)
    assert (error.status, str(error)) == (413, f"{limit}, the shelf's limit (nothing was kept)")


def add_actions(folder: Path, count: int) -> Path:
    """Repeat the last action line of the first Gem Swap replay ``count`` times."""
    replay = sorted((folder / "gem-swap" / "replays").glob("*.jsonl"))[0]
    lines = replay.read_text().splitlines()
    replay.write_text("\n".join([*lines[:-1], *[lines[-2]] * count, lines[-1]]) + "\n")
    return replay


def test_a_replay_past_its_suites_max_steps_is_refused_without_being_simulated(copy, tmp_path):
    replay = add_actions(copy, 40)
    steps = len(replay.read_text().splitlines()) - 2
    assert steps > 40
    error = refused(BenchShelf(tmp_path / "bench"), archive(copy))
    assert (error.status, str(error)) == (
        422,
        f"gem-swap/replays/{replay.name}: {steps} actions, past the suite's maxSteps of 40"
        " for gem-swap: not simulated (nothing was kept)",
    )


def test_a_replay_past_its_suites_max_turns_is_refused_without_being_simulated(copy, tmp_path):
    bench = json.loads((copy / "bench.json").read_text())
    bench["suite"]["games"]["gem-swap"]["maxTurns"] = 2
    (copy / "bench.json").write_text(json.dumps(bench))
    replay = sorted((copy / "gem-swap" / "replays").glob("*.jsonl"))[0]
    lines = replay.read_text().splitlines()
    noted = json.loads(lines[1])
    noted["turns"] = [{"n": 1}, {"n": 2}, {"n": 3}]
    replay.write_text("\n".join([lines[0], json.dumps(noted), *lines[2:]]) + "\n")
    error = refused(BenchShelf(tmp_path / "bench"), archive(copy))
    assert (error.status, str(error)) == (
        422,
        f"gem-swap/replays/{replay.name}: 3 turns, past the suite's maxTurns of 2"
        " for gem-swap: not simulated (nothing was kept)",
    )


def test_the_actions_of_an_upload_in_all_are_bounded(copy, tmp_path):
    error = refused(BenchShelf(tmp_path / "bench", ShelfLimits(max_steps=5)), archive(copy))
    assert (error.status, str(error)) == (
        413,
        "the replays hold over 5 actions in all, the shelf's limit (nothing was kept)",
    )


def test_a_body_that_is_no_result_shows_no_server_path(tmp_path):
    shelf = BenchShelf(tmp_path / "bench")
    error = refused(shelf, tar_of((tarfile.TarInfo("notes.txt"), b"hello")))
    assert (error.status, str(error)) == (
        422,
        "the result holds no bench.json: not a bench folder (nothing was kept)",
    )
    error = refused(shelf, b"\x1f\x8b" + b"\0" * 40)
    assert error.status == 422
    assert str(error).startswith("the body is not a gzipped tar of a bench folder: ")


def test_the_same_bytes_again_are_answered_from_their_first_verdict(made, copy, tmp_path):
    shelf = BenchShelf(tmp_path / "bench")
    start = checks()
    first = shelf.publish(archive(made), "Ada")
    assert first.verified and checks() == start + 1
    again = BenchShelf(tmp_path / "bench").publish(archive(made), "Ada")  # a restart
    assert again.id == first.id and checks() == start + 1
    replay = add_actions(copy, 1)  # within the cap: refused by the simulation
    body = archive(copy)
    with pytest.raises(PublishRefused) as caught:
        shelf.publish(body, "Ada")
    assert f"gem-swap/replays/{replay.name}: " in str(caught.value)
    assert checks() == start + 2
    with pytest.raises(PublishRefused) as twice:
        BenchShelf(tmp_path / "bench").publish(body, "Ada")
    assert (twice.value.status, str(twice.value)) == (422, str(caught.value))
    assert checks() == start + 2


def test_publishing_has_its_own_rate_per_player_and_per_address(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "data",
        rate_publish_per_address=Rate(per_second=1 / 3600, burst=2.0),
        rate_publish_per_player=Rate(per_second=1 / 3600, burst=1.0),
    )
    with TestClient(create_app(settings)) as client:

        def publish(name: str) -> tuple[int, str]:
            headers = {KEY_HEADER: register(client, name)}
            answer = client.post(
                "/api/bench", params={"player": name}, content=b"not a tar", headers=headers
            )
            return answer.status_code, answer.json()["error"]

        assert publish("Ada")[0] == 422
        status, error = publish("Ada")
        assert status == 429
        assert error.startswith("too many bench results published by this player: retry in ")
        status, error = publish("Bo")
        assert status == 429
        assert error.startswith("too many bench results published by this address: retry in ")


class Reads:
    """Files opened and folders listed by this process while counting (audit events),
    but by the shelf's own threads."""

    def __init__(self) -> None:
        self.counting = False
        self.events = 0
        sys.addaudithook(self._hook)

    def _hook(self, event: str, _args: object) -> None:
        if (
            self.counting
            and event in ("open", "os.scandir", "os.listdir")
            and not threading.current_thread().name.startswith("bench-")
        ):
            self.events += 1

    def during(self, work) -> int:
        self.events, self.counting = 0, True
        try:
            work()
        finally:
            self.counting = False
        return self.events


READS = Reads()


@pytest.fixture
def listing(made: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Path]]:
    data = tmp_path / "data"
    shutil.copytree(made, data / "bench" / "result")
    assert draw_report(data / "bench" / "result")  # no drawer reads files meanwhile
    with TestClient(create_app(Settings(data_dir=data))) as client:
        yield client, data / "bench" / "result"


def test_listing_the_bench_reads_as_much_for_a_result_of_many_files(listing):
    client, folder = listing

    def listed() -> None:
        answer = client.get("/api/bench")
        assert answer.status_code == 200
        assert [row["id"] for row in answer.json()["results"]] == ["result"]

    listed()  # the first sight checks the result
    few = READS.during(listed)
    extra = folder / "gem-swap" / "extra"
    extra.mkdir()
    for number in range(2_000):
        (extra / f"{number}.txt").write_text("x")
    assert shelf_for(folder.parents[1]).rescan() == 0  # read again off the request path
    many = READS.during(listed)
    assert many == few > 0


BASELINE = Path(__file__).parents[2] / "docs" / "bench" / "bot"


def test_a_re_simulation_past_its_cpu_budget_is_stopped_and_refused(tmp_path):
    # the bot's suite-v2 result: about 2.5 s of CPU to re-simulate, against a budget of 1 s
    shelf = BenchShelf(tmp_path / "bench", ShelfLimits(cpu_seconds=1))
    body = archive(BASELINE)
    start = checks()
    with pytest.raises(PublishRefused) as caught:
        shelf.publish(body, "Ada")
    expected = "its re-simulation needs over 1 s of CPU, the shelf's limit (nothing was kept)"
    assert (caught.value.status, str(caught.value)) == (413, expected)
    assert checks() == start + 1
    with pytest.raises(PublishRefused) as again:
        shelf.publish(body, "Ada")
    assert str(again.value) == expected and checks() == start + 1
    assert {path.name for path in shelf.root.iterdir()} == {".archives"}
