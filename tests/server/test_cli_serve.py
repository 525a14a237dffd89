"""``playbench serve``: flags become settings; the data folder is ready before uvicorn."""

from __future__ import annotations

from playbench import cli
from playbench.server.settings import ENV_DATA, ENV_DATABASE


def test_serve_prepares_the_data_folder_and_runs_uvicorn(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: calls.append((app, kw)))
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    monkeypatch.setenv(ENV_DATA, "unused")
    data = tmp_path / "arena"
    status = cli.main(["serve", "--port", "8123", "--data", str(data), "--workers", "2"])
    assert status == 0
    assert (data / "secret.key").exists() and (data / "playbench.db").exists()
    (app, options) = calls[0]
    assert app == "playbench.server:app"
    assert options == {
        "host": "127.0.0.1",
        "port": 8123,
        "workers": 2,
        "log_level": "info",
        "access_log": True,
    }


def test_serve_takes_a_database_url(tmp_path, monkeypatch):
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: None)
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert cli.main(["serve", "--database", url, "--no-access-log"]) == 0
    assert (tmp_path / "elsewhere.db").exists()
    assert not (tmp_path / "data" / "playbench.db").exists()
