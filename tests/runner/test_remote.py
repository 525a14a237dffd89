"""Remote play against a real playbench server started by the test."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from playbench.cli import main
from playbench.runner.episode import EpisodeSpec, Task, play
from tests.arena import enrol


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


def test_practice_seeds_on_a_server_match_the_same_run_in_process(
    server, tmp_path, capsys, monkeypatch
):
    enrol(server, "ada", monkeypatch)
    remote, local = tmp_path / "remote", tmp_path / "local"
    args = ["gem-swap", "--agent", "random", "--seeds", "0-1", "--workers", "1"]
    assert main(["run", *args, "--out", str(local)]) == 0
    command = ["run", *args, "--out", str(remote), "--server", server, "--player", "ada"]
    assert main(command) == 0
    strip = ("seconds", "remote")
    # remote episodes play at once (they wait on the network): they end in any order
    by_seed = lambda folder: sorted(records(folder), key=lambda row: row["seed"])  # noqa: E731
    for near, far in zip(by_seed(local), by_seed(remote), strict=True):
        assert {k: v for k, v in near.items() if k not in strip} == {
            k: v for k, v in far.items() if k not in strip
        }
        assert far["remote"]["server"] == server and far["remote"]["player"] == "ada"
        assert far["remote"]["ranked"] is False and far["remote"]["rank"] is None
        assert far["remote"]["rating"] == 5
    for row in records(local):
        name = row["replay"]
        assert (local / name).read_bytes() == (remote / name).read_bytes()
    assert main(["verify", str(remote)]) == 0
    board = httpx.get(f"{server}/api/leaderboard/gem-swap").json()
    assert board["entries"] == []


def test_ranked_runs_land_on_the_leaderboard_under_the_players_name(
    server, tmp_path, capsys, monkeypatch
):
    enrol(server, "Grace H.", monkeypatch)
    folder = tmp_path / "ranked"
    command = ["run", "delvewick", "--agent", "random", "--server", server]
    command += ["--player", "Grace H.", "--ranked", "2", "--workers", "1", "--out", str(folder)]
    assert main(command) == 0
    rows = records(folder)
    assert len(rows) == 2
    for index, row in enumerate(rows):
        assert row["remote"]["ranked"] is True and row["remote"]["rank"] >= 1
        assert row["agentSeed"] == index
        assert row["replay"] == f"replays/delvewick-{row['seed']}.jsonl"
    entries = httpx.get(f"{server}/api/leaderboard/delvewick").json()["entries"]
    assert sorted((e["seed"], e["score"]) for e in entries) == sorted(
        (row["seed"], row["score"]) for row in rows
    )
    assert {entry["player"] for entry in entries} == {"Grace H."}
    capsys.readouterr()
    assert main(["verify", str(folder)]) == 0
    assert "ok: 2 replay(s)" in capsys.readouterr().out
    # run again into the same folder: the two ranked games are there, one more is played
    command[command.index("2")] = "3"
    assert main(command) == 0
    assert len(records(folder)) == 3


def test_a_cogcrawl_seat_plays_remotely_as_in_process(server, tmp_path, monkeypatch):
    enrol(server, "cog", monkeypatch)
    spec = EpisodeSpec("cogcrawl", "random", server=server, player="cog")  # with its key
    far = play(spec, Task(3))
    near = play(EpisodeSpec("cogcrawl", "random"), Task(3))
    assert far.record["fingerprint"] == near.record["fingerprint"]
    assert far.replay[1:] == near.replay[1:]


def test_a_bad_player_name_is_refused_before_anything_is_written(server, tmp_path, capsys):
    folder = tmp_path / "out"
    command = ["run", "gem-swap", "--agent", "random", "--server", server, "--out", str(folder)]
    assert main([*command, "--player", "x" * 41]) == 2
    assert "--player must be 1-40 printable characters" in capsys.readouterr().err
    assert not folder.exists()


def test_a_server_without_the_game_is_refused(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_PLAYER_KEY", "any")
    folder = tmp_path / "out"
    command = ["run", "gem-swap", "--agent", "random", "--server", f"{server}/nothing"]
    assert main([*command, "--player", "ada", "--out", str(folder)]) == 2
    assert "is not a playbench server" in capsys.readouterr().err
    assert not folder.exists()


@pytest.mark.parametrize("ranked", ["--ranked", "--seeds"])
def test_ranked_takes_no_options(server, tmp_path, capsys, ranked, monkeypatch):
    enrol(server, "a", monkeypatch)
    command = ["run", "delvewick", "--agent", "random", "--server", server, "--player", "a"]
    command += ["--level", "2", "--out", str(tmp_path / "out")]
    if ranked == "--ranked":
        assert main([*command, "--ranked", "1"]) == 2
        assert "drop --options" in capsys.readouterr().err
    else:
        assert main([*command, "--seeds", "4"]) == 0
        (row,) = records(tmp_path / "out")
        assert row["options"] == {"startLevel": 2} and row["remote"]["ranked"] is False


def test_a_rate_limited_server_is_waited_for(tmp_path, monkeypatch):
    from playbench.agents import remote
    from playbench.server.guards import Rate
    from tests.arena import arena

    waits: list[str | None] = []
    wait = remote._wait

    def counted(response):
        waits.append(response.headers.get("Retry-After"))
        wait(response)

    monkeypatch.setattr(remote, "_wait", counted)
    slow = Rate(per_second=5.0, burst=8.0)
    with arena(tmp_path / "data", rate_per_session=slow) as url:
        enrol(url, "slow", monkeypatch)
        far = play(EpisodeSpec("gem-swap", "random", server=url, player="slow"), Task(4))
    assert far.record["remote"]["player"] == "slow"
    near = play(EpisodeSpec("gem-swap", "random"), Task(4))
    assert far.record["steps"] == near.record["steps"] == 30
    assert far.record["fingerprint"] == near.record["fingerprint"]
    assert waits and all(after is not None and int(after) >= 1 for after in waits)


def test_a_command_longer_than_the_server_takes_is_refused_here(server):
    import httpx

    from playbench.agents.remote import RemoteTable, Session
    from playbench.core import get_game

    with httpx.Client(base_url=server) as http:
        table = RemoteTable(Session.new(http, "delvewick", 1, None, None), get_game("delvewick"))
        results = table.commands(["down", "x" * 2000, "down"])
    assert [result.ok for result in results] == [True, False]
    assert results[1].reason == "a command is at most 1024 bytes"
    assert [text for text, _ in table.sent] == ["down"]
