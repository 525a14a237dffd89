"""The Rich table of a bench's figures, as ``playbench bench`` and ``playbench import``
print it: a row per game, then the headline; the normalised score leads where the suite
has a scale, raw score and progress beside it, and a model's turns, tokens and fallbacks."""

from __future__ import annotations

from rich.table import Table

from playbench.core.game import JSON
from playbench.core.registry import get_game


def _interval(values: list[float], digits: int) -> str:
    return f"{values[0]:,.{digits}f} – {values[1]:,.{digits}f}"


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{share:.0%}"


def _scaled_cells(value: float | None, bounds: list[float] | None) -> list[str]:
    if value is None or bounds is None:
        return ["–", "–"]
    return [f"{value:.3f}", _interval(bounds, 3)]


def bench_table(bench: JSON) -> Table:
    """The Rich table of a bench: a row per game, then the headline. The normalised score
    leads where the suite has a scale; raw score and progress stay beside it."""
    suite = bench["suite"]
    who = bench["agent"] + (f" {bench['model']}" if bench.get("model") else "")
    headline = bench["headline"]
    scaled = headline.get("normalisedScore") is not None
    caption = f"suite {suite['hash'][:19]}"
    if scaled:
        caption += " · normalised: the random agent's mean is 0, the reference's 1"
    table = Table(title=f"{suite['name']} · {who}", caption=caption)
    has_llm = "llm" in headline
    columns = ["game", "episodes"]
    if scaled:
        columns += ["normalised", "95% CI"]
    columns += ["mean score", "95% CI", "progress", "95% CI"]
    if has_llm:
        columns += ["model turns", "tokens/turn", "fallbacks", "errors"]
    for name in columns:
        table.add_column(name, justify="left" if name == "game" else "right")
    for slug, figures in bench["games"].items():
        row = [get_game(slug).name, str(figures["episodes"])]
        if scaled:
            row += _scaled_cells(figures.get("normalisedScore"), figures.get("normalisedCi95"))
        row += [
            f"{figures['meanScore']:,.1f}",
            _interval(figures["scoreCi95"], 1),
            f"{figures['meanProgress']:.3f}",
            _interval(figures["progressCi95"], 3),
        ]
        if has_llm:
            row += _llm_cells(figures.get("llm"))
        table.add_row(*row)
    row = ["[bold]headline", str(sum(figures["episodes"] for figures in bench["games"].values()))]
    if scaled:
        row += [
            f"[bold]{headline['normalisedScore']:.3f}",
            _interval(headline["normalisedCi95"], 3),
        ]
    row += ["", "", f"{headline['meanProgress']:.3f}", _interval(headline["ci95"], 3)]
    if has_llm:
        row += _llm_cells(headline["llm"])
    table.add_row(*row, end_section=True)
    return table


def _llm_cells(llm: JSON | None) -> list[str]:
    if llm is None:
        return ["–", "–", "–", "–"]
    per_turn = llm["tokensPerTurn"]
    return [
        _percent(llm["modelTurnShare"]),
        "–" if per_turn is None else f"{per_turn:,.0f}",
        _percent(llm["fallbackShare"]),
        str(llm.get("errors", 0)),
    ]
