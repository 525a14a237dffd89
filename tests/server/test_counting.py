"""Every ranked game counts: one open ranked game per player and game, idle ones closed as
abandoned, and a players' table over all of them that best-of-N cannot lift."""

from __future__ import annotations

import asyncio
import math
import statistics
import time

import pytest
from sqlalchemy import update

from playbench.cli import main
from playbench.server import standings
from playbench.server.settings import ENV_ABANDON_AFTER_HOURS
from playbench.server.store.schema import sessions
from tests.server.helpers import Player
from tests.server.test_sessions import WINNING

pytestmark = pytest.mark.databases("sqlite", "postgresql")
HOUR = 3600.0


def stored(client, session_id: str):
    return client.app.state.services.storage.reload(session_id)


def age(client, session_id: str, seconds: float) -> None:
    """Move a session's last change ``seconds`` into the past."""
    storage = client.app.state.services.storage
    with storage.engine.begin() as conn:
        conn.execute(
            update(sessions)
            .where(sessions.c.id == session_id)
            .values(updated_at=time.time() - seconds)
        )


def test_a_second_ranked_game_closes_the_open_one_as_abandoned(client, database):
    first = Player(client, "tally", seed=None, player="ada")
    first.act("step 1")
    second = Player(client, "tally", seed=None, player="ada")
    assert second.last["closedAsAbandoned"] == [first.last["sessionId"]]
    closed = stored(client, first.last["sessionId"])
    assert closed.abandoned is True and closed.finished is False and closed.score >= 1
    refused = first.act("step 1")
    assert refused.status_code == 409 and "closed as abandoned" in refused.json()["error"]
    assert stored(client, closed.id).version == closed.version
    assert first.post("finish", {"rating": 5}).status_code == 409
    state = client.get("/games/tally/api/state", headers=first.auth()).json()
    assert state["abandoned"] is True and isinstance(state["seed"], int)
    replay = client.get(f"/api/spectate/sessions/{closed.id}/replay")
    assert replay.status_code == 200 and replay.json()["seed"] == closed.seed
    (row,) = client.get("/api/leaderboard/tally").json()["players"]
    assert row["player"] == "ada" and row["games"] == 1 and row["mean"] == closed.score


def test_anonymous_and_practice_games_close_nothing(client, database):
    anonymous = [Player(client, "tally", seed=None) for _ in range(2)]
    practice = Player(client, "tally", seed=4, player="bo")
    ranked = Player(client, "tally", seed=None, player="bo")
    other_game = Player(client, "delvewick", seed=None, player="bo")
    for player in [*anonymous, practice, ranked, other_game]:
        assert player.last["closedAsAbandoned"] == []
        assert stored(client, player.last["sessionId"]).abandoned is False


def test_an_idle_ranked_game_is_abandoned_after_the_deadline_and_kept(client, database):
    services = client.app.state.services
    assert services.settings.abandon_after_hours == 1.0
    idle = Player(client, "tally", seed=None, player="cy")
    idle.act("step 2")
    scored = idle.last["score"]
    assert scored in (2, 7)  # 7 when the drawn seed hid the bonus on that cell
    fresh = Player(client, "delvewick", seed=None)
    practice = Player(client, "tally", seed=9)
    for player in (idle, practice):
        age(client, player.last["sessionId"], HOUR + 60)
    age(client, fresh.last["sessionId"], HOUR - 60)
    report = services.prune()
    assert report.abandoned == 1 and report.sessions == 0
    assert stored(client, idle.last["sessionId"]).abandoned is True
    assert stored(client, fresh.last["sessionId"]).abandoned is False
    assert stored(client, practice.last["sessionId"]).abandoned is False
    # a week later the practice game is pruned; the abandoned ranked game stays and counts
    for player in (idle, practice):
        age(client, player.last["sessionId"], 8 * 24 * HOUR)
    report = services.prune()
    assert report.sessions == 1 and report.abandoned == 0
    assert stored(client, idle.last["sessionId"]).score == scored
    (row,) = client.get("/api/leaderboard/tally").json()["players"]
    assert (row["player"], row["games"], row["best"]) == ("cy", 1, scored)


def test_the_prune_command_closes_idle_ranked_games(
    settings, client, capsys, monkeypatch, database
):
    monkeypatch.setenv(ENV_ABANDON_AFTER_HOURS, "1")  # the flag sets it: undone after
    idle = Player(client, "tally", seed=None)
    age(client, idle.last["sessionId"], 3 * HOUR)
    data = ["--data", str(settings.data_dir)]
    if settings.database_url:
        data += ["--database", settings.database_url]
    assert main(["prune", *data, "--abandon-after-hours", "4"]) == 0
    assert capsys.readouterr().out.startswith("closed 0 idle ranked sessions as abandoned;")
    monkeypatch.delenv(ENV_ABANDON_AFTER_HOURS)
    assert main(["prune", *data]) == 0
    assert capsys.readouterr().out.startswith("closed 1 idle ranked sessions as abandoned;")
    assert stored(client, idle.last["sessionId"]).abandoned is True


