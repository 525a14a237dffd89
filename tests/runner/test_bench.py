"""``playbench bench``: the suites, the figures of the quick suite for the random and bot
agents, resume and Ray giving the same ``bench.json``, and the check the arena runs."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.cli import main
from playbench.core import all_games
from playbench.runner.bench import BENCH, bench_figures, check_bench, read_bench
from playbench.runner.seeds import parse_seeds
from playbench.runner.stats import RESAMPLES, mean_interval, stratified_interval
from playbench.runner.store import RunDir
from playbench.runner.suite import SuiteError, load_suite, read_suite, shipped_suites

SLUGS = {game.slug for game in all_games()}
QUICK_HASH = "sha256:0eb70d383c59ab739964320b8bd5fd69e5b377f3e93e6b3efef1617f25ce7993"
V2_HASH = "sha256:cec4f8e7c006f34831bfc67ced48ea20e76304bb126080b40e027a9c8819834c"


def bench(folder: Path, *args: str) -> int:
    return main(["bench", *args, "--out", str(folder)])


@pytest.fixture(scope="module")
def random_quick(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bench") / "random"
    assert bench(folder, "--agent", "random", "--suite", "quick", "--workers", "1") == 0
    return folder


# -- the suites -----------------------------------------------------------------------------


def test_the_shipped_suites_cover_every_game_with_fixed_hashes():
    assert shipped_suites() == ["models-v2", "quick", "suite-v2"]
    quick, full = load_suite("quick"), load_suite("suite-v2")
    assert quick.hash == QUICK_HASH
    assert full.hash == V2_HASH
    for suite in (quick, full):
        assert {entry.game for entry in suite.games} == SLUGS
        assert all(entry.options == {} and entry.harness == {} for entry in suite.games)
    assert {entry.game: (entry.seeds, entry.max_steps) for entry in quick.games} == {
        slug: (
            [1, 2, 3] if slug == "delvewick" else [0, 1, 2],
            500 if slug == "chimestep" else 200 if slug == "gem-swap" else 2000,
        )
        for slug in SLUGS
    }
    delvewick = next(e for e in quick.games if e.game == "delvewick")
    assert [delvewick.options_of(seed) for seed in delvewick.seeds] == [
        {"startLevel": level} for level in (1, 2, 3)
    ]
    assert {entry.game: len(entry.seeds) for entry in full.games} == {
        "delvewick": 8,
        "chimestep": 10,
        "gem-swap": 10,
        "cogcrawl": 10,
    }
    assert next(e for e in full.games if e.game == "chimestep").max_steps == 1000


def test_a_suite_file_by_path_and_its_hash_follow_its_contents(tmp_path):
    data = json.loads(json.dumps(load_suite("quick").data))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data, indent=4))
    assert load_suite(str(path)).hash == QUICK_HASH  # the layout of the file does not count
    del data["baselines"]
    assert read_suite(data).hash == QUICK_HASH  # nor do the baselines, measured on it
    assert read_suite(data).baselines is None
    data["games"]["gem-swap"]["seeds"] = "0-3"
    assert read_suite(data).hash != QUICK_HASH


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["games"]["gem-swap"].pop("harness"), "must have the keys"),
        (lambda d: d["games"]["gem-swap"].update(maxturns=3), "may have optionsBySeed"),
        (lambda d: d["games"]["gem-swap"].update(maxTurns=0), "maxTurns of gem-swap"),
        (lambda d: d["games"]["gem-swap"].update(maxTokens=1.5), "maxTokens of gem-swap"),
        (lambda d: d["games"]["gem-swap"].update(optionsBySeed={"7": {}}), "no seed it plays"),
        (
            lambda d: d["games"]["delvewick"].update(optionsBySeed={"1": {"startLevel": 9}}),
            "startLevel",
        ),
        (lambda d: d["games"]["gem-swap"].update(harness={"model": "x"}), "unknown harness"),
        (lambda d: d["games"]["gem-swap"].update(maxSteps=0), "maxSteps"),
        (lambda d: d["games"]["gem-swap"].update(seeds=[0, 1]), "seeds"),
        (lambda d: d.update(games={}), "no games"),
        (lambda d: d["games"].update(nosuch=d["games"]["gem-swap"]), "nosuch"),
        (
            lambda d: d["games"]["delvewick"].pop("optionsBySeed"),
            "delvewick plays one episode twice, on the slots of seeds 1 and 2: the seed of "
            "Delvewick changes nothing",
        ),
        (
            # {} and {"startLevel": 1} start the same game
            lambda d: d["games"]["delvewick"]["optionsBySeed"].update(
                {"1": {}, "2": {"startLevel": 1}}
            ),
            "delvewick plays one episode twice, on the slots of seeds 1 and 2",
        ),
        (
            lambda d: d["baselines"]["gem-swap"]["random"].pop("0"),
            "the random baseline of gem-swap must give a number for each of its seeds 0, 1, 2",
        ),
        (
            lambda d: d["baselines"]["cogcrawl"].update(reference={"0": 1, "1": 2, "2": 3}),
            "on cogcrawl the reference's mean (2) is not above the random agent's (30.3333)",
        ),
        (lambda d: d["baselines"].update(nosuch={}), "an entry per game it plays"),
        (lambda d: d["baselines"]["chimestep"].pop("referenceAgent"), "must have the keys"),
        (
            lambda d: d["baselines"]["chimestep"].update(referenceSource=" "),
            "the referenceSource of chimestep must say in words where its reference figures",
        ),
        (
            lambda d: d["baselines"]["chimestep"].update(referenceSource=["bot"]),
            "the referenceSource of chimestep must say in words",
        ),
        (
            lambda d: d["baselines"]["chimestep"].update(referenceAgents="bot"),
            "may have 'referenceSource'",
        ),
    ],
)
def test_a_bad_suite_is_one_clear_line(change, message, tmp_path, capsys):
    data = json.loads(json.dumps(load_suite("quick").data))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert bench(tmp_path / "out", "--agent", "random", "--suite", str(path)) == 2
    error = capsys.readouterr().err
    assert error.startswith("playbench: ") and message in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_an_unknown_suite_names_the_shipped_ones(tmp_path, capsys):
    assert bench(tmp_path / "out", "--agent", "bot", "--suite", "v9") == 2
    assert "no suite 'v9': give one of models-v2, quick, suite-v2" in capsys.readouterr().err
    with pytest.raises(SuiteError):
        read_suite([])


# -- the figures ----------------------------------------------------------------------------


def test_random_over_the_quick_suite(random_quick, capsys):
    data = read_bench(random_quick)
    assert data["suite"]["name"] == "quick" and data["suite"]["hash"] == QUICK_HASH
    assert data["agent"] == "random" and data["model"] is None
    assert data["headline"] == {
        "normalisedScore": 0.0,
        "normalisedCi95": [-0.0118, 0.0124],
        "meanProgress": 0.0643,
        "ci95": [0.0493, 0.0808],
    }
    figures = {slug: (g["meanScore"], g["meanProgress"]) for slug, g in data["games"].items()}
    assert figures == {
        "delvewick": (33.3333, 0.0394),
        "chimestep": (452.0, 0.0135),
        "gem-swap": (1710.0, 0.171),
        "cogcrawl": (30.3333, 0.0333),
    }
    assert data["games"]["gem-swap"]["scoreCi95"] == [1530.0, 1890.0]
    # the published baseline is this same run
    assert data == read_bench(DOCS / "quick" / "random")
    # the figures are the runs' own: one door's output is the other's input
    for slug, game in data["games"].items():
        rows = [json.loads(line) for line in (random_quick / slug / "runs.jsonl").open()]
        seeds = {entry.game: entry.seeds for entry in load_suite("quick").games}
        assert sorted(row["seed"] for row in rows) == seeds[slug]
        assert game["meanScore"] == round(statistics.fmean(row["score"] for row in rows), 4)
        assert game["episodes"] == 3 and "llm" not in game
    means = [game["meanProgress"] for game in data["games"].values()]
    assert data["headline"]["meanProgress"] == pytest.approx(statistics.fmean(means), abs=1e-4)
    assert main(["verify", str(random_quick / "gem-swap")]) == 0
    assert check_bench(random_quick) == []


def test_bot_over_the_quick_suite(tmp_path, capsys):
    folder = tmp_path / "bot"
    assert bench(folder, "--agent", "bot", "--suite", "quick", "--workers", "2") == 0
    out = capsys.readouterr().out
    assert "quick · bot" in out and "headline" in out and "Gem Swap" in out
    data = read_bench(folder)
    figures = {slug: (g["meanScore"], g["meanProgress"]) for slug, g in data["games"].items()}
    assert figures == {
        "delvewick": (4431.6667, 1.0),
        "chimestep": (6283.0, 0.0793),
        "gem-swap": (6690.0, 0.6547),
        "cogcrawl": (1161.3333, 0.8667),
    }
    assert data["headline"] == {
        "normalisedScore": 1.0,
        "normalisedCi95": [0.8081, 1.1989],
        "meanProgress": 0.6501,
        "ci95": [0.5859, 0.7365],
    }
    assert check_bench(folder) == []
    assert data == read_bench(DOCS / "quick" / "bot")


def test_resume_gives_the_same_bench_json(random_quick, tmp_path):
    folder = tmp_path / "again"
    shutil.copytree(random_quick, folder)
    (folder / BENCH).unlink()
    shutil.rmtree(folder / "cogcrawl")
    runs = folder / "gem-swap" / "runs.jsonl"
    runs.write_text("".join(runs.read_text().splitlines(keepends=True)[:1]))
    assert bench(folder, "--agent", "random", "--suite", "quick", "--workers", "1") == 0
    assert (folder / BENCH).read_bytes() == (random_quick / BENCH).read_bytes()
    assert len((folder / "gem-swap" / "runs.jsonl").read_text().splitlines()) == 3


def test_ray_gives_the_same_bench_json(random_quick, tmp_path):
    folder = tmp_path / "ray"
    args = ["--agent", "random", "--suite", "quick", "--backend", "ray", "--workers", "2"]
    assert bench(folder, *args) == 0
    assert read_bench(folder) == read_bench(random_quick)
    assert (folder / BENCH).read_bytes() == (random_quick / BENCH).read_bytes()


def test_a_folder_of_another_bench_is_refused(random_quick, tmp_path, capsys):
    folder = tmp_path / "other"
    shutil.copytree(random_quick, folder)
    before = (folder / BENCH).read_bytes()
    assert bench(folder, "--agent", "random", "--suite", "suite-v2") == 2
    assert "holds another bench (suite 'quick'" in capsys.readouterr().err
    assert bench(folder, "--agent", "bot", "--suite", "quick") == 2
    assert (folder / BENCH).read_bytes() == before


def test_the_check_finds_a_replay_or_a_figure_that_was_changed(random_quick, tmp_path):
    folder = tmp_path / "changed"
    shutil.copytree(random_quick, folder)
    replay = folder / "delvewick" / "replays" / "delvewick-1.jsonl"
    lines = replay.read_text().splitlines()
    end = json.loads(lines[-1])
    end["end"]["score"] += 100
    replay.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    problems = check_bench(folder)
    assert problems and "delvewick-1.jsonl" in problems[0] and "final score" in problems[0]

    shutil.rmtree(folder)
    shutil.copytree(random_quick, folder)
    data = json.loads((folder / BENCH).read_text())
    data["headline"]["meanProgress"] = 0.9
    (folder / BENCH).write_text(json.dumps(data))
    assert check_bench(folder) == [f"{folder / BENCH}: its figures differ from its episodes'"]

    data["suite"]["games"]["gem-swap"]["seeds"] = "0-1"
    (folder / BENCH).write_text(json.dumps(data))
    assert check_bench(folder) == [f"{folder / BENCH}: its suite does not match its hash"]
    assert bench_figures(random_quick) == read_bench(random_quick)


def test_a_result_cannot_bring_its_own_scale(random_quick, tmp_path):
    """Baselines written into a result's files are a claim: the figures are scaled by the
    shipped suite of the result's hash alone."""
    folder = tmp_path / "forged"
    shutil.copytree(random_quick, folder)
    shipped = load_suite("quick").data["baselines"]
    forged = json.loads(json.dumps(shipped))
    for entry in forged.values():
        entry["random"] = {seed: score - 1000 for seed, score in entry["random"].items()}
    for slug in shipped:
        config = json.loads((folder / slug / "run.json").read_text())
        config["suite"]["baselines"] = forged
        (folder / slug / "run.json").write_text(json.dumps(config))
    assert read_suite({**load_suite("quick").data, "baselines": forged}).hash == QUICK_HASH
    assert bench_figures(folder) == read_bench(random_quick)
    assert bench_figures(folder)["headline"]["normalisedScore"] == 0.0


