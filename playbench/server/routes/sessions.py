"""The session API: a stored game per token, played by text commands. The routes only
orchestrate: the rules are in :mod:`playbench.server.sessions`, their errors answered by
the one error table (:mod:`playbench.server.errors`).

``new`` needs no agent check; ``act`` and ``finish`` need a puzzle answered (headers
``X-Agent-Check``/``X-Agent-Answer`` or body fields ``agent_check``/``agent_answer``).
Every answer, errors included, carries the next puzzle.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from playbench.core.errors import UnknownGameError
from playbench.core.game import JSON, Game
from playbench.core.registry import get_game
from playbench.server import agent_check, errors, metrics, players, sessions
from playbench.server.deps import (
    AgentHeadersDep,
    GameDep,
    PlayerKeyDep,
    ServicesDep,
    TokenDep,
    bearer,
    session_cookie,
)
from playbench.server.errors import ApiError
from playbench.server.middleware import ASGIApp, Receive, Scope, read_body, replaying, send_json
from playbench.server.schemas import (
    ActCreate,
    ActPublic,
    AgentAnswer,
    ErrorPublic,
    FinishCreate,
    FinishPublic,
    SessionCreate,
    SessionPublic,
    SessionView,
)
from playbench.server.services import Services, json_bytes, json_response
from playbench.server.store import SessionRow, SpentPuzzle

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorPublic} for code in (400, 401, 403, 404, 409, 413, 422)
}

router = APIRouter(prefix="/games/{slug}/api", tags=["sessions"], responses=ERRORS)


def _session(services: Services, game: Game, token: str | None) -> SessionRow:
    return _found(game, services.storage.session_by_token(game.slug, _token_hash(token)))


def _token_hash(token: str | None) -> str:
    if not token:
        raise ApiError(
            401, "no session token: send Authorization: Bearer <token> from new", puzzle=True
        )
    return sessions.token_hash(token)


def _found(game: Game, row: SessionRow | None) -> SessionRow:
    if row is None:
        raise ApiError(404, f"no {game.slug} session for this token", puzzle=True)
    return row


def _answer(
    headers: tuple[str | None, str | None], body: AgentAnswer
) -> tuple[str | None, str | None]:
    token = headers[0] if headers[0] is not None else body.agent_check
    answer = headers[1] if headers[1] is not None else body.agent_answer
    return token, answer


def _check(
    services: Services,
    row: SessionRow,
    headers: tuple[str | None, str | None],
    body: AgentAnswer,
) -> None:
    try:
        services.signer.verify(services.storage, row.id, *_answer(headers, body))
    except agent_check.AgentCheckFailed as error:
        raise ApiError(403, str(error), puzzle=True) from None


@router.post("/new", response_model=SessionPublic, responses={429: {"model": ErrorPublic}})
async def new(
    game: GameDep,
    services: ServicesDep,
    player_key: PlayerKeyDep,
    body: SessionCreate | None = None,
) -> Response:
    """Start a session. Ranked only when asked (``ranked`` true, or a body without
    ``ranked``, ``seed`` and ``options``): the server draws the seed and hides it until
    ``finish``. A seed or options field, even null or {}, makes practice. A ``player`` name
    needs its key (``X-Player-Key``); without a name the session is anonymous. (A request
    with a JSON body is answered by :class:`SessionFastPath` before it reaches here, by
    the same :func:`new_answer`.)"""
    answer, token = await new_answer(services, game, body or SessionCreate(), player_key)
    response = json_response(answer)
    response.raw_headers.append(cookie_header(game.slug, token))
    return response


async def new_answer(
    services: Services, game: Game, body: SessionCreate, player_key: str | None
) -> tuple[JSON, str]:
    """A new session's answer, and its token."""
    storage = services.storage
    owner = (
        await storage.read_async(players.authenticate, storage, body.player, player_key)
        if body.player is not None
        else None
    )
    row, token, closed = await sessions.new_session(
        services, game, body.seed, body.options, owner, ranked=body.asks_ranked()
    )
    view = sessions.view(services, game, row)
    return {**view, "token": token, "closedAsAbandoned": closed}, token


def cookie_header(slug: str, token: str) -> tuple[bytes, bytes]:
    """The ``Set-Cookie`` header that keeps a browser's session token, as Starlette
    writes it."""
    response = Response()
    response.set_cookie(
        session_cookie(slug), token, httponly=True, samesite="lax", path=f"/games/{slug}"
    )
    return next(header for header in response.raw_headers if header[0] == b"set-cookie")


@router.get("/state", response_model=SessionView)
def state(game: GameDep, services: ServicesDep, token: TokenDep) -> Response:
    row = _session(services, game, token)
    return json_response(sessions.view(services, game, row))


@router.post("/act", response_model=ActPublic)
async def act(
    game: GameDep,
    services: ServicesDep,
    token: TokenDep,
    headers: AgentHeadersDep,
    body: ActCreate,
) -> Response:
    """Apply commands (a well-formed request with a bearer token is answered by
    :class:`SessionFastPath` before it reaches here, by the same :func:`act_answer`)."""
    return json_response(await act_answer(services, game, token, headers, body))


