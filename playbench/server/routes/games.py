"""The stateless API: list the games, start one, step a sealed state.

Each response is built as plain data and serialized once; the declared response models
document it (and the OpenAPI checks hold the routes to them).

The action route is the hot one (an agent calls it once per move), so a well-formed
request to it is answered by :class:`ActionFastPath` in front of the framework: the body
parsed by orjson, the step on the match kernel, the answer written by orjson. Anything
else (a body that is not ``{"state": <text>, "action": ...}``, a state that does not
open, a chunked or oversized body) goes on to the FastAPI route, which answers exactly
as it always has; both paths step through :func:`step_sealed`.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.routing import APIRoute
from pydantic import ValidationError

from playbench.core.errors import CommandError, PlaybenchError, UnknownGameError
from playbench.core.game import JSON, Game
from playbench.core.match import Match
from playbench.core.registry import all_games, get_game
from playbench.core.rng import draw_seed
from playbench.server.errors import ApiError
from playbench.server.middleware import ASGIApp, Receive, Scope, read_body, replaying, send_json
from playbench.server.schemas import (
    SEED_BOUND,
    ActionCreate,
    ActionPublic,
    ErrorPublic,
    FramesCreate,
    FramesPublic,
    GameList,
    InitCreate,
    InitPublic,
)
from playbench.server.sealing import Sealer
from playbench.server.services import Services, base_url, json_bytes, json_response, services_of

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


#: the parts of :meth:`Match.view` each stateless answer carries
START_FIELDS = ("observation", "legalActions", "score", "gameOver")
STEP_FIELDS = ("observation", "score", "gameOver", "legalActions")
REFUSED_FIELDS = ("legalActions",)
FRAME_FIELDS = ("observation", "score", "gameOver")
#: an action named in an error, cut to this many characters
ACTION_TEXT_CHARS = 120


def json_text(value: Any) -> str:
    """A client's value as compact JSON, cut to :data:`ACTION_TEXT_CHARS` (the standard
    library's writer where orjson's refuses: a whole number past 64 bits)."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= ACTION_TEXT_CHARS else text[: ACTION_TEXT_CHARS - 1] + "…"


def _start(services: Services, game: Game, seed: int | None, options: Any) -> Response:
    if seed is None:
        seed = draw_seed()
    match = Match.start(game, seed, options or {})
    return json_response(
        {
            "seed": seed,
            "state": services.sealer.seal(game.slug, match.to_json()),
            "fingerprint": match.fingerprint(),
            "spec": services.spec_text(game),
            **match.view(START_FIELDS),
        }
    )


