"""Bench results on the arena: ``GET /bench`` (the page), ``GET /api/bench`` (the same as
JSON), ``POST /api/bench?player=NAME`` (a registered player publishes a bench folder as a
gzipped tar, with its key in ``X-Player-Key``; its own body limit,
``Settings.max_bench_bytes``), each verified result's report under ``/bench/{id}/report/``
(drawn by the server once the result verifies; the page says "report being drawn" until
then, and reloads itself) and its replay files under ``/bench/{id}/files/`` (which
``/replay?src=`` opens).

Results are folders put in the data folder's ``bench/`` (:mod:`playbench.server.bench`);
only those whose replays this server re-simulated are listed or served.
"""

from __future__ import annotations

import math
import re
from html import escape
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from playbench.core.errors import UnknownGameError
from playbench.core.game import JSON
from playbench.core.registry import get_game
from playbench.server import players
from playbench.server.bench import (
    REPORT,
    BenchShelf,
    PublishRefused,
    ReportStatus,
    ShelfLimits,
    Shelved,
    shelf_for,
)
from playbench.server.deps import PlayerKeyDep, ServicesDep
from playbench.server.errors import ApiError
from playbench.server.routes.pages import TITLE, _file, _not_found, _page
from playbench.server.schemas import ErrorPublic
from playbench.server.services import Services, json_response
from playbench.server.settings import Settings

router = APIRouter(tags=["bench"])
#: the report's replay links (``playbench report`` writes them so)
REPLAY_LINK = re.compile(r'<a class="replay" data-replay="([^"]+)" href="[^"]+">')
PUBLISH_PATH = "/api/bench"
#: seconds between reloads of the page while a report is being drawn
RELOAD_SECONDS = 3


def shelf_of(settings: Settings) -> BenchShelf:
    """The shelf of the server's data folder, under its configured CPU budget."""
    return shelf_for(settings.data_dir, ShelfLimits(cpu_seconds=settings.bench_cpu_seconds))


def _shelf(request: Request) -> BenchShelf:
    return shelf_of(request.app.state.services.settings)


def too_often(services: Services, address: str, player: str) -> Response | None:
    """429 when the address or the player has published too often lately, else None."""
    for buckets, key, who in (
        (services.publishes_per_address, address, "this address"),
        (services.publishes_per_player, player.casefold(), "this player"),
    ):
        wait = buckets.take(key) if buckets is not None else 0.0
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            answer = {"error": f"too many bench results published by {who}: retry in {seconds} s"}
            response = json_response(answer, status_code=429)
            response.headers["Retry-After"] = str(seconds)
            return response
    return None


def _name(slug: str) -> str:
    try:
        return get_game(slug).name
    except UnknownGameError:
        return slug


def _public(shelved: Shelved) -> JSON:
    bench = shelved.bench or {}
    suite = bench["suite"]
    status = shelved.report_status
    return {
        "id": shelved.id,
        "suite": {"name": suite["name"], "hash": suite["hash"]},
        "official": shelved.official,
        "agent": bench["agent"],
        "model": bench.get("model"),
        "headline": bench["headline"],
        "games": {
            slug: {
                key: figures.get(key)
                for key in (
                    "episodes",
                    "normalisedScore",
                    "normalisedCi95",
                    "meanScore",
                    "scoreCi95",
                    "meanProgress",
                    "progressCi95",
                )
            }
            for slug, figures in bench["games"].items()
        },
        "report": f"/bench/{shelved.id}/report/" if status is ReportStatus.DRAWN else None,
        "reportStatus": status.value,
        "reportProblem": shelved.report_failure if status is ReportStatus.FAILED else None,
        "player": shelved.player,
    }


@router.get("/api/bench")
def bench_results(request: Request) -> Response:
    """Every verified bench result, and the ids of those refused with the first problem."""
    results = _shelf(request).results()
    return json_response(
        {
            "results": [_public(item) for item in results if item.verified],
            "refused": [
                {"id": item.id, "problem": item.problems[0]}
                for item in results
                if not item.verified
            ],
        }
    )


