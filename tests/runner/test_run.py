"""``playbench run`` end to end, ``verify`` and ``replay`` on what it wrote."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core import all_games
from playbench.core.match import Match
from playbench.runner.replay import read_replay

SLUGS = [game.slug for game in all_games()]


def records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]


def run(folder: Path, *args: str) -> int:
    return main(["run", *args, "--out", str(folder)])


@pytest.mark.parametrize("slug", SLUGS)
def test_random_runs_every_game_and_verify_passes(slug, tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, slug, "--agent", "random", "--seeds", "0-2", "--workers", "1") == 0
    out = capsys.readouterr().out
    assert "3 episodes written" in out and "mean score" in out
    rows = records(folder)
    assert [row["seed"] for row in rows] == [0, 1, 2]
    for row in rows:
        assert row["game"] == slug and row["agent"] == "random" and row["options"] == {}
        assert row["outcome"] in ("won", "lost", "over")
        replay = read_replay(folder / row["replay"])
        assert row["replay"] == f"replays/{slug}-{row['seed']}.jsonl"
        assert replay.header["seed"] == row["seed"] and replay.header["agent"] == "random"
        assert len(replay.lines) == row["steps"]
        again = Match.replay(slug, row["seed"], None, replay.actions)
        assert again.score == row["score"] and again.fingerprint() == row["fingerprint"]
        assert replay.end["progress"] == row["progress"]
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["episodes"] == 3
    assert summary["meanScore"] == round(sum(row["score"] for row in rows) / 3, 4)
    assert main(["verify", str(folder)]) == 0
    assert "ok: 3 replay(s) match" in capsys.readouterr().out


def test_a_random_run_is_the_same_every_time(tmp_path):
    for name in ("a", "b"):
        assert run(tmp_path / name, "chimestep", "--agent", "random", "--seeds", "4,9") == 0
    first, second = records(tmp_path / "a"), records(tmp_path / "b")
    key = lambda row: (row["seed"], row["score"], row["fingerprint"], row["steps"])  # noqa: E731
    assert sorted(map(key, first)) == sorted(map(key, second))
    for row in first:
        name = row["replay"]
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_golden_random_runs(tmp_path):
    """Whole runs pinned: the random agent's seeded choices and the games' rules."""
    assert run(tmp_path / "g", "gem-swap", "--agent", "random", "--seeds", "0-2") == 0
    assert run(tmp_path / "d", "delvewick", "--agent", "random", "--seeds", "0-2") == 0
    found = {
        (row["game"], row["seed"]): (row["score"], row["steps"], row["fingerprint"])
        for folder in ("g", "d")
        for row in records(tmp_path / folder)
    }
    assert found == {
        ("gem-swap", 0): (1890, 30, "7352b0001b3958dc"),
        ("gem-swap", 1): (1530, 30, "0253218adf890bd9"),
        ("gem-swap", 2): (1710, 30, "770bcce2d7c1d4a9"),
        ("delvewick", 0): (25, 40, "67ae9b309da66921"),
        ("delvewick", 1): (50, 40, "44a534e697c8beb5"),
        ("delvewick", 2): (25, 40, "07b7f08b7395a5ae"),
    }


def test_worker_processes_give_the_same_records_as_one_process(tmp_path):
    assert (
        run(tmp_path / "one", "gem-swap", "--agent", "random", "--seeds", "0-3", "--workers", "1")
        == 0
    )
    assert (
        run(tmp_path / "two", "gem-swap", "--agent", "random", "--seeds", "0-3", "--workers", "2")
        == 0
    )
    strip = lambda row: {k: v for k, v in row.items() if k != "seconds"}  # noqa: E731
    one = sorted((strip(row) for row in records(tmp_path / "one")), key=lambda row: row["seed"])
    two = sorted((strip(row) for row in records(tmp_path / "two")), key=lambda row: row["seed"])
    assert one == two


def test_verify_fails_on_an_edited_replay_and_names_it(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "0-1") == 0
    path = folder / "replays" / "gem-swap-1.jsonl"
    lines = path.read_text().splitlines()
    step = json.loads(lines[3])
    step["action"] = {"command": "swap A1 up"}
    lines[3] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH {path}" in out and "gem-swap-0" not in out
    assert main(["verify", str(folder / "replays" / "gem-swap-0.jsonl")]) == 0


def test_verify_fails_on_an_edited_final_fingerprint(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "delvewick", "--agent", "random", "--seeds", "3") == 0
    path = folder / "replays" / "delvewick-3.jsonl"
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end["end"]["fingerprint"] = "0" * 16
    lines[-1] = json.dumps(end)
    path.write_text("\n".join(lines) + "\n")
    assert main(["verify", str(path)]) == 1
    assert "final fingerprint" in capsys.readouterr().out


def test_verify_fails_when_runs_jsonl_disagrees_with_a_replay(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "5") == 0
    row = records(folder)[0]
    row["score"] += 1
    (folder / "runs.jsonl").write_text(json.dumps(row) + "\n")
    capsys.readouterr()
    assert main(["verify", str(folder)]) == 1
    assert "records score" in capsys.readouterr().out


def test_a_second_run_into_the_same_folder_skips_finished_seeds(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "0-1") == 0
    before = (folder / "runs.jsonl").read_text()
    capsys.readouterr()
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "0-3") == 0
    out = capsys.readouterr().out
    assert "2 episodes written" in out and "(2 already there)" in out
    assert (folder / "runs.jsonl").read_text().startswith(before)
    assert sorted(row["seed"] for row in records(folder)) == [0, 1, 2, 3]
    assert json.loads((folder / "summary.json").read_text())["episodes"] == 4
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "0-3") == 0
    assert "0 episodes written" in capsys.readouterr().out
    assert len(records(folder)) == 4


def test_a_folder_of_another_run_is_refused(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "gem-swap", "--agent", "random", "--seeds", "0") == 0
    capsys.readouterr()
    assert run(folder, "delvewick", "--agent", "random", "--seeds", "0") == 2
    assert "holds another run" in capsys.readouterr().err
    assert [row["game"] for row in records(folder)] == ["gem-swap"]


def test_max_steps_truncates(tmp_path):
    folder = tmp_path / "out"
    assert run(folder, "chimestep", "--agent", "random", "--seeds", "1", "--max-steps", "25") == 0
    (row,) = records(folder)
    assert row["outcome"] == "truncated" and row["steps"] == 25
    assert main(["verify", str(folder)]) == 0


def test_options_reach_the_game_and_the_replay(tmp_path):
    folder = tmp_path / "out"
    assert run(folder, "delvewick", "--agent", "random", "--seeds", "2", "--level", "3") == 0
    (row,) = records(folder)
    assert row["options"] == {"startLevel": 3}
    assert read_replay(folder / row["replay"]).header["options"] == {"startLevel": 3}
    assert main(["verify", str(folder)]) == 0


REMOTE_A = ["gem-swap", "--agent", "random", "--server", "http://127.0.0.1:9", "--player", "a"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["no-such-game", "--agent", "random"], "unknown game 'no-such-game'"),
        (["gem-swap", "--agent", "genius"], "unknown agent 'genius'"),
        (["gem-swap", "--agent", "random", "--seeds", "9-1"], "runs backwards"),
        (["gem-swap", "--agent", "random", "--seeds", "x"], "is not a seed or a range"),
        (["gem-swap", "--agent", "random", "--workers", "0"], "--workers must be at least 1"),
        (["gem-swap", "--agent", "random", "--max-steps", "0"], "--max-steps must be at least 1"),
        (["gem-swap", "--agent", "random", "--backend", "dask"], "unknown backend 'dask'"),
        (
            ["gem-swap", "--agent", "random", "--ray-address", "127.0.0.1:6379"],
            "--ray-address needs --backend ray (the backend is local)",
        ),
        (["delvewick", "--agent", "random", "--level", "99"], "startLevel"),
        (["gem-swap", "--agent", "random", "--options", "[1]"], "must be a JSON object"),
        (["gem-swap", "--agent", "llm"], "needs a model"),
        (["gem-swap", "--agent", "random", "--ranked", "2"], "need --server"),
        (["gem-swap", "--agent", "random", "--player", "ada"], "need --server"),
        (
            ["gem-swap", "--agent", "random", "--server", "http://127.0.0.1:9"],
            "--server needs --player",
        ),
        (
            [*REMOTE_A],
            "--player a needs its player key in $PLAYBENCH_PLAYER_KEY",
        ),
        (
            [*REMOTE_A, "--player-key-env", "MY_KEY"],
            "--player a needs its player key in $MY_KEY",
        ),
        (
            [*REMOTE_A, "--player-key-env", "HOME"],
            "cannot reach the server http://127.0.0.1:9",
        ),
        (
            ["gem-swap", "--agent", "random", "--ranked", "2", "--seeds", "1"],
            "drop --seeds",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    args, words, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("PLAYBENCH_PLAYER_KEY", raising=False)
    folder = tmp_path / "out"
    assert run(folder, *args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and err.startswith("playbench: ")
    assert not folder.exists()


def test_the_default_folder_is_named_after_game_agent_and_time(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gem-swap", "--agent", "random", "--seeds", "0"]) == 0
    (folder,) = (tmp_path / "runs").iterdir()
    assert folder.name.startswith("gem-swap-random-") and folder.name.endswith("Z")
    assert len(folder.name) == len("gem-swap-random-20261130T214000Z")


#: ``python -m playbench.cli`` with SIGINT raising KeyboardInterrupt, whatever it inherited
INTERRUPTIBLE = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'playbench'; runpy.run_module('playbench.cli', run_name='__main__')"
)


def test_ctrl_c_leaves_every_finished_episode_whole(tmp_path):
    folder = tmp_path / "out"
    # Ctrl-C as a terminal sends it: a shell that starts the tests in the background has
    # SIGINT ignored, which Python (and so the run) would inherit, so the run's process
    # takes Python's own handler back first
    command = [sys.executable, "-c", INTERRUPTIBLE, "run", "chimestep", "--agent", "random"]
    command += ["--seeds", "0-99999", "--workers", "1", "--out", str(folder)]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errors:
        # stderr to a file: a pipe nobody reads could fill and stop the run
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        runs = folder / "runs.jsonl"
        # wait for the event (three episodes written), however long a loaded machine
        # takes; the run has the most seeds a run takes (100,000), so it is still going then
        while not (runs.exists() and runs.read_text().count("\n") >= 3):
            assert process.poll() is None, log.read_text()
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        process.wait()
    err = log.read_bytes()
    assert process.returncode == 130, err
    assert b"interrupted" in err
    rows = records(folder)
    assert 3 <= len(rows) < 100_000
    assert runs.read_text().endswith("\n")
    names = {row["replay"] for row in rows}
    # a scripted agent's episodes are not journaled: only finished replays are there
    assert {f"replays/{path.name}" for path in (folder / "replays").iterdir()} == names
    assert not [name for name in os.listdir(folder) if name.endswith(".tmp")]
    assert main(["verify", str(folder)]) == 0
    assert json.loads((folder / "summary.json").read_text())["episodes"] == len(rows)


def test_replay_prints_every_screen_without_a_terminal(tmp_path, capsys):
    folder = tmp_path / "out"
    assert run(folder, "delvewick", "--agent", "random", "--seeds", "0") == 0
    (row,) = records(folder)
    capsys.readouterr()
    assert main(["replay", str(folder / row["replay"])]) == 0
    out = capsys.readouterr().out
    assert out.count("replay delvewick seed 0 · random") == row["steps"] + 1
    assert f"step {row['steps']}/{row['steps']} · score {row['score']} · end" in out


def test_replay_of_a_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_verify_of_something_else_is_a_clear_error(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
