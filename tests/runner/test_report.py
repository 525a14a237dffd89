"""``playbench report``: two bench folders compared, every picture decoded, the paired
interval against a hand-computed case, and suites that must not mix."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from playbench.cli import main
from playbench.runner.charts import PIXELS
from playbench.runner.report import Pair, load_entries, pairs
from playbench.runner.stats import Interval, paired_interval
from playbench.runner.suite import load_suite

#: a small suite of three games, so that a bot bench takes seconds
TINY = {
    "name": "tiny",
    "description": "three games, four seeds",
    "games": {
        "delvewick": {"seeds": "0-3", "options": {}, "maxSteps": 400, "harness": {}},
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
    pair = Pair("gem-swap", "A", "B", [1240.0], Interval(1240.0, 980.0, 1510.0))
    assert pair.sentence() == "A beats B on Gem Swap by 1,240, 95% 980 to 1,510"
    pair = Pair("gem-swap", "A", "B", [-50.0], Interval(-50.0, -120.0, 10.0))
    assert pair.sentence() == (
        "B beats A on Gem Swap by 50, 95% -10 to 120 (the interval holds 0: not clear)"
    )
    pair = Pair("cogcrawl", "A", "B", [0.0], Interval(0.0, 0.0, 0.0))
    assert pair.sentence() == "A and B tie on Cogcrawl on every seed"


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
    assert "playbench replay " + str(bot / "cogcrawl" / "replays" / "cogcrawl-3.jsonl") in page

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
    row = "".join(f"<td>{cell}</td>" for cell in expected["bot"])
    assert f"<tr><td>bot</td>{row}</tr>" in page


def test_no_human_normalised_scores_without_a_human(benches, tmp_path):
    _, bot, random = benches
    out = tmp_path / "report"
    assert main(["report", str(bot), str(random), "--out", str(out)]) == 0
    assert "Human-normalised" not in (out / "report.md").read_text()
