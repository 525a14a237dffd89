"""The session API: a stored game per token, played by text commands. The routes only
orchestrate: the rules are in :mod:`playbench.server.sessions`, their errors answered by
the one error table (:mod:`playbench.server.errors`).

``new`` needs no agent check; ``act`` and ``finish`` need a puzzle answered (headers
``X-Agent-Check``/``X-Agent-Answer`` or body fields ``agent_check``/``agent_answer``).
Every answer, errors included, carries the next puzzle.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from playbench.core.game import Game
from playbench.server import agent_check, players, sessions
from playbench.server.deps import (
    AgentHeadersDep,
    GameDep,
    PlayerKeyDep,
    ServicesDep,
    TokenDep,
    session_cookie,
)
from playbench.server.errors import ApiError
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
from playbench.server.services import Services, json_response
from playbench.server.store import SessionRow

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
def new(
    game: GameDep,
    services: ServicesDep,
    player_key: PlayerKeyDep,
    body: SessionCreate | None = None,
) -> Response:
    """Start a session. Without a seed and options it is ranked: the server draws the seed
    and hides it until ``finish``. A seed or options make it practice. A ``player`` name
    needs its key (``X-Player-Key``); without a name the session is anonymous."""
    body = body or SessionCreate()
    owner = (
        players.authenticate(services.storage, body.player, player_key)
        if body.player is not None
        else None
    )
    row, token, closed = sessions.new_session(services, game, body.seed, body.options, owner)
    view = sessions.view(services, game, row)
    response = json_response({**view, "token": token, "closedAsAbandoned": closed})
    response.set_cookie(
        session_cookie(game.slug),
        token,
        httponly=True,
        samesite="lax",
        path=f"/games/{game.slug}",
    )
    return response


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
    """Apply commands. A coroutine: the session is read, the commands applied and the
    answer built in the event loop, which goes on while each step's commit is synced."""
    storage = services.storage
    found = await storage.read_async(storage.session_by_token, game.slug, _token_hash(token))
    row = _found(game, found)
    texts = body.texts()
    sessions.check_act(game, row, texts)
    try:
        try:
            # the puzzle is spent in the first command's own transaction: one commit an act
            spend = services.signer.check(row.id, *_answer(headers, body))
        except agent_check.AnswerRefused as refused:
            spent = await storage.spend_puzzle_async(
                refused.spend.token_hash, refused.spend.expires_at
            )
            raise agent_check.refusal(refused, spent) from None
        report = await sessions.act(services, game, row, texts, spend)
    except agent_check.AgentCheckFailed as error:
        raise ApiError(403, str(error), puzzle=True) from None
    view = sessions.view(services, game, report.row, report.match)
    return json_response({**view, "results": report.results})


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
