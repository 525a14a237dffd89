"""Health, readiness, Prometheus metrics, and the limit every host on one database
shares: session ``new`` per address."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from playbench.server import Settings, create_app
from playbench.server.guards import Rate
from playbench.server.quota import SharedBuckets, limits_engine
from tests.server.helpers import answer_headers
from tests.web.serving import serve_process

QUIET = ["--no-access-log", "--log-level", "warning"]
LOOPBACK = ("127.0.0.1", 50000)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_probes_answer_past_an_empty_bucket(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", rate_per_address=Rate(0.001, 1))
    with TestClient(create_app(settings), client=LOOPBACK) as client:
        assert client.get("/api/games").status_code == 200
        assert client.get("/api/games").status_code == 429
        for _ in range(3):
            assert client.get("/healthz").json() == {"status": "ok"}
            assert client.get("/readyz").json() == {"status": "ready"}
            assert client.get("/metrics").status_code == 200


def test_metrics_count_routes_statuses_refusals_and_sessions(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", rate_new_per_address=Rate(0.001, 2))
    with TestClient(create_app(settings), client=LOOPBACK) as client:
        before = samples(client.get("/metrics").text)
        made = [client.post("/games/delvewick/api/new", json={"seed": 1}) for _ in range(3)]
        player = made[0].json()
        act = answer_headers(player["agentCheck"], player["token"])
        command = {"command": player["commands"][0]}
        assert client.post("/games/delvewick/api/act", json=command, headers=act).is_success
        client.get("/api/games/delvewick/init?seed=3")
        client.get("/api/games/chess/init?seed=3")
        scrape = client.get("/metrics")
    assert scrape.headers["content-type"].startswith("text/plain; version=")
    after = samples(scrape.text)

    def grew(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    new = {"route": "/games/{slug}/api/new", "method": "POST"}
    assert grew("playbench_requests_total", **new, status="200") == 2
    assert grew("playbench_requests_total", route="unmatched", method="POST", status="429") == 1
    act = {"route": "/games/{slug}/api/act", "method": "POST"}
    assert grew("playbench_requests_total", **act, status="200") == 1
    init = {"route": "/api/games/{slug}/init", "method": "GET"}
    assert grew("playbench_requests_total", **init, status="200") == 1
    assert grew("playbench_requests_total", **init, status="404") == 1
    assert grew("playbench_request_seconds_count", route="/api/games/{slug}/init") == 2
    assert grew("playbench_rate_limited_total", limit="new") == 1
    assert after[("playbench_sessions", (("state", "open"),))] == 2
    assert after[("playbench_sessions", (("state", "finished"),))] == 0
    assert ("playbench_open_streams", ()) in after
    assert ("playbench_mcp_sessions", ()) in after
    assert ("playbench_mcp_matches", ()) in after
    assert ("playbench_group_commit_batch_count", ()) in after


def test_a_method_of_the_clients_own_is_counted_as_other(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path / "data")), client=LOOPBACK) as client:
        before = samples(client.get("/metrics").text)
        for method in ("BREW", "WHEN", "BREW"):
            assert client.request(method, "/api/games").status_code == 405
        after = samples(client.get("/metrics").text)
    counted = {labels for name, labels in after if name == "playbench_requests_total"}
    other = (
        "playbench_requests_total",
        (("method", "other"), ("route", "/api/games"), ("status", "405")),
    )
    assert after[other] - before.get(other, 0.0) == 3
    assert not [labels for labels in counted if ("method", "BREW") in labels]


def test_metrics_are_refused_to_other_addresses(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as client:
        answer = client.get("/metrics")  # the test client's address is no IP of the loopback
    assert answer.status_code == 403
    assert answer.json() == {"error": "metrics are served only to the addresses the host allows"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.databases("sqlite", "postgresql")
def test_shared_buckets_refill_and_say_how_long_to_wait(tmp_path, database):
    engine = limits_engine(database or f"sqlite:///{tmp_path / 'buckets.db'}")
    clock = Clock()
    one, other = (SharedBuckets(engine, "new", Rate(0.5, 2), clock) for _ in range(2))
    assert [one.take("a"), other.take("a")] == [0.0, 0.0]
    assert one.take("a") == pytest.approx(2.0)
    assert other.take("b") == 0.0
    clock.now += 1.0
    assert other.take("a") == pytest.approx(1.0)
    clock.now += 1.0
    assert one.take("a") == 0.0
    clock.now -= 30.0  # a host whose clock is behind adds no tokens
    assert one.take("a") == pytest.approx(2.0)
    clock.now += 1000.0
    assert one.prune() == 2
    assert one.take("a") == 0.0
    engine.dispose()


def counted(*every: SharedBuckets) -> list[str]:
    """The leases asked of the database, as they go."""
    asked: list[str] = []
    for buckets in every:
        lease = buckets._lease

        def noting(key: str, lease=lease) -> tuple[float, float]:
            asked.append(key)
            return lease(key)

        buckets._lease = noting  # type: ignore[method-assign]
    return asked


@pytest.mark.databases("sqlite", "postgresql")
def test_processes_lease_tokens_and_together_get_the_burst_not_more(tmp_path, database):
    engine = limits_engine(database or f"sqlite:///{tmp_path / 'buckets.db'}")
    clock = Clock()
    one, other = (SharedBuckets(engine, "address", Rate(1, 40), clock, lease=10) for _ in "ab")
    writes = counted(one, other)
    assert [one.take("a") for _ in range(15)] == [0.0] * 15
    assert len(writes) == 2  # two leases of 10: five tokens still held by the first
    assert [other.take("a") for _ in range(25)] == [0.0] * 20 + [1.0] * 5
    assert len(writes) == 5  # two more leases, one refusal, then refused from memory
    assert [one.take("a") for _ in range(6)] == [0.0] * 5 + [1.0]
    assert other.take_here("a") == 1.0
    clock.now += 3.5  # three and a half tokens flowed in: a lease of what there is
    assert [other.take("a") for _ in range(4)] == [0.0] * 3 + [1.0]  # a whole one again
    assert one.take("b") == 0.0
    assert one.take_here("b") == 0.0 and one.take_here("c") is None
    engine.dispose()


def test_on_sqlite_the_buckets_have_a_file_of_their_own(tmp_path):
    engine = limits_engine(f"sqlite:///{tmp_path / 'playbench.db'}")
    SharedBuckets(engine, "new", Rate(1, 2)).take("10.0.0.1")
    engine.dispose()
    assert [path.name for path in tmp_path.iterdir()] == ["playbench.db-limits"]


@pytest.mark.databases("sqlite", "postgresql")
def test_two_servers_on_one_database_share_the_request_rate(tmp_path, database):
    with _two_servers(tmp_path, database, "--rate-per-address", "0.001/4") as (first, second):
        statuses = [
            httpx.get(f"{base}/api/games/delvewick/init?seed=1").status_code
            for base in [first.base, second.base] * 4
        ]
        assert statuses == [200] * 4 + [429] * 4
        assert httpx.get(f"{second.base}/healthz").status_code == 200


def test_a_new_session_of_an_unknown_game_spends_no_token(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", rate_new_per_address=Rate(0.001, 1))
    with TestClient(create_app(settings)) as client:
        for _ in range(3):
            assert client.post("/games/chess/api/new", json={}).status_code == 404
        assert client.post("/games/gem-swap/api/new", json={}).status_code == 200
        assert client.post("/games/gem-swap/api/new", json={}).status_code == 429
        assert client.post("/games/gem-swap/api/newer", json={}).status_code == 404


@pytest.mark.databases("sqlite", "postgresql")
def test_two_servers_on_one_database_share_the_new_session_rate(tmp_path, database):
    with _two_servers(tmp_path, database, "--rate-new-per-address", "0.001/3") as (first, second):
        statuses = [
            httpx.post(f"{base}/games/gem-swap/api/new", json={"seed": n}).status_code
            for n, base in enumerate([first.base, second.base] * 3)
        ]
        assert statuses == [200, 200, 200, 429, 429, 429]
        refused = httpx.post(f"{first.base}/games/gem-swap/api/new", json={})
        assert refused.headers["retry-after"] == str(int(refused.json()["retryAfter"]))
        assert refused.json()["error"].startswith(
            "too many new sessions from this address: slow down and retry in "
        )


@contextmanager
def _two_servers(tmp_path: Path, database: str | None, *flags: str):
    """Two servers on one database (PostgreSQL's, or SQLite in the first's data folder)."""
    data = tmp_path / "data"
    data.mkdir()
    url = database or f"sqlite:///{data / 'playbench.db'}"
    args = [*flags, "--database", url, *QUIET]
    with serve_process(data, *args) as first, _second(data, args) as second:
        yield first, second


def _second(data: Path, args: list[str]):
    """Another server on the same data folder (its own log file)."""
    other = data / "second"
    other.mkdir()
    shutil.copy(data / "secret.key", other / "secret.key")
    return serve_process(other, *args)


def test_metrics_add_up_every_worker(tmp_path):
    args = ["--workers", "2", "--database", f"sqlite:///{tmp_path / 'own.db'}", *QUIET]
    with serve_process(tmp_path, *args) as served:
        for _ in range(40):  # a new connection each: the two workers share them
            assert httpx.get(f"{served.base}/api/games/gem-swap/init?seed=1").status_code == 200
        scrapes = [samples(httpx.get(f"{served.base}/metrics").text) for _ in range(6)]
    key = (
        "playbench_requests_total",
        (("method", "GET"), ("route", "/api/games/{slug}/init"), ("status", "200")),
    )
    assert [scrape[key] for scrape in scrapes] == [40.0] * 6