def test_a_suite_of_no_scale_has_no_normalised_figures(random_quick, tmp_path):
    data = json.loads(json.dumps(load_suite("quick").data))
    del data["baselines"]
    data["description"] = "the quick suite's games under another name"
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(data))
    folder = tmp_path / "plain"
    assert bench(folder, "--agent", "random", "--suite", str(path), "--workers", "1") == 0
    figures = read_bench(folder)
    assert figures["headline"]["normalisedScore"] is None
    assert (
        figures["headline"]["meanProgress"] == read_bench(random_quick)["headline"]["meanProgress"]
    )
    assert all(game["normalisedScore"] is None for game in figures["games"].values())


def test_an_unfinished_bench_has_no_figures(random_quick, tmp_path):
    folder = tmp_path / "part"
    shutil.copytree(random_quick, folder)
    runs = folder / "chimestep" / "runs.jsonl"
    runs.write_text(runs.read_text().splitlines(keepends=True)[0])
    unfinished = f"{folder / 'chimestep'} is unfinished: 2 seed(s) of the suite unplayed"
    assert check_bench(folder) == [unfinished]


# -- the intervals ----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=12))
def test_an_interval_holds_its_mean_and_repeats(values):
    interval = mean_interval(values)
    assert interval.low <= interval.mean + 1e-9 and interval.mean <= interval.high + 1e-9
    assert min(values) <= interval.low and interval.high <= max(values)
    assert mean_interval(values) == interval


