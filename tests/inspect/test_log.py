"""An Inspect log is one door's output and another's input: the same seeds and scripted
replies give ``playbench bench --agent llm``'s scores; ``playbench verify`` and
``playbench report`` take the log, ``playbench import`` writes the folders ``bench``
writes and publishes them; a log changed after the run is refused with its step named."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from playbench.cli import main
from playbench.inspect.scorer import replay
from playbench.inspect.tasks import gem_swap, suite
from playbench.runner.bench import check_bench, read_bench
from playbench.runner.inspect_log import STORE_KEY, SUITE_KEY, InspectLogError
from playbench.runner.store import RunDir
from tests.agents.chat_server import Status, serving
from tests.arena import arena, enrol
from tests.inspect.conftest import KEY, MODEL, first_legal

SUITE = {
    "name": "door-pair",
    "description": "two games on two seeds, a few actions each",
    "games": {
        "gem-swap": {"seeds": "0-1", "options": {}, "maxSteps": 6, "harness": {}, "maxTurns": 4},
        "cogcrawl": {"seeds": "0-1", "options": {}, "maxSteps": 4, "harness": {}},
    },
}
EPISODES = [("gem-swap", 0), ("gem-swap", 1), ("cogcrawl", 0), ("cogcrawl", 1)]


def scripted_model(base_url: str) -> Any:
    """The scripted server's model, made afresh: Inspect keeps the models it made by
    name, and another test's server is gone."""
    return get_model(MODEL, base_url=base_url, api_key=KEY, memoize=False)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Iterator[tuple[Path, Path]]:
    """The suite played by Inspect's solver and by ``playbench bench``, both against the
    scripted server answering every turn with its first legal move: (log, bench folder)."""
    root = tmp_path_factory.mktemp("door")
    suite_file = root / "door-pair.json"
    suite_file.write_text(json.dumps(SUITE))
    with serving([first_legal] * 200) as chat, pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCRIPT_BASE_URL", chat.base_url)
        patch.setenv("SCRIPT_API_KEY", KEY)
        patch.setenv("OPENAI_API_KEY", KEY)
        [log] = inspect_eval(
            suite(suite=str(suite_file)),
            model=scripted_model(chat.base_url),
            log_dir=str(root / "logs"),
            display="none",
        )
        assert log.status == "success"
        inspect_calls = len(chat.requests)
        command = ["bench", "--agent", "llm", "--model", "script-model", "--suite"]
        folder = root / "bench"
        args = [*command, str(suite_file), "--base-url", chat.base_url, "--workers", "1"]
        assert main([*args, "--out", str(folder)]) == 0
        assert len(chat.requests) == 2 * inspect_calls
    yield Path(log.location), folder


def test_the_same_seeds_give_the_same_scores_as_playbench_bench(played):
    log_path, folder = played
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    samples = {sample.id: sample for sample in log.samples}
    assert sorted(samples) == sorted(f"{slug}-{seed}" for slug, seed in EPISODES)
    for slug, seed in EPISODES:
        sample = samples[f"{slug}-{seed}"]
        [record] = [r for r in RunDir(folder / slug).records() if r["seed"] == seed]
        score = sample.scores["replay"]
        assert score.value == record["progress"]
        assert score.metadata["score"] == record["score"]
        assert score.metadata["fingerprint"] == record["fingerprint"]
        replay = (folder / slug / record["replay"]).read_text().splitlines()
        bench_actions = [json.loads(line)["action"] for line in replay[1:-1]]
        episode = sample.store[STORE_KEY]
        assert [line["action"] for line in episode["replay"][1:-1]] == bench_actions
        assert episode["llm"]["modelTurns"] == record["llm"]["modelTurns"]


def test_an_imported_log_holds_the_records_playbench_bench_writes(played, tmp_path):
    log_path, folder = played
    out = tmp_path / "imported"
    assert main(["import", str(log_path), "--out", str(out)]) == 0
    same = ("game", "seed", "options", "agent", "score", "progress", "steps", "outcome")
    for slug in ("gem-swap", "cogcrawl"):
        # in seed order: episodes played at once reach runs.jsonl as they end
        ours, theirs = (
            sorted(RunDir(where / slug).records(), key=lambda record: record["seed"])
            for where in (out, folder)
        )
        assert len(ours) == len(theirs) == 2
        for mine, other in zip(ours, theirs, strict=True):
            for key in (*same, "fingerprint", "replay", "budget"):
                assert mine.get(key) == other.get(key), (slug, key)
            # every count but the timings (the calls' own seconds and their queueing)
            timings = ("seconds", "queueSeconds")
            counts = {key: value for key, value in mine["llm"].items() if key not in timings}
            assert counts == {key: other["llm"][key] for key in counts}
        config = json.loads((out / slug / "run.json").read_text())
        held = json.loads((folder / slug / "run.json").read_text())
        for key in ("game", "agent", "options", "optionsBySeed", "maxSteps", "budget", "suite"):
            assert config.get(key) == held.get(key), (slug, key)
    # the suite's maxTurns ended each Gem Swap episode, named as the runner names it
    assert [r["budget"] for r in RunDir(out / "gem-swap").records()] == ["maxTurns"] * 2


