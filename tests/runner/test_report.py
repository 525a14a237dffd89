"""``playbench report``: two bench folders compared, every picture decoded, the paired
interval against a hand-computed case, comparisons on a suite's scale whose answer is
known, the charts' axes and labels, and suites that must not mix."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from playbench.cli import main
from playbench.core.registry import get_game
from playbench.runner import charts
from playbench.runner.bench import bench_figures, read_bench, write_bench
from playbench.runner.charts import PIXELS
from playbench.runner.compare import SCORE, Pair, compare
from playbench.runner.report import load_entries, pairs, report_charts
from playbench.runner.stats import Interval, paired_interval
from playbench.runner.store import RunDir
from playbench.runner.suite import load_suite

#: a small suite of three games, so that a bot bench takes seconds (Delvewick from four
#: levels: its seed changes nothing)
#: a cell of the report's HTML tables: its column's name (a phone's label) and its value
CELL = r'<td><span class="label">(.*?)</span><span class="value">(.*?)</span></td>'
TINY = {
    "name": "tiny",
    "description": "three games, four slots",
    "games": {
        "delvewick": {
            "seeds": "0-3",
            "options": {},
            "optionsBySeed": {str(seed): {"startLevel": seed + 1} for seed in range(4)},
            "maxSteps": 400,
            "harness": {},
        },
        "chimestep": {"seeds": "0-3", "options": {}, "maxSteps": 200, "harness": {}},
        "cogcrawl": {"seeds": "0-3", "options": {}, "maxSteps": 300, "harness": {}},
    },
}


@pytest.fixture(scope="module")
def benches(tmp_path_factory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("report")
    suite = root / "tiny.json"
    suite.write_text(json.dumps(TINY))
    folders = []
    for agent in ("bot", "random"):
        folder = root / agent
        args = ["bench", "--agent", agent, "--suite", str(suite), "--workers", "1"]
        assert main([*args, "--out", str(folder)]) == 0
        folders.append(folder)
    return root, folders[0], folders[1]


# -- the paired interval --------------------------------------------------------------------


def test_the_paired_interval_of_a_hand_computed_case():
    # differences 0, 0, 0, 8 over four seeds: the 256 resamples are listed. The resampled
    # mean is 2k for k eights drawn, k ~ Binomial(4, 1/4): P(k=0) = 81/256 reaches 2.5%,
    # P(k<=2) = 243/256 < 97.5% <= P(k<=3) = 255/256. So the mean 2, the interval 0 to 6.
    first = {10: 5, 11: 7, 12: 1, 13: 9}
    second = {10: 5, 11: 7, 12: 1, 13: 1, 14: 100}  # seed 14: played by one agent only
    assert paired_interval(first, second) == Interval(2.0, 0.0, 6.0)
    # the same differences the other way round
    assert paired_interval(second, first) == Interval(-2.0, -6.0, 0.0)
    # three seeds, differences 3, 3, 6: resampled sums 9 (8/27), 12 (12/27), 15 (6/27),
    # 18 (1/27): the mean 4, the interval 3 to 6
    assert paired_interval({1: 3, 2: 3, 3: 6}, {1: 0, 2: 0, 3: 0}) == Interval(4.0, 3.0, 6.0)


def test_a_pair_says_who_beats_whom():
    pair = Pair("gem-swap", "A", "B", [0.21], Interval(0.21, 0.12, 0.30))
    assert pair.sentence() == "A beats B on Gem Swap by 0.21 (0.12-0.30)"
    pair = Pair("gem-swap", "A", "B", [-0.21], Interval(-0.21, -0.30, -0.12))
    assert pair.sentence() == "B beats A on Gem Swap by 0.21 (0.12-0.30)"
    pair = Pair("gem-swap", "A", "B", [-50.0], Interval(-50.0, -120.0, 10.0), SCORE)
    assert pair.sentence() == (
        "A and B are not told apart on Gem Swap: -50 points (-120 to 10), the 95% interval holds 0"
    )
    pair = Pair("", "A", "B", [0.05], Interval(0.05, -0.01, 0.11))
    assert pair.sentence() == (
        "A and B are not told apart on the headline: 0.05 (-0.01 to 0.11), the 95% interval holds 0"
    )
    pair = Pair("cogcrawl", "A", "B", [0.0], Interval(0.0, 0.0, 0.0))
    assert pair.sentence() == "A and B tie on Cogcrawl on every slot"


def scaled_bench(by_game: dict[str, dict[int, float]]) -> dict:
    return {
        "games": {
            slug: {"normalisedBySeed": {str(seed): v for seed, v in values.items()}}
            for slug, values in by_game.items()
        }
    }


def test_a_comparison_whose_answer_is_known():
    # Gem Swap: differences 0.2, 0.2, 0.2, 0.6 over four slots (the 256 resamples listed):
    # the resampled mean is 0.2 + 0.1k for k sixes drawn, k ~ Binomial(4, 1/4), so, as in
    # the hand-computed case above, the mean 0.3 and the interval 0.2 to 0.5. Cogcrawl:
    # differences 0.1 on each of its two slots, the interval 0.1 to 0.1. The headline: the
    # mean over the two games, 0.2, resampled within games, so (0.2 + 0.1) / 2 to
    # (0.5 + 0.1) / 2 (the seeded draws land where the exact bounds are); slot 9 was
    # played by A alone.
    a = scaled_bench({"gem-swap": {0: 0.7, 1: 0.5, 2: 0.2, 3: 0.9}, "cogcrawl": {0: 0.3, 1: 0.4}})
    b = scaled_bench({"gem-swap": {0: 0.5, 1: 0.3, 2: 0.0, 3: 0.3}, "cogcrawl": {0: 0.2, 1: 0.3}})
    a["games"]["cogcrawl"]["normalisedBySeed"]["9"] = 1.0
    raw = {"gem-swap": {}, "cogcrawl": {}}
    found = compare(("A", a, raw), ("B", b, raw))
    assert [(pair.game, len(pair.differences)) for pair in found] == [
        ("gem-swap", 4),
        ("cogcrawl", 2),
        ("", 6),
    ]
    gems, cogs, headline = found
    assert (round(gems.interval.mean, 9), gems.interval.low, gems.interval.high) == (
        0.3,
        pytest.approx(0.2),
        pytest.approx(0.5),
    )
    assert gems.sentence() == "A beats B on Gem Swap by 0.30 (0.20-0.50)"
    assert cogs.interval.low == pytest.approx(0.1) == cogs.interval.high
    assert headline.interval.mean == pytest.approx(0.2)
    assert (headline.interval.low, headline.interval.high) == (
        pytest.approx(0.15),
        pytest.approx(0.3),
    )
    assert headline.excludes_zero and headline.sentence().startswith("A beats B on the headline")
    # the other way round: the same intervals, negated
    back = compare(("B", b, raw), ("A", a, raw))[0]
    assert back.interval.mean == pytest.approx(-0.3) and back.sentence() == gems.sentence()


# -- the report -----------------------------------------------------------------------------


def test_a_report_of_two_benches(benches, capsys):
    root, bot, random = benches
    out = root / "report"
    assert main(["report", str(bot), str(random), "--out", str(out)]) == 0
    assert "files written" in capsys.readouterr().out
    slugs = list(TINY["games"])
    pictures = {"headline.png", "progress.png"}
    pictures |= {f"scores-{slug}.png" for slug in slugs} | {f"paired-{slug}.png" for slug in slugs}
    assert {path.name for path in out.iterdir()} == pictures | {"index.html", "report.md"}
    for name in pictures:
        with Image.open(out / name) as image:
            image.load()
            assert image.format == "PNG" and image.size == PIXELS
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
            assert colours is None or len(colours) > 10  # drawn on, not blank

    page = (out / "index.html").read_text()
    assert 'name="viewport"' in page and "<script" not in page
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert len(sources) == len(pictures)
    assert all(source.startswith("data:image/png;base64,") for source in sources)
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from elsewhere
    links = re.findall(r'data-replay="([^"]+)"', page)
    assert len(links) == 2 * 12
    assert all((out / link).is_file() for link in links)
    command = "playbench replay " + str(bot / "cogcrawl" / "replays" / "cogcrawl-3.jsonl")
    assert command in re.sub(r"<[^>]+>", "", page)  # as read, its words kept whole in spans

    entries = load_entries([bot, random])
    found = pairs(entries)
    assert [(pair.game, pair.first, pair.second) for pair in found] == [
        (slug, "bot", "random") for slug in slugs
    ]
    delvewick = found[0]
    bot_scores, random_scores = entries[0].scores("delvewick"), entries[1].scores("delvewick")
    assert delvewick.differences == [bot_scores[seed] - random_scores[seed] for seed in range(4)]
    assert delvewick.interval == paired_interval(bot_scores, random_scores)
    assert delvewick.sentence() in page

    markdown = (out / "report.md").read_text()
    for name in pictures:
        assert f"]({name})" in markdown
    assert delvewick.sentence() in markdown
    headline = json.loads((bot / "bench.json").read_text())["headline"]
    assert f"| bot | {headline['meanProgress']:.3f} |" in markdown


def test_benches_of_different_suites_are_not_compared(benches, tmp_path, capsys):
    root, bot, _random = benches
    other = tmp_path / "quick"
    suite = json.loads(json.dumps(TINY))
    suite["games"]["delvewick"]["maxSteps"] = 401
    path = tmp_path / "tiny2.json"
    path.write_text(json.dumps(suite))
    args = ["bench", "--agent", "random", "--suite", str(path), "--workers", "1"]
    assert main([*args, "--out", str(other)]) == 0
    capsys.readouterr()
    assert main(["report", str(bot), str(other), "--out", str(tmp_path / "r")]) == 2
    error = capsys.readouterr().err
    assert "results of different suites are not compared" in error and error.count("\n") == 1
    assert not (tmp_path / "r").exists()
    assert main(["report", str(root), "--out", str(tmp_path / "r")]) == 2
    assert "holds no bench.json" in capsys.readouterr().err
    (other / "cogcrawl" / "runs.jsonl").write_text("")
    assert main(["report", str(other), "--out", str(tmp_path / "r")]) == 2
    error = capsys.readouterr().err
    assert "cogcrawl holds 0 episodes, bench.json says 4: run playbench bench" in error
    held = json.loads((bot / "bench.json").read_text())["suite"]["hash"]
    assert load_suite(str(path)).hash != held


def test_human_normalised_scores_put_random_at_0_and_the_human_median_at_1(benches, tmp_path):
    """A person's result (agent ``human``; here the bot's episodes under that name) beside
    the bot and the random agent: each mean score on the human-normalised scale."""
    _, bot, random = benches
    human = tmp_path / "human"
    shutil.copytree(bot, human)
    data = json.loads((human / "bench.json").read_text())
    (human / "bench.json").write_text(json.dumps({**data, "agent": "human"}))
    out = tmp_path / "report"
    assert main(["report", str(human), str(bot), str(random), "--out", str(out)]) == 0
    figures = {
        name: json.loads((folder / "bench.json").read_text())["games"]
        for name, folder in (("bot", bot), ("random", random))
    }
    expected = {}
    for agent in ("bot", "random"):
        cells = []
        for slug in TINY["games"]:
            zero = figures["random"][slug]["meanScore"]
            span = figures["bot"][slug]["medianScore"] - zero
            mean = figures[agent][slug]["meanScore"]
            cells.append("–" if span == 0 else f"{(mean - zero) / span:.3f}")
        expected[agent] = cells
    assert all(cell == "0.000" or cell == "–" for cell in expected["random"])
    markdown = (out / "report.md").read_text()
    assert "## Human-normalised score" in markdown
    for agent, cells in expected.items():
        assert f"| {agent} | {' | '.join(cells)} |" in markdown, markdown
    page = (out / "index.html").read_text()
    assert 'data-testid="human-normalised"' in page
    table = page[page.index('data-testid="human-normalised"') :].split("</table>")[0]
    rows = [
        [(label, re.sub(r"<[^>]+>", "", value)) for label, value in re.findall(CELL, row)]
        for row in re.findall(r"<tr>(.*?)</tr>", table)
    ]
    names = [get_game(slug).name for slug in TINY["games"]]
    assert [("agent", "bot"), *zip(names, expected["bot"], strict=True)] in rows


def test_no_human_normalised_scores_without_a_human(benches, tmp_path):
    _, bot, random = benches
    out = tmp_path / "report"
    assert main(["report", str(bot), str(random), "--out", str(out)]) == 0
    assert "Human-normalised" not in (out / "report.md").read_text()


# -- a suite with a scale -------------------------------------------------------------------


@pytest.fixture(scope="module")
def scaled(benches, tmp_path_factory) -> tuple[Path, Path]:
    """The tiny benches on a scale of their own episodes (the bot the reference): copies
    whose figures are recomputed with the suite that ships those baselines."""
    _root, bot, random = benches
    root = tmp_path_factory.mktemp("scaled")
    data = json.loads(json.dumps(TINY))
    data["baselines"] = {
        slug: {
            "random": {str(r["seed"]): r["score"] for r in RunDir(random / slug).records()},
            "reference": {str(r["seed"]): r["score"] for r in RunDir(bot / slug).records()},
            "referenceAgent": "bot",
        }
        for slug in TINY["games"]
    }
    path = root / "tiny-scaled.json"
    path.write_text(json.dumps(data))
    suite = load_suite(str(path))
    assert suite.hash == read_bench(bot)["suite"]["hash"]  # the baselines are no part of it
    copies = []
    for folder in (bot, random):
        copy = root / folder.name
        shutil.copytree(folder, copy)
        write_bench(copy, bench_figures(copy, suite))
        copies.append(copy)
    return copies[0], copies[1]


def test_the_scale_puts_random_at_0_and_the_reference_at_1(scaled):
    bot, random = (read_bench(folder) for folder in scaled)
    assert bot["headline"]["normalisedScore"] == 1.0 and random["headline"]["normalisedScore"] == 0
    for bench, end in ((bot, 1.0), (random, 0.0)):
        low, high = bench["headline"]["normalisedCi95"]
        assert low <= end <= high
        for figures in bench["games"].values():
            assert figures["normalisedScore"] == end
            assert figures["scale"]["referenceAgent"] == "bot"


def test_a_report_on_the_scale(scaled, tmp_path, capsys):
    bot, random = scaled
    out = tmp_path / "report"
    assert main(["report", str(bot), str(random), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-2].startswith("bot beats random on the headline by 1.00 (")
    assert printed[-2].endswith(") (12 slots)")
    assert (out / "normalised.png").is_file()
    markdown = (out / "report.md").read_text()
    assert "| bot | 1.000 |" in markdown and "| random | 0.000 |" in markdown
    assert "Delvewick cut at 400 actions; Chimestep cut at 200 actions" in markdown
    entries = load_entries([bot, random])
    found = pairs(entries)
    assert [pair.game for pair in found] == [*TINY["games"], ""]
    assert all(pair.sentence() in markdown for pair in found)


def _axes_by_title(figures) -> dict[str, object]:
    return {figure.axes[0].get_title().splitlines()[0]: figure.axes[0] for figure in figures}


def test_the_charts_show_the_scales_ends_and_their_cuts(scaled):
    entries = load_entries(list(scaled))
    kept: list = []
    report_charts(entries, pairs(entries), kept)
    axes = _axes_by_title(kept)
    headline = axes["Headline: mean normalised score over the games, 95% interval"]
    low, high = headline.get_xlim()
    assert low < 0 and high > 1  # both ends of the scale are on the axis
    names = {text.get_text() for text in headline.texts}
    assert {"random", "bot (reference)"} <= names
    assert "cut at 400 actions" in headline.get_title()
    progress = axes["Mean progress per game, 95% intervals"]
    assert progress.get_ylim()[0] < 0 and progress.get_ylim()[1] > 1
    scores = axes["Chimestep: score per episode (dots: every episode)"]
    assert scores.get_xlim()[0] < 0  # the score axis starts at 0, not at the lowest score
    assert scores.get_title().splitlines()[1] == "cut at 200 actions"
    assert {"random mean", "bot mean"} <= {text.get_text() for text in scores.texts}
    # four episodes an agent: points, no box drawn from them
    assert all(len(collection.get_offsets()) == 4 for collection in scores.collections)
    assert not [line for line in scores.lines if line.get_linestyle() == "-"]


def test_ten_episodes_an_agent_get_a_box():
    kept: list = []
    charts.distributions("Many", "score", [("a", list(range(10))), ("b", [1, 2, 3])], keep=kept)
    axes = kept[0].axes[0]
    assert "box: quartiles from 10 episodes" in axes.get_title()
    solid = [line for line in axes.lines if line.get_linestyle() == "-"]
    assert solid  # the box's whiskers and median, for the agent of ten
