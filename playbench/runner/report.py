"""``playbench report DIR [DIR ...] --out report/``: bench folders compared side by side.

The report folder gets ``index.html`` (one self-contained page: styles inline, every
picture embedded as a data URI, no script, nothing fetched, readable on a phone),
``report.md`` (the same figures as Markdown, the pictures linked beside it) and the PNG
charts (:mod:`playbench.runner.charts`):

- ``headline.png``: each agent's headline with its interval, drawn between the scale's
  ends (the random agent at 0, the reference at 1) where the suite has a scale (the mean
  normalised score over the games), else the mean progress on 0 to 1;
- ``normalised.png`` (a suite with a scale): each game's mean normalised score per agent;
- ``progress.png``: each game's mean progress per agent with intervals, on 0 to 1;
- ``scores-<slug>.png``: each game's score per episode per agent (points; a box of
  quartiles from ten episodes), from 0, with the random and reference means marked;
- ``paired-<slug>.png``: where two agents played the same slots, the per-slot differences
  (of normalised scores where the suite has a scale) and their mean with a paired
  bootstrap interval (:mod:`playbench.runner.compare`);
- ``llm.png`` (language models only): tokens per turn, seconds per call, queueing per
  call, fallback share.

Every chart a cut shapes says it under its title (Chimestep cut at 500 actions, a model's
calls and tokens).

Every episode links to its replay file, with the ``playbench replay`` command that plays
it. Results of different suites (another hash) are never put side by side. Where the
folders hold a person's result (agent ``human``, published from ``/bench/play/{suite}``)
and the random agent's, each agent's mean score per game is also given human-normalised:
the random agent's mean score is 0 and the human median score is 1.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.runner import charts
from playbench.runner.bench import BENCH, model_problems, read_bench
from playbench.runner.charts import Estimate
from playbench.runner.compare import Pair, all_pairs
from playbench.runner.replay import write_atomic
from playbench.runner.store import RunDir

#: the agents human-normalised figures are measured between
HUMAN = "human"
RANDOM = "random"
TEMPLATES = Path(str(resources.files("playbench") / "runner" / "templates"))
HTML = "index.html"
MARKDOWN = "report.md"


class ReportError(PlaybenchError):
    """Folders that cannot be reported together."""


@dataclass(slots=True)
class Entry:
    """One bench folder: its agent's label, ``bench.json`` and episodes per game."""

    label: str
    folder: Path
    bench: JSON
    records: dict[str, list[JSON]] = field(default_factory=dict)

    def scores(self, slug: str) -> dict[int, float]:
        return {record["seed"]: record["score"] for record in self.records[slug]}


def _label(bench: JSON) -> str:
    return bench["agent"] + (f" {bench['model']}" if bench.get("model") else "")


def load_entries(folders: list[Path]) -> list[Entry]:
    """The bench folders, each checked complete and of one suite; :class:`ReportError`
    when their suites differ."""
    entries = []
    for folder in folders:
        bench = read_bench(folder)
        invalid, _flagged = model_problems(bench)
        if invalid:
            raise ReportError(
                f"{folder} is no result of the model's, so it is not compared: {invalid[0]}"
            )
        entry = Entry(_label(bench), folder, bench)
        for slug, figures in bench["games"].items():
            rows = RunDir(folder / figures["folder"]).records()
            if len(rows) != figures["episodes"]:
                raise ReportError(
                    f"{folder / figures['folder']} holds {len(rows)} episodes, {BENCH} says "
                    f"{figures['episodes']}: run playbench bench into {folder} again"
                )
            entry.records[slug] = sorted(rows, key=lambda record: record["seed"])
        entries.append(entry)
    first = entries[0].bench["suite"]
    for entry in entries[1:]:
        suite = entry.bench["suite"]
        if suite["hash"] != first["hash"]:
            raise ReportError(
                f"{entry.folder} is suite {suite['name']} ({suite['hash'][:19]}), "
                f"{entries[0].folder} is suite {first['name']} ({first['hash'][:19]}): "
                "results of different suites are not compared"
            )
    labels = [entry.label for entry in entries]
    for entry in entries:
        if labels.count(entry.label) > 1:
            entry.label = f"{entry.label} ({entry.folder.name})"
    return entries


def human_normalised(entries: list[Entry]) -> list[JSON]:
    """Per agent, each game's mean score on the scale where the random agent's mean score
    is 0 and the human median score is 1 (None where the two are equal); nothing unless
    both a human and the random agent are in the report."""
    human = next((entry for entry in entries if entry.bench["agent"] == HUMAN), None)
    floor = next((entry for entry in entries if entry.bench["agent"] == RANDOM), None)
    if human is None or floor is None:
        return []
    rows = []
    for entry in entries:
        games: dict[str, float | None] = {}
        for slug, figures in entry.bench["games"].items():
            zero = floor.bench["games"][slug]["meanScore"]
            span = human.bench["games"][slug]["medianScore"] - zero
            games[slug] = None if span == 0 else round((figures["meanScore"] - zero) / span, 3)
        rows.append({"label": entry.label, "games": games})
    return rows