def play_ranked(client, name: str, commands: list[str], finish: bool) -> int:
    player = Player(client, "tally", seed=None, player=name)
    player.act(*commands)
    if finish:
        assert player.post("finish", {"rating": 5}).status_code == 200
    return stored(client, player.last["sessionId"]).score


def test_best_of_n_cannot_lift_a_player_in_the_players_table(client, database):
    """The attacker plays eight ranked games and finishes only those that went well; the
    others, closed by the next game or left idle, count at their score."""
    attacker = []
    for index in range(8):
        good = index % 2 == 0
        attacker.append(play_ranked(client, "mallory", WINNING if good else ["step 1"], good))
    client.app.state.services.storage.abandon_idle(time.time() + 1)
    honest = [play_ranked(client, "honest", WINNING, True) for _ in range(5)]
    few = [play_ranked(client, "newcomer", WINNING, True) for _ in range(2)]
    board = client.get("/api/leaderboard/tally?limit=100").json()
    assert len(board["entries"]) == 4 + 5 + 2  # finished games only, the best first
    assert board["minGames"] == standings.MIN_GAMES == 5
    table = {row["player"]: row for row in board["players"]}
    for name, scores in (("mallory", attacker), ("honest", honest), ("newcomer", few)):
        row = table[name]
        mean = statistics.fmean(scores)
        half = standings.t_975(len(scores) - 1) * statistics.stdev(scores) / math.sqrt(len(scores))
        assert row["games"] == len(scores) and row["best"] == max(scores)
        assert row["mean"] == round(mean, 1)
        assert row["low"] == pytest.approx(round(mean - half, 1), abs=0.11)
        assert row["high"] == pytest.approx(round(mean + half, 1), abs=0.11)
    assert [table[name]["finished"] for name in ("mallory", "honest", "newcomer")] == [4, 5, 2]
    assert board["players"][0]["player"] == "honest" and table["honest"]["rank"] == 1
    # four finished games of eight: not ranked until a fifth is played to its end
    assert table["mallory"]["rank"] is None and table["newcomer"]["rank"] is None


def test_names_that_open_ranked_games_and_never_play_are_not_ranked(client, database):
    """Six ranked games opened under each of a few names and left idle: closed as
    abandoned, they count at their score, but none of them is finished, so the names are
    no part of the table's pool."""
    honest = [play_ranked(client, "honest", WINNING, True) for _ in range(5)]
    for number in range(3):
        idle = Player(client, "tally", seed=None, player=f"idle {number}")
        for _ in range(5):  # each new ranked game closes the one before as abandoned
            body = {"player": f"idle {number}", "ranked": True}
            answer = client.post("/games/tally/api/new", json=body, headers=idle.key_header())
            assert answer.status_code == 200, answer.text
    client.app.state.services.storage.abandon_idle(time.time() + 1)
    board = client.get("/api/leaderboard/tally?limit=100").json()
    table = {row["player"]: row for row in board["players"]}
    assert table["honest"]["rank"] == 1 and table["honest"]["games"] == len(honest)
    for number in range(3):
        row = table[f"idle {number}"]
        assert (row["games"], row["finished"], row["rank"]) == (6, 0, None)


def test_t_quantiles_meet_the_normal_beyond_the_table():
    assert standings.t_975(1) == 12.706 and standings.t_975(30) == 2.042
    assert standings.t_975(40) == pytest.approx(2.021, abs=0.003)
    assert standings.t_975(120) == pytest.approx(1.980, abs=0.003)


def test_delvewicks_board_allows_practice_on_its_levels(client, database):
    board = client.get("/api/leaderboard/delvewick").json()
    assert board["kind"] == "puzzle" and "Practice on the same levels is allowed" in board["note"]
    assert board["players"] == [] and board["entries"] == []


def test_the_servers_schedule_closes_idle_ranked_games(client, monkeypatch, database):
    """The schedule's wait is replaced by one that returns at once the first time and
    stops the loop the second: one scheduled prune runs in between."""
    from playbench.server import factory

    idle = Player(client, "tally", seed=None, player="dee")
    age(client, idle.last["sessionId"], HOUR + 60)
    waits: list[float] = []

    async def one_wait_then_stop(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) > 1:
            raise asyncio.CancelledError

    monkeypatch.setattr(factory.asyncio, "sleep", one_wait_then_stop)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(factory.prune_on_schedule(client.app.state.services))
    assert waits == [3600.0, 3600.0]
    assert stored(client, idle.last["sessionId"]).abandoned is True
