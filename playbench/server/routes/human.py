"""A published suite played by people: ``/bench/play/{suite}`` (the page: each episode's
game, seed and options in order, with a progress strip) and ``POST /api/bench/human``
(the finished set published as a bench result, like an agent's)."""

from __future__ import annotations

import json
from html import escape

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from playbench.core.registry import get_game
from playbench.runner.suite import Suite, load_suite, shipped_suites
from playbench.server import players
from playbench.server.bench import PublishRefused
from playbench.server.deps import PlayerKeyDep, ServicesDep
from playbench.server.errors import ApiError
from playbench.server.human_bench import (
    HumanBenchRefused,
    build,
    episodes,
    published_before,
    remember,
)
from playbench.server.routes.bench import shelf_of, too_often
from playbench.server.routes.pages import TITLE, _not_found, _page
from playbench.server.schemas import ErrorPublic, Player, Strict
from playbench.server.services import json_response

router = APIRouter(tags=["bench"])
#: the most sessions one suite may name (suite-v2 has 38)
MAX_EPISODES = 400


class HumanBenchCreate(Strict):
    suite: str = Field(max_length=64, description="a shipped suite's name (quick, suite-v2)")
    player: Player = Field(description="the registered name the sessions were played under")
    sessions: list[str] = Field(
        max_length=MAX_EPISODES,
        description="one finished practice session per episode of the suite, in its order",
    )


def _suite(name: str) -> Suite | None:
    return load_suite(name) if name in shipped_suites() else None


@router.post(
    "/api/bench/human",
    status_code=201,
    responses={code: {"model": ErrorPublic} for code in (401, 403, 404, 413, 422, 429)},
)
async def publish_human(
    request: Request, body: HumanBenchCreate, services: ServicesDep, key: PlayerKeyDep
) -> Response:
    """Publish a person's run of a suite: their finished practice sessions, one per episode
    in the suite's order, become a bench result of agent ``human``, kept and listed on
    ``/bench`` under their name once the server has re-simulated every replay (within the
    shelf's CPU budget). The same sessions again are answered with their result, nothing
    built or simulated again; 429 past the publishing rate of the address or the player."""
    suite = _suite(body.suite)
    if suite is None:
        raise ApiError(404, f"no suite {body.suite!r}: one of {', '.join(shipped_suites())}")
    try:
        named = players.authenticate(services.storage, body.player, key)
    except players.KeyRefused as refused:
        raise ApiError(refused.status, str(refused)) from None
    address = request.client.host if request.client is not None else ""
    refused_now = too_often(services, address, named.name)
    if refused_now is not None:
        return refused_now
    shelf = shelf_of(services.settings)
    try:
        shelved = await run_in_threadpool(published_before, shelf, suite, body.sessions, named)
        if shelved is None:
            archive = await run_in_threadpool(build, services.storage, suite, body.sessions, named)
            shelved = await run_in_threadpool(shelf.publish, archive, named.name)
            await run_in_threadpool(remember, shelf, suite, body.sessions, named, shelved)
    except HumanBenchRefused as refused:
        raise ApiError(422, f"{refused} (nothing was published)") from None
    except PublishRefused as refused:
        raise ApiError(refused.status, str(refused)) from None
    return json_response(
        {"id": shelved.id, "suite": suite.name, "agent": "human", "player": named.name},
        status_code=201,
    )


@router.get("/bench/play/{suite}", response_class=HTMLResponse, include_in_schema=False)
def play_suite(suite: str) -> HTMLResponse:
    found = _suite(suite)
    if found is None:
        return _not_found(f"There is no shipped suite called {suite!r}.")
    rows = "".join(
        f'<li class="episode" data-testid="episode" data-index="{index}" '
        f'data-slug="{escape(slug)}" data-seed="{seed}" '
        f'data-options="{escape(json.dumps(options))}"><span class="cell"></span>'
        f"<span>{index + 1}. {escape(get_game(slug).name)}"
        f"{f', seed {seed}' if get_game(slug).seeded else ''}"
        f"{escape(' options ' + json.dumps(options)) if options else ''}"
        f' (cut at {limit} actions)</span> <a class="button" data-play>play</a></li>'
        for index, (slug, seed, options, limit) in enumerate(episodes(found))
    )
    return _page(
        "bench-play.html",
        title=escape(f"Play {found.name} · {TITLE}"),
        suite=escape(found.name),
        hash=escape(found.hash),
        description=escape(found.data.get("description", "")),
        episodes=rows,
    )
