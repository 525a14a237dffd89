"""Settings from the environment, key rotation across restarts."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from playbench.server import Settings, create_app
from playbench.server.sealing import generate_key


def test_settings_from_the_environment():
    old, new = generate_key(), generate_key()
    settings = Settings.from_env(
        {
            "PLAYBENCH_DATA": "/srv/arena",
            "PLAYBENCH_DATABASE_URL": "postgresql://arena@db/arena",
            "PLAYBENCH_SECRET": f" {new} ,{old},",
        }
    )
    assert settings.data_dir == Path("/srv/arena")
    assert settings.url == "postgresql://arena@db/arena"
    assert settings.secrets == (new, old)


def test_default_settings_use_sqlite_in_the_data_folder():
    settings = Settings.from_env({})
    assert settings.data_dir == Path("data")
    assert settings.url == f"sqlite:///{Path('data').resolve() / 'playbench.db'}"
    assert settings.secrets == ()


def test_rotated_keys_keep_old_states_valid(tmp_path):
    old, new = generate_key(), generate_key()
    with TestClient(create_app(Settings(data_dir=tmp_path, secrets=(old,)))) as before:
        sealed = before.get("/api/games/tally/init?seed=1").json()["state"]
    rotated = Settings(data_dir=tmp_path, secrets=(new, old))
    with TestClient(create_app(rotated)) as after:
        step = {"state": sealed, "action": {"type": "step", "by": 1}}
        reply = after.post("/api/games/tally/action", json=step)
        assert reply.json()["ok"] is True
        resealed = reply.json()["state"]
    with TestClient(create_app(Settings(data_dir=tmp_path, secrets=(old,)))) as stale:
        step = {"state": resealed, "action": {"type": "step", "by": 1}}
        assert stale.post("/api/games/tally/action", json=step).status_code == 400


def test_with_secret_and_database_no_data_folder_is_made(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "unused",
        database_url=f"sqlite:///{tmp_path / 'arena.db'}",
        secrets=(generate_key(),),
    )
    create_app(settings).state.services.close()
    assert not (tmp_path / "unused").exists() and (tmp_path / "arena.db").exists()
