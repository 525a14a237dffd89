"""``playbench serve``: flags become settings; the data folder is ready before the server."""

from __future__ import annotations

import pytest

from playbench import cli
from playbench.server import stacks
from playbench.server.settings import ENV_DATA, ENV_DATABASE


@pytest.fixture
def served(monkeypatch):
    calls = []
    monkeypatch.setattr(stacks, "run", calls.append)
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    return calls


def test_serve_prepares_the_data_folder_and_runs_granian_by_default(tmp_path, served):
    data = tmp_path / "arena"
    status = cli.main(["serve", "--port", "8123", "--data", str(data), "--workers", "2"])
    assert status == 0
    assert (data / "secret.key").exists() and (data / "playbench.db").exists()
    assert served == [
        stacks.ServeOptions(
            server="granian",
            host="127.0.0.1",
            port=8123,
            workers=2,
            log_level="info",
            access_log=False,
            backlog=2048,
            keep_alive_seconds=30,
        )
    ]


def test_serve_takes_the_stack_and_its_settings(tmp_path, served, monkeypatch):
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    argv = ["serve", "--server", "h11", "--access-log", "--backlog", "64", "--keep-alive", "5"]
    assert cli.main([*argv, "--log-level", "warning"]) == 0
    (options,) = served
    assert (options.server, options.access_log, options.backlog) == ("h11", True, 64)
    assert (options.keep_alive_seconds, options.log_level) == (5, "warning")


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
    ],
)
def test_bad_serve_flags_are_refused_in_one_line(argv, message, served, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["serve", *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert served == []


@pytest.mark.parametrize("stack", ["uvicorn", "h11"])
def test_uvicorn_stacks_pass_their_parser_and_loop(stack, monkeypatch):
    calls = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: calls.append((app, kw)))
    options = stacks.ServeOptions(stack, "127.0.0.1", 8000, 1, "info", False, 2048, 30)
    stacks.run(options)
    http, loop = {"uvicorn": ("httptools", "uvloop"), "h11": ("h11", "asyncio")}[stack]
    assert calls == [
        (
            "playbench.server:app",
            {
                "host": "127.0.0.1",
                "port": 8000,
                "workers": 1,
                "http": http,
                "loop": loop,
                "log_level": "info",
                "access_log": False,
                "backlog": 2048,
                "timeout_keep_alive": 30,
            },
        )
    ]
