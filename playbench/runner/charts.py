"""The report's pictures, drawn with matplotlib (``pip install 'playbench[report]'``).

Each chart is a PNG of a fixed size (:data:`SIZE` inches at :data:`DPI`, so
:data:`PIXELS`), drawn off screen on the Agg canvas (no pyplot, so any thread may draw
one); :func:`draw` returns its bytes (and keeps the figure in ``keep``, a list, when given
one: how the tests read a chart's axes).

No chart can mislead by its frame: a value axis always shows ``limits`` (0 and the scale's
end, or 0 and the largest value) so a small gap is drawn small, ``marks`` draw reference
lines with their names (the random agent at 0, the reference at 1), fewer than
:data:`BOX_MIN` values are drawn as points with no box, and a ``note`` under the title
says what cut the episodes (steps, model calls, tokens).
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playbench.core.errors import PlaybenchError

SIZE = (8.0, 4.5)
DPI = 100
PIXELS = (int(SIZE[0] * DPI), int(SIZE[1] * DPI))
#: one colour per agent, in the order the report lists them (colour-blind safe)
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
#: the fewest values drawn as a box (fewer are points alone)
BOX_MIN = 10
#: a reference line: its value and its name
Mark = tuple[float, str]


class ChartError(PlaybenchError):
    """matplotlib is missing."""


def figure_class() -> Any:
    """matplotlib's ``Figure`` (drawn with the off-screen Agg canvas), or
    :class:`ChartError` saying how to install it. No pyplot: its global figures are not
    for threads, and the server draws reports on one of its own."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ChartError(
            "drawing a report needs matplotlib: pip install 'playbench[report]'"
        ) from None
    return Figure


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A labelled mean and its interval, as a chart draws it."""

    label: str
    mean: float
    low: float
    high: float


def draw(
    paint: Callable[[Any, Any], None], columns: int = 1, keep: list[Any] | None = None
) -> bytes:
    """A PNG of :data:`PIXELS` painted by ``paint(figure, axes)`` (a list of ``columns``
    axes side by side when there are more than one); the figure is appended to ``keep``."""
    figure = figure_class()(figsize=SIZE, dpi=DPI)
    if keep is not None:
        keep.append(figure)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    grid = figure.subplots(1, columns, squeeze=False)
    paint(figure, grid[0][0] if columns == 1 else list(grid[0]))
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _span(
    values: Sequence[float], limits: tuple[float, float] | None, marks: Sequence[Mark]
) -> tuple[float, float]:
    """An axis range holding ``values``, ``limits`` (0 when none are given) and the marks,
    with a margin of 5% each side."""
    ends = [*values, *(limits or (0.0, 0.0)), *(value for value, _ in marks)]
    low, high = min(ends), max(ends)
    margin = (high - low) * 0.05 or 1.0
    return low - margin, high + margin


def _marks(axes: Any, marks: Sequence[Mark], vertical: bool = True) -> None:
    for value, name in marks:
        if vertical:
            axes.axvline(value, color="#555", linewidth=1, linestyle="--")
            axes.annotate(
                name,
                (value, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(3, -12),
                textcoords="offset points",
                fontsize="small",
                color="#333",
            )
        else:
            axes.axhline(value, color="#555", linewidth=1, linestyle="--")
            axes.annotate(
                name,
                (0.0, value),
                xycoords=("axes fraction", "data"),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize="small",
                color="#333",
            )


#: the most characters of a line of a chart's note
NOTE_WIDTH = 96


def _title(axes: Any, title: str, note: str) -> None:
    text = f"{title}\n{textwrap.fill(note, NOTE_WIDTH)}" if note else title
    axes.set_title(text, fontsize="medium")


def intervals(
    title: str,
    axis: str,
    estimates: Sequence[Estimate],
    limits: tuple[float, float] | None = None,
    marks: Sequence[Mark] = (),
    note: str = "",
    keep: list[Any] | None = None,
) -> bytes:
    """Horizontal means with their 95% intervals, one row per estimate (top to bottom),
    on an axis that shows ``limits`` and the ``marks``."""

    def paint(_figure: Any, axes: Any) -> None:
        rows = list(range(len(estimates)))[::-1]
        for row, (index, estimate) in zip(rows, enumerate(estimates), strict=True):
            axes.errorbar(
                [estimate.mean],
                [row],
                xerr=[[estimate.mean - estimate.low], [estimate.high - estimate.mean]],
                fmt="o",
                color=colour(index),
                capsize=6,
                markersize=8,
            )
            axes.annotate(
                f"{estimate.mean:,.3g}",
                (estimate.mean, row),
                textcoords="offset points",
                xytext=(0, 9),
                ha="center",
            )
        axes.set_yticks(rows, [estimate.label for estimate in estimates])
        axes.set_ylim(-0.7, len(estimates) - 0.3)
        axes.set_xlim(
            *_span([e.low for e in estimates] + [e.high for e in estimates], limits, marks)
        )
        _marks(axes, marks)
        axes.set_xlabel(axis)
        _title(axes, title, note)
        axes.grid(axis="x", alpha=0.3)

    return draw(paint, keep=keep)


def grouped_bars(
    title: str,
    axis: str,
    groups: Sequence[str],
    agents: Sequence[str],
    cells: Any,
    limits: tuple[float, float] | None = None,
    marks: Sequence[Mark] = (),
    note: str = "",
    keep: list[Any] | None = None,
) -> bytes:
    """Bars per group and agent with 95% intervals: ``cells[agent][group]`` is an
    :class:`Estimate` or None (not played); the value axis shows ``limits`` and ``marks``."""

    def paint(_figure: Any, axes: Any) -> None:
        width = 0.8 / max(1, len(agents))
        ends: list[float] = []
        for index, agent in enumerate(agents):
            xs, means, lows, highs = [], [], [], []
            for position, group in enumerate(groups):
                estimate = cells[agent].get(group)
                if estimate is None:
                    continue
                xs.append(position - 0.4 + width * (index + 0.5))
                means.append(estimate.mean)
                lows.append(estimate.mean - estimate.low)
                highs.append(estimate.high - estimate.mean)
                ends += [estimate.low, estimate.high]
            axes.bar(
                xs, means, width, yerr=[lows, highs], capsize=4, color=colour(index), label=agent
            )
        axes.set_xticks(range(len(groups)), groups)
        axes.set_ylim(*_span(ends, limits, marks))
        _marks(axes, marks, vertical=False)
        axes.set_ylabel(axis)
        _title(axes, title, note)
        axes.grid(axis="y", alpha=0.3)
        axes.legend(loc="best", fontsize="small")

    return draw(paint, keep=keep)


#: where a row's box and its episodes' points sit, around the row's label
BOX_SHIFT = -0.17
POINTS_SHIFT = 0.2


def distributions(
    title: str,
    axis: str,
    values: Sequence[tuple[str, Sequence[float]]],
    limits: tuple[float, float] | None = None,
    marks: Sequence[Mark] = (),
    note: str = "",
    keep: list[Any] | None = None,
) -> bytes:
    """Every episode as a point, per agent, and a box of quartiles beside the points of an
    agent with at least :data:`BOX_MIN` episodes (three episodes read as three points, not
    a box drawn from three values); the axis shows ``limits`` and ``marks``."""

    def paint(_figure: Any, axes: Any) -> None:
        labels = [label for label, _ in values]
        rows = range(1, len(labels) + 1)
        boxed = [(row, list(points)) for row, (_, points) in zip(rows, values, strict=True)]
        boxed = [(row, points) for row, points in boxed if len(points) >= BOX_MIN]
        if boxed:
            axes.boxplot(
                [points for _, points in boxed],
                positions=[row + BOX_SHIFT for row, _ in boxed],
                orientation="horizontal",
                widths=0.32,
            )
        for index, (_label, points) in enumerate(values):
            # a fixed spread, so the same values give the same picture
            shift = POINTS_SHIFT if len(points) >= BOX_MIN else 0.0
            offsets = [((position % 5) - 2) * 0.035 for position in range(len(points))]
            axes.scatter(
                list(points),
                [index + 1 + shift + offset for offset in offsets],
                color=colour(index),
                edgecolors="black",
                linewidths=0.4,
                alpha=0.85,
                s=30,
                zorder=3,
            )
        axes.set_yticks(list(rows), labels)
        axes.set_ylim(0.4, len(labels) + 0.6)
        axes.invert_yaxis()
        axes.set_xlim(*_span([value for _, points in values for value in points], limits, marks))
        _marks(axes, marks)
        axes.set_xlabel(axis)
        shown = "dots: every episode" + (
            f"; box: quartiles from {BOX_MIN} episodes" if boxed else ""
        )
        _title(axes, f"{title} ({shown})", note)
        axes.grid(axis="x", alpha=0.3)

    return draw(paint, keep=keep)


def paired(
    title: str,
    axis: str,
    pairs: Sequence[tuple[str, Sequence[float], Estimate]],
    note: str = "",
    keep: list[Any] | None = None,
) -> bytes:
    """Per pair of agents, the per-seed differences as points and their mean with its
    paired 95% interval, on an axis that holds 0 (no difference, marked)."""

    def paint(_figure: Any, axes: Any) -> None:
        rows = list(range(len(pairs)))[::-1]
        for row, (_label, differences, estimate) in zip(rows, pairs, strict=True):
            offsets = [((position % 7) - 3) * 0.04 for position in range(len(differences))]
            axes.scatter(
                list(differences),
                [row + 0.15 + offset for offset in offsets],
                color="#888",
                s=14,
                alpha=0.7,
            )
            axes.errorbar(
                [estimate.mean],
                [row - 0.15],
                xerr=[[estimate.mean - estimate.low], [estimate.high - estimate.mean]],
                fmt="D",
                color=colour(0),
                capsize=6,
            )
        axes.set_yticks(rows, [label for label, _, _ in pairs])
        axes.set_ylim(-0.7, len(pairs) - 0.3)
        ends = [v for _, differences, e in pairs for v in (*differences, e.low, e.high)]
        axes.set_xlim(*_span(ends, None, ()))
        axes.axvline(0, color="#c00", linewidth=0.8)
        axes.set_xlabel(axis)
        _title(axes, title, note)
        axes.grid(axis="x", alpha=0.3)

    return draw(paint, keep=keep)


def panels(
    title: str,
    rows: Sequence[tuple[str, str, Any]],
    groups: Sequence[str],
    keep: list[Any] | None = None,
) -> bytes:
    """Side by side panels of bars, one per ``(name, axis, cells)`` where
    ``cells[agent][group]`` is a number or None: a language model's figures."""

    def paint(figure: Any, grid: Any) -> None:
        grid = grid if len(rows) > 1 else [grid]
        for axes, (name, axis, cells) in zip(grid, rows, strict=True):
            agents = list(cells)
            width = 0.8 / max(1, len(agents))
            for index, agent in enumerate(agents):
                played = [
                    (position, cells[agent][group])
                    for position, group in enumerate(groups)
                    if cells[agent].get(group) is not None
                ]
                axes.bar(
                    [position - 0.4 + width * (index + 0.5) for position, _ in played],
                    [height for _, height in played],
                    width,
                    color=colour(index),
                    label=agent,
                )
            heights = [value for row in cells.values() for value in row.values() if value]
            # every figure here is 0 or more; a panel of zeros (no fallback) reads 0 to 1
            axes.set_ylim(0, None if heights else 1)
            axes.set_xticks(range(len(groups)), groups, rotation=30, fontsize="small")
            axes.set_title(name, fontsize="medium")
            axes.set_ylabel(axis, fontsize="small")
            axes.grid(axis="y", alpha=0.3)
        grid[0].legend(fontsize="x-small")
        figure.suptitle(title)

    return draw(paint, columns=len(rows), keep=keep)
