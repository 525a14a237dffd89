"""Resource limits: command size, bounded storage of refusals, rate limits, pruning, file
modes, security headers, and what the leaderboard says of itself."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from playbench.cli import main
from playbench.server import Settings, create_app
from playbench.server.guards import Rate
from playbench.server.settings import MAX_BODY_BYTES, parse_rate
from tests.server.helpers import Player, answer_headers

pytestmark = pytest.mark.databases("sqlite", "postgresql")


def _count(client, table: str) -> int:
    with client.app.state.services.storage.engine.connect() as conn:
        return conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()


def _act(client, player, body):
    headers = {**answer_headers(player.last["agentCheck"]), **player.auth()}
    return client.post(f"/games/{player.slug}/api/act", json=body, headers=headers)


# -- command size ----------------------------------------------------------------------------
def test_a_command_over_1kb_is_413_and_stored_nowhere(client, database):
    player = Player(client, "delvewick", seed=1)
    reply = _act(client, player, {"command": "wait" + " " * 1021})
    assert reply.status_code == 413
    assert reply.json()["error"] == (
        "command 0 is 1025 bytes; one command may have at most 1024: nothing was applied or stored"
    )
    assert "token" in reply.json()["agentCheck"] and _count(client, "actions") == 0
    assert _act(client, player, {"command": "wait" + " " * 1020}).status_code == 200


def test_any_command_of_a_batch_over_the_limit_refuses_the_whole_batch(client, database):
    player = Player(client, "delvewick", seed=1)
    reply = _act(client, player, {"commands": ["wait", "é" * 513]})
    assert reply.status_code == 413 and "command 1 is 1026 bytes" in reply.json()["error"]
    assert _count(client, "actions") == 0


def test_a_cogcrawl_raw_reply_may_have_4096_bytes(client, database):
    player = Player(client, "cogcrawl", seed=1)
    reply = '{"actions": [{"do": "search"}], "notes": "' + "n" * 4000 + '"}'
    reply = reply + " " * (4096 - len(reply))
    assert _act(client, player, {"command": reply}).status_code == 200
    assert _act(client, player, {"command": reply + " "}).status_code == 413
    assert _act(client, player, {"command": "search" + " " * 1019}).status_code == 413


def test_a_refused_command_is_stored_short(client, database):
    player = Player(client, "delvewick", seed=1)
    _act(client, player, {"command": "dig   " + "x" * 900})
    with client.app.state.services.storage.engine.connect() as conn:
        command, reason = conn.execute(text("SELECT command, reason FROM actions")).one()
    command, reason = json.loads(command), json.loads(reason)  # stored as JSON strings
    assert len(command) == 120 and len(reason) <= 120
    assert command.startswith("dig x") and command.endswith("…")


# -- rate limits -----------------------------------------------------------------------------
def _limited_client(tmp_path, **rates) -> TestClient:
    settings = Settings(data_dir=tmp_path / "limited", **rates)
    return TestClient(create_app(settings))


def test_an_address_that_sends_too_fast_hears_429_with_retry_after(tmp_path):
    with _limited_client(
        tmp_path, rate_per_address=Rate(0.5, 3), rate_per_session=Rate(0, 1)
    ) as client:
        codes = [client.get("/api/games").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        refused = client.get("/api/games")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "2"
        assert refused.json()["error"] == "too many requests: slow down and retry in 2 s"


def test_a_session_token_has_its_own_bucket_and_its_429_carries_a_puzzle(tmp_path):
    with _limited_client(
        tmp_path, rate_per_address=Rate(0, 1), rate_per_session=Rate(0.1, 2)
    ) as client:
        player = Player(client, "delvewick", seed=1)
        auth = player.auth()
        assert client.get("/games/delvewick/api/state", headers=auth).status_code == 200
        assert client.get("/games/delvewick/api/state", headers=auth).status_code == 200
        refused = client.get("/games/delvewick/api/state", headers=auth)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "10"
        assert "token" in refused.json()["agentCheck"]
        assert client.get("/api/games").status_code == 200  # no token: no session bucket


def test_rates_read_from_text():
    assert parse_rate("200/400", "X") == Rate(200, 400)
    assert parse_rate("5", "X") == Rate(5, 10)
    assert not parse_rate("0", "X").on
    for bad in ("fast", "-1/3", "2/0", "nan"):
        with pytest.raises(ValueError, match="X"):
            parse_rate(bad, "X")


def test_limits_are_on_by_default_and_honest_play_never_meets_them(client, database):
    assert client.app.state.services.settings.rate_per_address == Rate(200, 400)
    player = Player(client, "chimestep", seed=1)
    for _ in range(60):
        assert player.act("tick").status_code == 200


# -- pruning -----------------------------------------------------------------------------------
def test_prune_deletes_stale_unfinished_sessions_and_expired_puzzles_only(client, database):
    services = client.app.state.services
    stale, done = Player(client, "tally", seed=1), Player(client, "tally", seed=None)
    stale.act("step 1")
    done.act("step 2", "step 2", "step 2", "step 2")
    assert done.post("finish", {"rating": 5}).status_code == 200
    fresh = Player(client, "tally", seed=3)
    later = time.time() + 8 * 24 * 3600
    with services.storage.engine.begin() as conn:
        conn.execute(
            text("UPDATE sessions SET updated_at = updated_at - :age WHERE id != :keep"),
            {"age": 8 * 24 * 3600, "keep": fresh.last["sessionId"]},
        )
    report = services.prune(now=time.time())
    assert (report.sessions, report.actions) == (1, 1)
    assert _count(client, "sessions") == 2 and _count(client, "actions") == 4
    assert services.prune(now=later).puzzles == 3  # two acts and a finish, now expired
    assert _count(client, "spent_puzzles") == 0
    assert (
        client.get("/api/leaderboard/tally").json()["entries"][0]["sessionId"]
        == (done.last["sessionId"])
    )


def test_the_prune_command_reports_what_it_deleted(tmp_path, capsys):
    data = tmp_path / "data"
    assert main(["prune", "--data", str(data), "--older-than-hours", "1"]) == 0
    assert capsys.readouterr().out == (
        "closed 0 idle ranked sessions as abandoned; "
        "pruned 0 unfinished sessions (0 logged commands) and 0 spent puzzles\n"
    )
    assert main(["prune", "--data", str(data), "--older-than-hours", "-2"]) == 2


# -- files and headers -------------------------------------------------------------------------
def test_the_data_folder_and_database_are_the_owners_alone(tmp_path):
    settings = Settings(data_dir=tmp_path / "private")
    with TestClient(create_app(settings)) as client:
        Player(client, "tally").act("step 1")
        modes = {p.name: stat.S_IMODE(os.stat(p).st_mode) for p in settings.data_dir.iterdir()}
    assert stat.S_IMODE(os.stat(settings.data_dir).st_mode) == 0o700
    assert modes["playbench.db"] == 0o600 and modes["secret.key"] == 0o600
    assert all(mode == 0o600 for name, mode in modes.items() if name.startswith("playbench.db"))


def test_every_answer_has_the_security_headers_and_html_a_csp(client, database):
    for path in ("/api/games", "/", "/no/such/route"):
        reply = client.get(path)
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert reply.headers["referrer-policy"] == "same-origin"
        assert "server" not in reply.headers
    assert "default-src 'self'" in client.get("/").headers["content-security-policy"]
    assert "content-security-policy" not in client.get("/api/games").headers


SECURITY = {"x-content-type-options": "nosniff", "referrer-policy": "same-origin"}


def _secured(reply) -> bool:
    return all(reply.headers.get(k) == v for k, v in SECURITY.items()) and (
        reply.headers["x-frame-options"] == "DENY"
    )


def test_the_arena_layers_own_answers_carry_the_security_headers_once(client, database):
    start = client.post("/api/games/delvewick/init", json={"seed": 1}).json()
    fast = client.post(
        "/api/games/delvewick/action", json={"state": start["state"], "action": {"type": "wait"}}
    )
    too_large = client.post("/api/games/delvewick/action", content=b"x" * (MAX_BODY_BYTES + 1))
    assert (fast.status_code, too_large.status_code) == (200, 413)
    for reply in (fast, too_large):
        assert _secured(reply)
        assert [k for k, _ in reply.headers.multi_items()].count("x-frame-options") == 1


def test_a_429_carries_the_security_headers(tmp_path):
    with _limited_client(
        tmp_path, rate_per_address=Rate(0.5, 1), rate_per_session=Rate(0, 1)
    ) as client:
        client.get("/api/games")
        refused = client.get("/api/games")
    assert refused.status_code == 429 and _secured(refused)


def test_the_delvewick_leaderboard_says_it_is_a_puzzle_board(client, database):
    board = client.get("/api/leaderboard/delvewick").json()
    assert board["kind"] == "puzzle" and "levels are fixed" in board["note"]
    assert client.get("/api/leaderboard/gem-swap").json()["kind"] == "seeded"