async def act_answer(
    services: Services,
    game: Game,
    token: str | None,
    headers: tuple[str | None, str | None],
    body: ActCreate,
) -> JSON:
    """An act's answer. The session is read, the commands applied and the answer built in
    the event loop, which goes on while each step's commit is synced; a session this
    process acted on lately is taken from :attr:`Services.recent` instead of its row.
    Raises :class:`ApiError` and the sessions' refusals, answered by the error table."""
    hashed = _token_hash(token)
    texts = body.texts()
    try:
        report = await _act_on_recent(services, game, hashed, texts, headers, body)
        if report is None:
            storage = services.storage
            found = await storage.read_async(storage.session_by_token, game.slug, hashed)
            row = _found(game, found)
            sessions.check_act(game, row, texts)
            spend = await _spend(services, row, headers, body)
            report = await sessions.act(services, game, row, texts, spend)
    except agent_check.AgentCheckFailed as error:
        raise ApiError(403, str(error), puzzle=True) from None
    services.recent.keep(hashed, report.row, report.match)
    view = sessions.view(services, game, report.row, report.match)
    return {**view, "results": report.results}


async def _act_on_recent(
    services: Services,
    game: Game,
    hashed: str,
    texts: list[str],
    headers: tuple[str | None, str | None],
    body: ActCreate,
) -> sessions.ActReport | None:
    """The act on the session's recent entry; None when there is none, or when it was
    stale (its first step lost to the stored version, so nothing was stored)."""
    recent = services.recent.take(hashed)
    if recent is None:
        return None
    row, match = recent
    sessions.check_act(game, row, texts)
    spend = await _spend(services, row, headers, body)
    try:
        return await sessions.act(services, game, row, texts, spend, match)
    except sessions.BatchConflict as conflict:
        if conflict.applied:
            raise
        return None


async def _spend(
    services: Services,
    row: SessionRow,
    headers: tuple[str | None, str | None],
    body: AgentAnswer,
) -> SpentPuzzle:
    """The puzzle that admits an act, checked (it is spent in the first command's own
    transaction: one commit an act); a wrong answer is spent here, and refused."""
    try:
        return services.signer.check(row.id, *_answer(headers, body))
    except agent_check.AnswerRefused as refused:
        spent = await services.storage.spend_puzzle_async(
            refused.spend.token_hash, refused.spend.expires_at
        )
        raise agent_check.refusal(refused, spent) from None


SESSION_PATH = re.compile(r"/games/([^/]+)/api/(act|new)")
#: the route template of each path the fast path answers, as the metrics name it
FAST_ROUTES = {name: f"{router.prefix}/{name}" for name in ("act", "new")}
OK = 200


class SessionFastPath:
    """``POST /games/{slug}/api/act`` and ``.../new`` for a well-formed request, before
    the framework.

    It answers a request of a known game with a JSON body declared by Content-Length
    within the body limit that is a valid act (with a bearer token) or a valid new
    session, by :func:`act_answer` or :func:`new_answer` and the error table, as the route
    would; everything else (an act with no token but the browser's cookie, a body the
    route would refuse, a streamed body) is handed, body and all, to the app behind it.
    """

    def __init__(self, app: ASGIApp, services: Services, limit: int) -> None:
        self.app = app
        self.services = services
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Any) -> None:
        path = SESSION_PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if path is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        acting = path.group(2) == "act"
        headers = dict(scope["headers"])
        token = bearer(_text(headers.get(b"authorization")))
        size = headers.get(b"content-length", b"")
        media = headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
        game = _known(path.group(1))
        if (
            game is None
            or (acting and token is None)
            or media != b"application/json"
            or not size.isdigit()
            or int(size) > self.limit
        ):
            await self.app(scope, receive, send)
            return
        body = await read_body(receive)
        try:
            request = (ActCreate if acting else SessionCreate).model_validate_json(body)
        except ValidationError:
            await self.app(scope, replaying(body, receive), send)
            return
        scope[metrics.ANSWERED_ROUTE] = FAST_ROUTES[path.group(2)]
        extra: tuple[tuple[bytes, bytes], ...] = ()
        try:
            if isinstance(request, ActCreate):
                agent = (
                    _text(headers.get(b"x-agent-check")),
                    _text(headers.get(b"x-agent-answer")),
                )
                answer = await act_answer(self.services, game, token, agent, request)
            else:
                key = _text(headers.get(b"x-player-key"))
                answer, made = await new_answer(self.services, game, request, key)
                extra = (cookie_header(game.slug, made),)
        except errors.ANSWERED as error:
            refused = await errors.answer(Request(scope), error)
            await send_json(send, refused.status_code, bytes(refused.body))
            return
        await send_json(send, OK, json_bytes(answer), *extra)


def _text(value: bytes | None) -> str | None:
    """A header's value as the framework reads it (Latin-1)."""
    return value.decode("latin-1") if value is not None else None


def _known(slug: str) -> Game | None:
    try:
        return get_game(slug)
    except UnknownGameError:
        return None


@router.post("/finish", response_model=FinishPublic)
def finish(
    game: GameDep,
    services: ServicesDep,
    token: TokenDep,
    headers: AgentHeadersDep,
    player_key: PlayerKeyDep,
    body: FinishCreate,
) -> Response:
    row = _session(services, game, token)
    _check(services, row, headers, body)
    named = sessions.finishing_player(services, row, body.player, player_key)
    done = sessions.finish(services, game, row, body.rating, body.review, named)
    return json_response(
        {
            "sessionId": done.row.id,
            "slug": done.row.slug,
            "player": done.row.player,
            "score": done.row.score,
            "rating": done.row.rating,
            "review": done.row.review,
            "rank": done.rank,
            "seed": done.row.seed,
            "options": done.row.options,
            "log": done.match.log,
            "fingerprint": done.match.fingerprint(),
            "agentCheck": services.puzzle(done.row.id),
        }
    )