def pairs(entries: list[Entry]) -> list[Pair]:
    """Every two agents on every game and the headline, over the slots both played."""
    return all_pairs(
        [
            (entry.label, entry.bench, {slug: entry.scores(slug) for slug in entry.records})
            for entry in entries
        ]
    )


def cuts(suite: JSON, slug: str | None = None) -> str:
    """What cut the episodes of a game (or, without ``slug``, of every game), in words:
    "cut at 1,000 actions, 300 model calls, 400,000 tokens"."""
    games = suite["games"] if slug is None else {slug: suite["games"][slug]}
    parts = []
    for name, entry in games.items():
        limits = [f"{entry['maxSteps']:,} actions"]
        for key, word in (("maxTurns", "model calls"), ("maxTokens", "tokens")):
            if entry.get(key):
                limits.append(f"{entry[key]:,} {word}")
        text = "cut at " + ", ".join(limits)
        parts.append(text if slug is not None else f"{get_game(name).name} {text}")
    return "; ".join(parts)


def _scale(entries: list[Entry], slug: str) -> JSON | None:
    return entries[0].bench["games"][slug].get("scale")


def _estimate(label: str, mean: float, bounds: list[float]) -> Estimate:
    return Estimate(label, mean, bounds[0], bounds[1])


def report_charts(
    entries: list[Entry], found: list[Pair], keep: list[Any] | None = None
) -> dict[str, bytes]:
    suite = entries[0].bench["suite"]
    slugs = list(entries[0].bench["games"])
    names = [get_game(slug).name for slug in slugs]
    scaled = all(entry.bench["headline"].get("normalisedScore") is not None for entry in entries)
    every_cut = cuts(suite)
    pictures: dict[str, bytes] = {}
    if scaled:
        reference = _scale(entries, slugs[0])["referenceAgent"]
        ends = [(0.0, "random"), (1.0, f"{reference} (reference)")]
        pictures["headline.png"] = charts.intervals(
            "Headline: mean normalised score over the games, 95% interval",
            "normalised score (random agent 0, reference 1)",
            [
                _estimate(entry.label, h["normalisedScore"], h["normalisedCi95"])
                for entry in entries
                for h in [entry.bench["headline"]]
            ],
            limits=(0.0, 1.0),
            marks=ends,
            note=every_cut,
            keep=keep,
        )
        pictures["normalised.png"] = charts.grouped_bars(
            "Mean normalised score per game, 95% intervals",
            "normalised score",
            names,
            [entry.label for entry in entries],
            {
                entry.label: {
                    get_game(slug).name: _estimate(slug, g["normalisedScore"], g["normalisedCi95"])
                    for slug, g in entry.bench["games"].items()
                }
                for entry in entries
            },
            limits=(0.0, 1.0),
            marks=ends,
            note=every_cut,
            keep=keep,
        )
    else:
        pictures["headline.png"] = charts.intervals(
            "Headline: mean progress over the games, 95% interval",
            "mean progress (0 to 1)",
            [
                _estimate(entry.label, headline["meanProgress"], headline["ci95"])
                for entry in entries
                for headline in [entry.bench["headline"]]
            ],
            limits=(0.0, 1.0),
            note=every_cut,
            keep=keep,
        )
    pictures["progress.png"] = charts.grouped_bars(
        "Mean progress per game, 95% intervals",
        "mean progress (0 to 1)",
        names,
        [entry.label for entry in entries],
        {
            entry.label: {
                get_game(slug).name: _estimate(slug, g["meanProgress"], g["progressCi95"])
                for slug, g in entry.bench["games"].items()
            }
            for entry in entries
        },
        limits=(0.0, 1.0),
        note=every_cut,
        keep=keep,
    )
    for slug, name in zip(slugs, names, strict=True):
        scale = _scale(entries, slug)
        marks = []
        if scale is not None:
            marks = [
                (scale["random"], "random mean"),
                (scale["reference"], f"{scale['referenceAgent']} mean"),
            ]
        pictures[f"scores-{slug}.png"] = charts.distributions(
            f"{name}: score per episode",
            "score",
            [(entry.label, list(entry.scores(slug).values())) for entry in entries],
            marks=marks,
            note=cuts(suite, slug),
            keep=keep,
        )
        game_pairs = [pair for pair in found if pair.game == slug]
        if game_pairs:
            unit = game_pairs[0].unit
            pictures[f"paired-{slug}.png"] = charts.paired(
                f"{name}: {unit} difference per slot, mean and paired 95% interval",
                f"{unit} difference",
                [
                    (
                        f"{pair.first} − {pair.second}",
                        pair.differences,
                        _estimate("", pair.interval.mean, [pair.interval.low, pair.interval.high]),
                    )
                    for pair in game_pairs
                ],
                note=cuts(suite, slug),
                keep=keep,
            )
    models = [entry for entry in entries if "llm" in entry.bench["headline"]]
    if models:
        rows = []
        for key, name, axis in (
            ("tokensPerTurn", "tokens per turn", "tokens"),
            ("secondsPerCall", "seconds per call", "seconds"),
            ("queueSecondsPerCall", "queueing per call", "seconds"),
            ("fallbackShare", "fallback share", "share of turns"),
        ):
            cells = {
                entry.label: {
                    get_game(slug).name: g.get("llm", {}).get(key)
                    for slug, g in entry.bench["games"].items()
                }
                for entry in models
            }
            rows.append((name, axis, cells))
        pictures["llm.png"] = charts.panels(
            f"Language models ({every_cut})", rows, names, keep=keep
        )
    return pictures


