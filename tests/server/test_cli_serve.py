"""``playbench serve``: flags become settings; the data folder is ready before the server."""

from __future__ import annotations

import os

import pytest

from playbench import cli
from playbench.server import stacks
from playbench.server.connections import (
    ConnectionLimits,
    GuardedH11,
    GuardedHttpTools,
    Holders,
)
from playbench.server.settings import ENV_DATA, ENV_DATABASE


@pytest.fixture
def served(monkeypatch):
    calls = []
    monkeypatch.setattr(stacks, "run", calls.append)
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    return calls


def test_serve_prepares_the_data_folder_and_runs_uvicorn_by_default(tmp_path, served):
    data = tmp_path / "arena"
    status = cli.main(["serve", "--port", "8123", "--data", str(data), "--workers", "2"])
    assert status == 0
    assert (data / "secret.key").exists() and (data / "playbench.db").exists()
    assert served == [
        stacks.ServeOptions(
            server="uvicorn",
            host="127.0.0.1",
            port=8123,
            workers=2,
            log_level="info",
            access_log=False,
            backlog=2048,
            limits=ConnectionLimits(idle_seconds=20, request_seconds=10, max_connections=1000),
        )
    ]


def test_serve_takes_the_stack_and_its_settings(tmp_path, served, monkeypatch):
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    argv = ["serve", "--server", "h11", "--access-log", "--backlog", "64", "--keep-alive", "5"]
    argv += ["--request-timeout", "3", "--max-connections", "50"]
    assert cli.main([*argv, "--log-level", "warning"]) == 0
    (options,) = served
    assert (options.server, options.access_log, options.backlog) == ("h11", True, 64)
    assert options.limits == ConnectionLimits(5, 3, 50)
    assert options.log_level == "warning"


def test_serve_on_granian_says_which_limits_do_not_hold(tmp_path, served, capsys):
    argv = ["serve", "--server", "granian", "--data", str(tmp_path / "data")]
    assert cli.main([*argv, "--max-connections-per-address", "5"]) == 0
    assert served[0].server == "granian"
    assert capsys.readouterr().err == (
        "playbench: on granian only the header timeout (the shorter of --keep-alive and "
        "--request-timeout) and the head's size (64 KiB in all) hold: --max-connections, "
        "--max-connections-per-address and "
        "--max-connections-per-group do not apply, since granian accepts connections in "
        "its own runtime, tells the app only of requests and has no setting for any of "
        "these caps; cap connections per client in a proxy in front, or serve on uvicorn\n"
    )
    assert cli.main(["serve", "--data", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().err == ""


def test_serve_takes_a_database_url(tmp_path, served, monkeypatch):
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert cli.main(["serve", "--database", url, "--no-access-log"]) == 0
    assert (tmp_path / "elsewhere.db").exists()
    assert not (tmp_path / "data" / "playbench.db").exists()
    assert served[0].access_log is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--server", "hypercorn"], "invalid choice: 'hypercorn'"),
        (["--workers", "0"], "must be at least 1, not 0"),
        (["--backlog", "many"], "'many' is not a whole number"),
        (["--request-timeout", "0"], "must be at least 1, not 0"),
        (["--max-connections", "-5"], "must be at least 1, not -5"),
        (["--port", "80000"], "80000 is not a port number (1-65535)"),
        (["--port", "0"], "0 is not a port number (1-65535)"),
        (["--port", "-1"], "-1 is not a port number (1-65535)"),
        (["--port", "http"], "'http' is not a port number (1-65535)"),
    ],
)
def test_bad_serve_flags_are_refused_in_one_line(argv, message, served, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["serve", *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert served == []


@pytest.mark.parametrize("port", [1, 65535])
def test_the_ports_ends_are_taken(port, served, tmp_path):
    assert cli.main(["serve", "--port", str(port), "--data", str(tmp_path)]) == 0
    assert served[0].port == port


LIMITS = ConnectionLimits(idle_seconds=30, request_seconds=10, max_connections=100)


@pytest.mark.parametrize("stack", ["uvicorn", "h11"])
def test_uvicorn_stacks_pass_their_guarded_parser_and_loop(stack, monkeypatch):
    calls = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: calls.append((app, kw)))
    monkeypatch.setenv(stacks.MASTER_PID_ENV, "0")  # restored after the test
    stacks.run(stacks.ServeOptions(stack, "127.0.0.1", 8000, 1, "info", False, 2048, LIMITS))
    ((app, settings),) = calls
    http, loop = {"uvicorn": (GuardedHttpTools, "uvloop"), "h11": (GuardedH11, "asyncio")}[stack]
    assert app == "playbench.server:app"
    assert settings["http"].func is http and settings["http"].keywords["limits"] == LIMITS
    assert isinstance(settings["http"].keywords["holders"], Holders)
    assert {k: v for k, v in settings.items() if k != "http"} == {
        "host": "127.0.0.1",
        "port": 8000,
        "workers": 1,
        "loop": loop,
        "log_level": "info",
        "access_log": False,
        "backlog": 2048,
        "timeout_keep_alive": 30,
        "h11_max_incomplete_event_size": 65536,
        "server_header": False,
        "timeout_worker_healthcheck": 60,
        "proxy_headers": False,
    }
    assert os.environ[stacks.MASTER_PID_ENV] == str(os.getpid())


def test_granian_reads_headers_within_the_shorter_limit(monkeypatch):
    made = []
    monkeypatch.setattr("granian.server.Server", lambda app, **kw: made.append(kw) or _Served())
    monkeypatch.setenv(stacks.MASTER_PID_ENV, "0")  # restored after the test
    stacks.run(stacks.ServeOptions("granian", "127.0.0.1", 8000, 2, "info", False, 64, LIMITS))
    ((settings,),) = [made]
    assert settings["http1_settings"].header_read_timeout == 10_000
    assert (settings["workers"], settings["backlog"]) == (2, 64)


class _Served:
    def serve(self) -> None:
        pass