def test_the_headline_interval_of_constant_games_is_its_mean():
    assert stratified_interval([[1.0, 1.0], [0.5], [0.0, 0.0, 0.0]]).rounded() == [0.5, 0.5]
    assert RESAMPLES == 2000
    assert parse_seeds(load_suite("suite-v2").data["games"]["gem-swap"]["seeds"]) == list(range(10))


# -- the baselines in the repository ----------------------------------------------------------

DOCS = Path(__file__).parents[2] / "docs" / "bench"
#: where each shipped suite's random and bot benches are published
PUBLISHED = {"suite-v2": DOCS, "models-v2": DOCS / "models-v2", "quick": DOCS / "quick"}


def test_every_shipped_suite_has_its_baselines_published():
    assert set(PUBLISHED) == set(shipped_suites())


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_the_baselines_are_the_published_runs_at_0_and_1_within_their_intervals(name):
    suite = load_suite(name)
    scale = suite.baselines
    assert scale is not None
    for agent, end, role in (("random", 0.0, "random"), ("bot", 1.0, "reference")):
        data = read_bench(PUBLISHED[name] / agent)
        assert data["suite"]["hash"] == suite.hash and data["agent"] == agent
        low, high = data["headline"]["normalisedCi95"]
        assert low <= end <= high and data["headline"]["normalisedScore"] == end
        for slug, figures in data["games"].items():
            records = RunDir(PUBLISHED[name] / agent / slug).records()
            assert {r["seed"]: r["score"] for r in records} == getattr(scale[slug], role)
            assert figures["normalisedScore"] == end


