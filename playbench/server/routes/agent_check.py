"""``GET /api/v1/agent-check``: a fresh puzzle for the session whose token is sent."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import Response

from playbench.server.deps import ServicesDep
from playbench.server.errors import ApiError
from playbench.server.schemas import ErrorPublic, PuzzlePublic
from playbench.server.services import json_response
from playbench.server.store import token_hash

router = APIRouter(
    prefix="/api/v1",
    tags=["agent check"],
    responses={code: {"model": ErrorPublic} for code in (404, 422)},
)


@router.get("/agent-check", response_model=PuzzlePublic)
def puzzle(
    services: ServicesDep,
    authorization: Annotated[
        str, Header(description="Bearer <token> of the session the puzzle is for")
    ],
    slug: Annotated[
        str | None,
        Query(description="the session's game (optional: the token alone finds the session)"),
    ] = None,
) -> Response:
    """A puzzle answers only for the session it was issued to: send that session's token.
    (Every session answer already carries the next puzzle.)"""
    scheme, _, token = authorization.partition(" ")
    row = None
    if scheme.lower() == "bearer" and token.strip():
        row = services.storage.session_by_token(slug, token_hash(token.strip()))
    if row is None:
        game = f"{slug} " if slug else ""
        raise ApiError(404, f"no {game}session for this token: send Authorization: Bearer <token>")
    return json_response(services.puzzle(row.id))
