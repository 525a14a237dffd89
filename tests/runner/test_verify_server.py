"""``playbench verify --server URL SESSION_ID`` against a real server started by the test."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from playbench.cli import main
from tests.server.helpers import Player


def finished_ranked_game(server: str) -> dict:
    with httpx.Client(base_url=server, timeout=30.0) as http:
        player = Player(http, "gem-swap", seed=None)  # type: ignore[arg-type]
        while not player.last["gameOver"]:
            swap = next(c for c in player.last["commands"] if c.startswith("swap"))
            assert player.act(swap).status_code == 200
        done = player.post("finish", {"rating": 5})
    assert done.status_code == 200, done.text
    return done.json()


def test_a_finished_ranked_session_verifies_against_the_server(server, tmp_path, capsys):
    done = finished_ranked_game(server)
    assert main(["verify", "--server", server, done["sessionId"]]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"ok: session {done['sessionId']} replays to score {done['score']} and fingerprint "
        f"{done['fingerprint']}, as the server stored them\n"
    )


def test_a_stored_score_the_log_does_not_give_is_a_mismatch(server, tmp_path: Path, capsys):
    done = finished_ranked_game(server)
    database = tmp_path / "server-data" / "playbench.db"
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE sessions SET score = score + 1 WHERE id = ?", (done["sessionId"],))
    assert main(["verify", "--server", server, done["sessionId"]]) == 1
    out = capsys.readouterr().out
    assert f"final score {done['score']} on replay, the server stored {done['score'] + 1}" in out


def test_a_ranked_session_still_played_cannot_be_verified(server, capsys):
    with httpx.Client(base_url=server, timeout=30.0) as http:
        sid = Player(http, "gem-swap", seed=None).last["sessionId"]  # type: ignore[arg-type]
    assert main(["verify", "--server", server, sid]) == 2
    err = capsys.readouterr().err
    assert "answered 403" in err and "seed stays secret" in err and err.count("\n") == 1
    assert main(["verify", "--server", server, "00ff"]) == 2
    assert "answered 404" in capsys.readouterr().err