@pytest.mark.parametrize("agent", ["bot", "random"])
def test_the_suite_v2_baselines_verify_and_the_readme_shows_their_figures(agent):
    folder = DOCS / agent
    assert check_bench(folder) == []
    data = read_bench(folder)
    assert data["suite"]["hash"] == V2_HASH and data["agent"] == agent
    headline = data["headline"]
    low, high = headline["normalisedCi95"]
    plow, phigh = headline["ci95"]
    cells = " | ".join(
        f"{game['meanScore']:,.0f} / {game['meanProgress']:.3f}" for game in data["games"].values()
    )
    row = (
        f"| `{agent}` | {headline['normalisedScore']:.3f} ({low:.3f} to {high:.3f}) | "
        f"{headline['meanProgress']:.3f} ({plow:.3f}-{phigh:.3f}) | {cells} |"
    )
    assert row in (DOCS.parents[1] / "README.md").read_text()
    report = (DOCS / "report" / "report.md").read_text()
    assert f"| {agent} | {headline['normalisedScore']:.3f} |" in report


def test_verify_takes_a_bench_folder_and_names_a_missing_path(random_quick, tmp_path, capsys):
    """Every game's runs of the bench re-simulated; a changed figure is a mismatch; a path
    that is not there is "no such file"."""
    assert main(["verify", str(random_quick)]) == 0
    games = read_bench(random_quick)["suite"]["games"]
    replays = sum(len(list((random_quick / slug / "replays").glob("*.jsonl"))) for slug in games)
    records = sum(
        len((random_quick / slug / "runs.jsonl").read_text().splitlines()) for slug in games
    )
    assert replays == records > len(games)
    assert f"ok: {replays} replay(s) match" in capsys.readouterr().out

    folder = tmp_path / "changed"
    shutil.copytree(random_quick, folder)
    data = json.loads((folder / BENCH).read_text())
    data["headline"]["meanProgress"] += 0.5
    (folder / BENCH).write_text(json.dumps(data))
    assert main(["verify", str(folder)]) == 1
    assert "its figures differ from its episodes'" in capsys.readouterr().out

    missing = tmp_path / "no-bench-here"
    assert main(["verify", str(missing)]) != 0
    assert f"{missing}: no such file or folder" in capsys.readouterr().err