def _episodes(entries: list[Entry], out: Path) -> list[JSON]:
    """Every episode with its replay: the path from the report, and the command."""
    rows = []
    for entry in entries:
        for slug, records in entry.records.items():
            folder = entry.folder / entry.bench["games"][slug]["folder"]
            for record in records:
                replay = folder / record["replay"]
                rows.append(
                    {
                        "agent": entry.label,
                        "game": get_game(slug).name,
                        "seed": record["seed"],
                        "score": record["score"],
                        "progress": record["progress"],
                        "outcome": record["outcome"],
                        "href": Path(os.path.relpath(replay.resolve(), out.resolve())).as_posix(),
                        "command": f"playbench replay {replay.as_posix()}",
                    }
                )
    return rows


#: characters a Markdown reader would take as markup, and what the report writes instead
MARKDOWN_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        **{char: f"\\{char}" for char in "\\`*_[]|#!"},
    }
)


def markdown_text(value: Any) -> Any:
    """A value as the Markdown report writes it: text with every character Markdown (or
    the HTML inside it) would read as markup escaped; anything else as it is."""
    return value.translate(MARKDOWN_ESCAPES) if isinstance(value, str) else value


def _environment(markdown: bool = False) -> Any:
    """The templates' environment: HTML templates (``*.html.j2``) escape every value,
    the Markdown one writes every value through :func:`markdown_text`."""
    try:
        import jinja2
    except ImportError:
        raise ReportError(
            "playbench report needs jinja2: pip install 'playbench[report]'"
        ) from None
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "html.j2"]),
        finalize=markdown_text if markdown else None,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["number"] = lambda value, digits=1: f"{value:,.{digits}f}"
    environment.filters["share"] = lambda value: "–" if value is None else f"{value:.0%}"
    environment.filters["played"] = played
    environment.filters["unbroken"] = unbroken
    return environment


def unbroken(text: Any) -> Any:
    """Text as HTML that a narrow screen wraps only between its words and after each "/"
    of a path, never inside a word (nor at its hyphens: "smollm2-135m-instruct")."""
    from markupsafe import Markup

    word = Markup('<span class="word">{}</span>')
    return Markup(" ").join(
        Markup("/<wbr>").join(word.format(piece) for piece in token.split("/"))
        for token in str(text).split()
    )


def played(llm: JSON | None) -> str:
    """Who a model's figure is: the share of turns the model played and its repaired and
    cut replies ("97% model, 4 repaired"); "–" for an agent that is no model."""
    if not llm:
        return "–"
    share = llm.get("modelTurnShare")
    text = "–" if share is None else f"{share:.0%} model"
    for key, word in (("repaired", "repaired"), ("cut", "cut")):
        if llm.get(key):
            text += f", {llm[key]} {word}"
    return text


def write_report(folders: list[Path], out: Path) -> list[Path]:
    """Write the report of ``folders`` into ``out``; the files written."""
    if not folders:
        raise ReportError("give at least one bench folder")
    entries = load_entries(folders)
    _environment()  # jinja2 is there before anything is drawn
    found = pairs(entries)
    pictures = report_charts(entries, found)
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    suite = entries[0].bench["suite"]
    context = {
        "suite": suite,
        "entries": entries,
        "games": [(slug, get_game(slug).name) for slug in entries[0].bench["games"]],
        "pairs": found,
        "scaled": all(
            entry.bench["headline"].get("normalisedScore") is not None for entry in entries
        ),
        "cuts": cuts(suite),
        "normalised": human_normalised(entries),
        "models": [entry for entry in entries if "llm" in entry.bench["headline"]],
        "pictures": list(pictures),
        "episodes": _episodes(entries, out),
    }
    written = []
    for name, data in pictures.items():
        write_atomic(out / name, data)
        written.append(out / name)
    embedded = {
        name: "data:image/png;base64," + base64.b64encode(data).decode()
        for name, data in pictures.items()
    }
    for name, template, sources in (
        (HTML, "report.html.j2", embedded),
        (MARKDOWN, "report.md.j2", {name: name for name in pictures}),
    ):
        environment = _environment(markdown=name == MARKDOWN)
        text = environment.get_template(template).render(context, source=sources)
        write_atomic(out / name, text.encode())
        written.append(out / name)
    return written