@router.post(
    PUBLISH_PATH,
    status_code=201,
    responses={code: {"model": ErrorPublic} for code in (401, 403, 404, 413, 422, 429, 503)},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
async def publish_bench(
    request: Request,
    services: ServicesDep,
    key: PlayerKeyDep,
    player: Annotated[str, Query(min_length=1, max_length=40, description="a registered name")],
) -> Response:
    """Publish a bench folder (a gzipped tar of ``bench.json`` and its run
    folders): kept and listed once every replay re-simulates and every figure is
    recomputed; 422 with the first problem otherwise, and nothing is kept. An archive
    past a limit of the shelf (files, their sizes, names, the actions of its replays,
    the CPU of its re-simulation) is 413; the same bytes again get their first answer;
    429 past the publishing rate of the address or the player."""
    try:
        named = players.authenticate(services.storage, player, key)
    except players.KeyRefused as refused:
        raise ApiError(refused.status, str(refused)) from None
    address = request.client.host if request.client is not None else ""
    refused_now = too_often(services, address, named.name)
    if refused_now is not None:
        return refused_now
    archive = await request.body()
    try:
        shelved = await run_in_threadpool(_shelf(request).publish, archive, named.name)
    except PublishRefused as refused:
        raise ApiError(refused.status, str(refused)) from None
    return json_response(_public(shelved), status_code=201)


def _lead(figures: JSON, interval: str) -> tuple[float, list[float]]:
    """The figure a row leads with: the normalised score where the suite has a scale, else
    the mean progress; with its interval (``interval`` names the progress's)."""
    if figures.get("normalisedScore") is not None:
        return figures["normalisedScore"], figures["normalisedCi95"]
    return figures["meanProgress"], figures[interval]


def _row(result: JSON) -> str:
    headline = result["headline"]
    lead, (low, high) = _lead(headline, "ci95")
    who = result["agent"] + (f" {result['model']}" if result["model"] else "")
    if result["player"]:
        who += f" · {result['player']}"
    cells = "".join(
        f'<td data-game="{escape(slug)}" data-label="{escape(_name(slug))}">'
        f'{_lead(figures, "progressCi95")[0]:.3f}<span class="muted"> '
        + (
            f"normalised · progress {figures['meanProgress']:.3f} · "
            if figures.get("normalisedScore") is not None
            else "progress · "
        )
        + f"mean score {figures['meanScore']:,.0f}</span></td>"
        for slug, figures in result["games"].items()
    )
    if result["report"]:
        report = f'<a href="{escape(result["report"])}">report</a>'
    elif result["reportStatus"] == ReportStatus.FAILED:
        report = (
            '<span class="error" data-testid="report-failed">not drawn: '
            f"{escape(result['reportProblem'] or '')}</span>"
        )
    else:
        report = '<span class="muted" data-testid="report-drawing">report being drawn</span>'
    return (
        f'<tr data-testid="bench-row" data-id="{escape(result["id"])}">'
        f'<td data-label="agent">{escape(who)}</td>'
        f'<td data-testid="headline" data-label="headline">'
        f"<strong>{lead:.3f}</strong></td>"
        f'<td data-label="95% interval of the headline">{low:.3f} – {high:.3f}</td>'
        f'<td data-testid="progress" data-label="progress">{headline["meanProgress"]:.3f}</td>'
        f'{cells}<td data-label="report">{report}</td></tr>'
    )


def _suite_table(rows: list[JSON]) -> str:
    suite = rows[0]["suite"]
    games = "".join(f"<th>{escape(_name(slug))}</th>" for slug in rows[0]["games"])
    ordered = sorted(rows, key=lambda row: -_lead(row["headline"], "ci95")[0])
    scaled = rows[0]["headline"].get("normalisedScore") is not None
    lead = (
        "Headline: the mean over the games of each game's mean normalised score (the random "
        "agent's mean score 0, the reference's 1, on these same episodes)"
        if scaled
        else "Headline: the mean progress over the games"
    )
    per_game = "normalised score · " if scaled else ""
    if rows[0]["official"]:
        section = f'data-testid="bench-suite" data-suite="{escape(suite["name"])}"'
        title = f'{escape(suite["name"])} <code class="muted">{escape(suite["hash"][:19])}</code>'
    else:
        section = f'data-testid="bench-unofficial" data-hash="{escape(suite["hash"])}"'
        title = (
            f'Suite <code>{escape(suite["hash"][:19])}</code> <span class="muted">unofficial: '
            f"not a suite this server ships, named {escape(repr(suite['name']))} by its "
            "publisher</span>"
        )
    return (
        f"<section {section}><h2>{title}</h2>"
        '<table class="bench-table"><thead><tr><th>Agent</th>'
        f"<th>Headline</th><th>95% interval</th><th>Progress</th>{games}<th>Report</th>"
        "</tr></thead><tbody>"
        + "".join(_row(row) for row in ordered)
        + f'</tbody></table><p class="muted">{lead}. Per game: {per_game}mean progress · '
        "mean score.</p></section>"
    )


@router.get("/bench", response_class=HTMLResponse, include_in_schema=False)
def bench_page(request: Request) -> HTMLResponse:
    results = _shelf(request).results()
    suites: dict[str, list[JSON]] = {}
    for item in results:
        if item.verified:
            public = _public(item)
            suites.setdefault(public["suite"]["hash"], []).append(public)
    drawing = any(
        row["reportStatus"] == ReportStatus.DRAWING for rows in suites.values() for row in rows
    )
    ordered = sorted(suites.values(), key=lambda rows: not rows[0]["official"])
    tables = "".join(_suite_table(rows) for rows in ordered)
    if not tables:
        tables = '<p class="muted" data-testid="bench-empty">No verified bench result yet.</p>'
    refused = [item for item in results if not item.verified]
    notice = ""
    if refused:
        items = "".join(
            f"<li><code>{escape(item.id)}</code>: {escape(item.problems[0])}</li>"
            for item in refused
        )
        notice = (
            f'<div class="banner error" data-testid="bench-refused">{len(refused)} result(s) '
            f"not shown: their replays do not verify.<ul>{items}</ul></div>"
        )
    head = f'<meta http-equiv="refresh" content="{RELOAD_SECONDS}">' if drawing else ""
    return _page(
        "bench.html",
        title=escape(f"Bench · {TITLE}"),
        head=head,
        suites=tables,
        refused=notice,
    )


def _served_report(shelved: Shelved, page: str) -> str:
    """The report with each replay link opening the ``/replay`` page on the served file."""
    report = shelved.folder / REPORT
    root = shelved.folder.resolve()

    def link(found: re.Match[str]) -> str:
        target = (report / found.group(1)).resolve()
        if not target.is_relative_to(root):
            return found.group(0)
        source = quote(f"/bench/{shelved.id}/files/{target.relative_to(root).as_posix()}")
        return f'<a class="replay" data-replay="{found.group(1)}" href="/replay?src={source}">'

    return REPLAY_LINK.sub(link, page)


@router.get("/bench/{result_id}/report/{name:path}", include_in_schema=False)
def bench_report(request: Request, result_id: str, name: str) -> Response:
    shelved = _shelf(request).verified(result_id)
    if shelved is None or not shelved.has_report:
        return _not_found(f"No verified bench result {result_id!r} with a report.")
    if name in ("", "index.html"):
        page = (shelved.folder / REPORT / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(_served_report(shelved, page))
    return _file(shelved.folder / REPORT, name)


@router.get("/bench/{result_id}/files/{name:path}", include_in_schema=False)
def bench_file(request: Request, result_id: str, name: str) -> Response:
    """A replay file of a verified result."""
    shelved = _shelf(request).verified(result_id)
    if shelved is None or Path(name).suffix != ".jsonl":
        return _not_found(f"No replay {name!r} of a verified bench result {result_id!r}.")
    return _file(shelved.folder, name)