def test_an_inspect_log_is_verified_imported_and_reported_beside_a_bench(played, tmp_path, capsys):
    log_path, folder = played
    assert main(["verify", str(log_path)]) == 0
    assert f"ok: 4 episode(s) of {log_path} replay" in capsys.readouterr().out
    out = tmp_path / "imported"
    assert main(["import", str(log_path), "--out", str(out)]) == 0
    assert "4 episodes (gem-swap 2, cogcrawl 2) written" in capsys.readouterr().out
    assert check_bench(out) == []
    imported, benched = read_bench(out), read_bench(folder)
    assert imported["suite"]["hash"] == benched["suite"]["hash"]
    assert (imported["agent"], imported["model"]) == ("llm", MODEL)
    assert imported["headline"]["meanProgress"] == benched["headline"]["meanProgress"]
    assert main(["verify", str(out / "gem-swap")]) == 0
    for slug in ("gem-swap", "cogcrawl"):
        ours = json.loads((out / slug / "summary.json").read_text())
        theirs = json.loads((folder / slug / "summary.json").read_text())
        keys = ("episodes", "meanScore", "meanProgress", "ci95", "outcomes")
        assert {key: ours[key] for key in keys} == {key: theirs[key] for key in keys}
    report = tmp_path / "report"
    assert main(["report", str(log_path), str(folder), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert f"llm {MODEL}" in text and "llm script-model" in text
    assert "tie on Gem Swap on every slot" in text
    assert (report / "paired-cogcrawl.png").is_file()


def test_an_imported_inspect_log_is_published_and_resimulated_by_the_server(
    played, tmp_path, monkeypatch
):
    log_path, _folder = played
    with arena(tmp_path / "server") as server:
        enrol(server, "Door Ada", monkeypatch)
        out = tmp_path / "published"
        args = ["import", str(log_path), "--out", str(out), "--publish", server]
        assert main([*args, "--player", "Door Ada"]) == 0
        [shown] = httpx.get(f"{server}/api/bench").json()["results"]
        assert shown["player"] == "Door Ada"
        assert shown["headline"] == read_bench(out)["headline"]
        assert shown["suite"]["hash"] == read_bench(out)["suite"]["hash"]


def changed_member(log_path: Path, into: Path, name: str, change) -> Path:
    """A copy of the log with its JSON member ``name`` changed in place by ``change``."""
    copy = into / log_path.name
    with zipfile.ZipFile(log_path) as source, zipfile.ZipFile(copy, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == name:
                held = json.loads(data)
                change(held)
                data = json.dumps(held).encode()
            target.writestr(item, data)
    return copy


def tampered(log_path: Path, into: Path, sample: str, change) -> Path:
    """A copy of the log with one sample's stored replay changed by ``change``."""

    def replay(held):
        change(held["store"][STORE_KEY]["replay"])

    return changed_member(log_path, into, f"samples/{sample}_epoch_1.json", replay)


def test_a_tampered_log_is_refused_with_the_step_named(played, tmp_path, capsys):
    log_path, _folder = played

    def score_up(replay):
        replay[3]["score"] += 10

    changed = tampered(log_path, tmp_path, "gem-swap-1", score_up)
    assert main(["verify", str(changed)]) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH {changed} sample gem-swap-1: step 3 scores" in out
    assert main(["import", str(changed), "--out", str(tmp_path / "out")]) == 2
    assert "sample gem-swap-1: step 3 scores" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

    def refused(replay):
        replay[2]["action"] = {"type": "descend"}

    (tmp_path / "second").mkdir()
    changed = tampered(log_path, tmp_path / "second", "gem-swap-0", refused)
    assert main(["verify", str(changed)]) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH {changed} sample gem-swap-0: step 2: log entry 1" in out
    assert main(["report", str(changed), "--out", str(tmp_path / "report")]) == 2
    assert "sample gem-swap-0: step 2: log entry 1" in capsys.readouterr().err

    def fewer_games(header):
        del header["eval"]["metadata"][SUITE_KEY]["games"]["cogcrawl"]

    (tmp_path / "third").mkdir()
    changed = changed_member(log_path, tmp_path / "third", "header.json", fewer_games)
    assert main(["verify", str(changed)]) == 1
    out = capsys.readouterr().out
    said = "sample cogcrawl-1: its game 'cogcrawl' is not one of the suite door-pair's"
    assert f"MISMATCH {changed} {said}" in out


def test_rescoring_a_log_whose_actions_do_not_replay_is_an_error_not_a_result(played, monkeypatch):
    log_path, _folder = played
    # Inspect makes the log's model to score it (the scorer never calls it)
    monkeypatch.setenv("SCRIPT_API_KEY", KEY)
    from inspect_ai import score
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    [sample] = [sample for sample in log.samples if sample.id == "gem-swap-1"]
    sample.store[STORE_KEY]["replay"][4]["action"] = {"type": "swap"}
    with pytest.raises(InspectLogError, match=r"^step 4: log entry 3 \(\{'type': 'swap'\}\)"):
        score(log, replay(), action="overwrite", display="none")


def test_a_failed_call_fails_the_sample_and_eval_retry_plays_it_again(chat, tmp_path, capsys):
    from inspect_ai import eval_retry

    chat.add(Status(400, "scripted refusal"), *[first_legal] * 2)
    logs = str(tmp_path / "logs")
    model = scripted_model(chat.base_url)
    [failed] = inspect_eval(
        gem_swap(seeds="0", max_turns=2), model=model, log_dir=logs, display="none"
    )
    assert failed.status == "error"
    [sample] = failed.samples
    assert "scripted refusal" in sample.error.message
    assert main(["import", failed.location, "--out", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "holds no scored episode" in err and "sample gem-swap-0: it errored" in err
    [again] = eval_retry(failed, log_dir=logs, display="none")
    assert again.status == "success"
    assert len(chat.requests) == 3
    assert main(["import", again.location, "--out", str(tmp_path / "imported")]) == 0
    [record] = RunDir(tmp_path / "imported" / "gem-swap").records()
    assert (record["seed"], record["budget"], record["llm"]["modelTurns"]) == (0, "maxTurns", 2)
