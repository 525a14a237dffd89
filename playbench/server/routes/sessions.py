"""The session API: a stored game per token, played by text commands.

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
from playbench.server.storage import PlayerRow, SessionRow, VersionConflict

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorPublic} for code in (400, 401, 403, 404, 409, 413, 422)
}
CONFLICT = "the session changed under this request (another act ran first); retry"

router = APIRouter(prefix="/games/{slug}/api", tags=["sessions"], responses=ERRORS)


def _session(services: Services, game: Game, token: str | None) -> SessionRow:
    if not token:
        raise ApiError(
            401, "no session token: send Authorization: Bearer <token> from new", puzzle=True
        )
    row = services.storage.session_by_token(game.slug, sessions.token_hash(token))
    if row is None:
        raise ApiError(404, f"no {game.slug} session for this token", puzzle=True)
    return row


def _open(row: SessionRow) -> None:
    """Refuse a closed session: finished, or abandoned (an act then stores nothing)."""
    if row.finished:
        raise ApiError(
            409,
            "this session is finished: it takes no more commands and nothing was stored "
            "(start a new session with POST new)",
            puzzle=True,
        )
    if row.abandoned:
        raise ApiError(
            409,
            f"this ranked session was closed as abandoned at score {row.score} (left idle "
            "past the deadline, or its player started another ranked game): it counts as "
            "played and takes no more commands",
            puzzle=True,
        )


def _check(
    services: Services,
    row: SessionRow,
    headers: tuple[str | None, str | None],
    body: AgentAnswer,
) -> None:
    token = headers[0] if headers[0] is not None else body.agent_check
    answer = headers[1] if headers[1] is not None else body.agent_answer
    try:
        services.signer.verify(services.storage, row.id, token, answer)
    except agent_check.AgentCheckFailed as error:
        raise ApiError(403, str(error), puzzle=True) from None


def _player(services: Services, name: str, key: str | None) -> PlayerRow:
    """The registered player ``name``, when ``key`` is its key."""
    try:
        return players.authenticate(services.storage, name, key)
    except players.KeyRefused as refused:
        raise ApiError(refused.status, str(refused), puzzle=True) from None


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
    owner = _player(services, body.player, player_key) if body.player is not None else None
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
def act(
    game: GameDep,
    services: ServicesDep,
    token: TokenDep,
    headers: AgentHeadersDep,
    body: ActCreate,
) -> Response:
    row = _session(services, game, token)
    _open(row)
    texts = body.texts()
    for index, text in enumerate(texts):
        limit = game.command_limit(text)
        if len(text.encode()) > limit:
            raise ApiError(
                413,
                f"command {index} is {len(text.encode())} bytes; one command may have at "
                f"most {limit}: nothing was applied or stored",
                puzzle=True,
            )
    _check(services, row, headers, body)
    try:
        report = sessions.act(services, game, row, texts)
    except sessions.BatchConflict as conflict:
        raise ApiError(409, conflict.message(), puzzle=True) from None
    view = sessions.view(services, game, report.row, report.match)
    return json_response({**view, "results": report.results})


def _finishing_player(
    services: Services, row: SessionRow, name: str | None, key: str | None
) -> PlayerRow | None:
    """The player a ``finish`` names (None: the session keeps its own). Finishing a
    session that belongs to a player needs that player's key too; a ranked session's
    player is fixed when it starts, so best-of-N cannot be played anonymously and only
    the best games named at the end."""
    if name is None:
        if row.owner is None:
            return None
        owner = services.storage.player(row.owner)
        if owner is None:
            return None
        _player(services, owner.name, key)
        return None
    named = _player(services, name, key)
    if row.ranked and named.name_key != row.owner:
        raise ApiError(
            409,
            "a ranked session's player is named when it starts (new with player and "
            f"{players.KEY_HEADER}), not at finish: this one "
            + (f"belongs to {row.player!r}" if row.owner else "is anonymous"),
            puzzle=True,
        )
    return named


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
    named = _finishing_player(services, row, body.player, player_key)
    if row.finished:
        raise ApiError(409, "this session is already finished", puzzle=True)
    _open(row)
    if not row.over:
        raise ApiError(409, "the game is not over yet: finish once it has ended", puzzle=True)
    try:
        done = services.storage.finish(row, body.rating, body.review, named)
    except VersionConflict:
        raise ApiError(409, CONFLICT, puzzle=True) from None
    match = sessions.replay(game, done, services.storage.log(done.id))
    return json_response(
        {
            "sessionId": done.id,
            "slug": done.slug,
            "player": done.player,
            "score": done.score,
            "rating": done.rating,
            "review": done.review,
            "rank": services.storage.rank(done),
            "seed": done.seed,
            "options": done.options,
            "log": match.log,
            "fingerprint": match.fingerprint(),
            "agentCheck": services.puzzle(done.id),
        }
    )