@router.get("/{slug}/init", response_model=InitPublic)
def init_get(
    slug: str,
    request: Request,
    seed: Annotated[int | None, Query(ge=0, lt=SEED_BOUND, description="random if absent")] = None,
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


def step_sealed(sealer: Sealer, game: Game, sealed: object, action: Any) -> JSON:
    """Open the sealed state, play ``action`` on it, and answer with the state sealed
    anew when the match moved on or the action was accepted (raises :class:`SealError`
    or :class:`StateError` when the state does not open)."""
    match = Match(game, game.from_trusted_json(sealer.open(game.slug, sealed)))
    result = match.play(action)
    payload: JSON = {"ok": True} if result.ok else {"ok": False, "reason": result.reason}
    if result.ok or result.advanced:
        payload["state"] = sealer.seal(game.slug, match.to_json())
        if match.over:
            # the end of a game, where a replay is compared (kept off every other step:
            # the hash costs a fifth to two fifths of a step, benchmarks/RESULTS.md)
            payload["fingerprint"] = match.fingerprint()
        payload["reward"] = result.reward
        payload["events"] = result.events
        if result.notice:
            payload["notice"] = result.notice
        payload.update(match.view(STEP_FIELDS))
    else:
        payload.update(match.view(REFUSED_FIELDS))
    return payload


#: actions a replay plays between two turns of the event loop: a long replay (13,085
#: actions) is played in slices, so other clients are answered in between; and replays
#: played at once by one worker (more wait their turn, so a turn of the loop holds at
#: most this many slices)
FRAMES_SLICE = 128
FRAMES_AT_ONCE = 2
_FRAMES_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _frames_gate() -> asyncio.Semaphore:
    """This event loop's bound on the replays played at once."""
    loop = asyncio.get_running_loop()
    gate = _FRAMES_GATES.get(loop)
    if gate is None:
        gate = _FRAMES_GATES[loop] = asyncio.Semaphore(FRAMES_AT_ONCE)
    return gate


@router.post("/{slug}/frames", response_model=FramesPublic)
async def frames(slug: str, body: FramesCreate) -> Response:
    """The boards of a replay, ``count`` of them from frame ``start`` (frame k is the game
    after k actions), in one answer: the replay viewer jumps to any step at once."""
    async with _frames_gate():
        return await _frames(slug, body)


async def _frames(slug: str, body: FramesCreate) -> Response:
    game = get_game(slug)
    match = Match.start(game, body.seed, body.options or {})
    end = min(body.start + body.count, len(body.actions) + 1)
    found: list[JSON] = []

    def keep(step: int, ok: bool, reason: str, events: list[JSON], command: str = "") -> None:
        if body.start <= step < end:
            found.append(
                {
                    "step": step,
                    **match.view(FRAME_FIELDS),
                    "ok": ok,
                    "reason": reason,
                    "events": events,
                    "command": command,
                }
            )

    keep(0, True, "", [])
    for step, sent in enumerate(body.actions[: end - 1], start=1):
        if step % FRAMES_SLICE == 0:
            await asyncio.sleep(0)
        result = match.play(sent)
        if not result.advanced:
            raise ApiError(
                422,
                f"action {step} ({json_text(sent)}) was refused and changed nothing: "
                f"{result.reason}",
            )
        keep(step, result.ok, "" if result.ok else result.reason, result.events, _said(game, sent))
    return json_response({"total": len(body.actions), "frames": found})


def _said(game: Game, action: Any) -> str:
    """An action as the game's text command (its JSON where the grammar has no words)."""
    try:
        return game.command_text(action)
    except CommandError:
        return json_text(action)


async def action(slug: str, body: ActionCreate, request: Request) -> Response:
    sealer = services_of(request).sealer
    return json_response(step_sealed(sealer, get_game(slug), body.state, body.action))


ACTION_PREFIX = "/api/games/"
ACTION_SUFFIX = "/action"
OK = 200


class ActionFastPath:
    """``POST /api/games/{slug}/action`` for a well-formed request, before the framework.

    It answers only a body it reads whole (declared by Content-Length, within the body
    limit) that orjson parses to exactly ``{"state": <text>, "action": ...}``, whose
    state opens; everything else is handed, body and all, to the app behind it.
    """

    def __init__(self, app: ASGIApp, sealer: Sealer, limit: int) -> None:
        self.app = app
        self.sealer = sealer
        self.limit = limit
        self.games: dict[str, Game] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Any) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not path.startswith(ACTION_PREFIX)
            or not path.endswith(ACTION_SUFFIX)
        ):
            await self.app(scope, receive, send)
            return
        game = self._game(path[len(ACTION_PREFIX) : -len(ACTION_SUFFIX)])
        size = _declared_size(scope)
        if game is None or size is None or size > self.limit:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive)
        answer = self._answer(game, body)
        if answer is None:
            await self.app(scope, replaying(body, receive), send)
            return
        await send_json(send, OK, answer)

    def _game(self, slug: str) -> Game | None:
        game = self.games.get(slug)
        if game is None:
            try:
                game = self.games[slug] = get_game(slug)
            except UnknownGameError:
                return None
        return game

    def _answer(self, game: Game, body: bytes) -> bytes | None:
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
        if type(request) is not dict or len(request) != 2 or "action" not in request:
            return None
        sealed = request.get("state")
        if type(sealed) is not str:
            return None
        try:
            return json_bytes(step_sealed(self.sealer, game, sealed, request["action"]))
        except PlaybenchError:
            return None


def _declared_size(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


router.add_api_route(
    "/{slug}/action",
    action,
    methods=["POST"],
    response_model=ActionPublic,
    route_class_override=JsonBodyRoute,
)
