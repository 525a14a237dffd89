"""The stateless API: list the games, start one, step a sealed state.

Each response is built as plain data and serialized once; the declared response models
document it (and the OpenAPI checks hold the routes to them).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.routing import APIRoute
from pydantic import ValidationError

from playbench.core.game import Game
from playbench.core.registry import all_games, get_game
from playbench.core.rng import MAX_SEED
from playbench.server.schemas import (
    ActionCreate,
    ActionPublic,
    ErrorPublic,
    GameList,
    InitCreate,
    InitPublic,
)
from playbench.server.services import Services, base_url, json_response, services_of

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorPublic} for code in (400, 404, 413, 422)
}
SERVICE = "playbench"
DESCRIPTION = "An arena of deterministic, seeded games for AI agents."
#: a game whose rules count refusals (Cogcrawl's retried reply) hands on a new state
REFUSAL_WITH_STATE = (
    "a refusal that carries a state (a game whose rules count refusals, such as "
    "Cogcrawl's retried reply) changed the game: carry that state forward"
)
HOW_TO_PLAY = (
    "GET initUrl (or POST it {seed, options}) for a sealed state, then POST "
    "{state, action} to actionUrl, carrying the returned state forward each call. "
    f"An illegal action answers ok:false with the reason and costs nothing; {REFUSAL_WITH_STATE}. "
    "For a stored game played by text commands use POST /games/{slug}/api/new."
)

router = APIRouter(prefix="/api/games", tags=["stateless"], responses=ERRORS)


@router.get("", response_model=GameList)
def list_games(request: Request) -> Response:
    root = base_url(request)
    games = [
        {
            **game.describe(),
            "initUrl": f"{root}/api/games/{game.slug}/init",
            "actionUrl": f"{root}/api/games/{game.slug}/action",
            "docsUrl": f"{root}/docs/api/{game.slug}",
        }
        for game in all_games()
    ]
    return json_response(
        {
            "service": SERVICE,
            "description": DESCRIPTION,
            "howToPlay": HOW_TO_PLAY,
            "docs": f"{root}/llms.txt",
            "count": len(games),
            "games": games,
        }
    )


def _start(services: Services, game: Game, seed: int | None, options: Any) -> Response:
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    state = game.new(seed, options or {})
    return json_response(
        {
            "seed": seed,
            "state": services.sealer.seal(game.slug, game.to_json(state)),
            "observation": game.observe(state),
            "legalActions": game.legal_actions(state),
            "spec": services.spec_json(game),
            "score": game.score(state),
            "gameOver": game.is_over(state),
        }
    )


@router.get("/{slug}/init", response_model=InitPublic)
def init_get(
    slug: str,
    request: Request,
    seed: Annotated[int | None, Query(ge=0, le=MAX_SEED, description="random if absent")] = None,
) -> Response:
    return _start(services_of(request), get_game(slug), seed, None)


@router.post("/{slug}/init", response_model=InitPublic)
def init_post(slug: str, request: Request, body: InitCreate | None = None) -> Response:
    body = body or InitCreate()
    return _start(services_of(request), get_game(slug), body.seed, body.options)


class JsonBodyRoute(APIRoute):
    """The hot route: its JSON body is parsed straight into ``ActionCreate``.

    It skips FastAPI's dependency solving (about a third of the time of a whole request);
    the OpenAPI description still comes from the endpoint's signature, and a body that
    does not validate raises the same :class:`RequestValidationError` (422, field named).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint

        async def handle(request: Request) -> Response:
            try:
                body = ActionCreate.model_validate_json(await request.body())
            except ValidationError as error:
                raise RequestValidationError(
                    [{**e, "loc": ("body", *e["loc"])} for e in error.errors()]
                ) from None
            return await endpoint(request.path_params["slug"], body, request)

        return handle


async def action(slug: str, body: ActionCreate, request: Request) -> Response:
    game = get_game(slug)
    sealer = services_of(request).sealer
    state = game.from_json(sealer.open(slug, body.state))
    outcome = game.step(state, body.action)
    after = outcome.state
    if outcome.ok:
        payload: dict[str, Any] = {"ok": True}
    else:
        payload = {"ok": False, "reason": outcome.reason}
    if outcome.ok or after is not state:
        payload["state"] = sealer.seal(slug, game.to_json(after))
        payload["observation"] = game.observe(after)
        payload["score"] = game.score(after)
        payload["gameOver"] = game.is_over(after)
        payload["reward"] = outcome.reward
        payload["events"] = list(outcome.events)
    payload["legalActions"] = game.legal_actions(after)
    return json_response(payload)


router.add_api_route(
    "/{slug}/action",
    action,
    methods=["POST"],
    response_model=ActionPublic,
    route_class_override=JsonBodyRoute,
)
