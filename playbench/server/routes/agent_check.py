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
    responses={code: {"model": ErrorPublic} for code in (401, 404, 422)},
)
#: what the route takes, as its schema states it: the header is required (answered 401
#: when missing, as a token is everywhere, not 422)
PARAMETERS = [
    {
        "name": "authorization",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Bearer <token> of the session the puzzle is for",
    },
    {
        "name": "slug",
        "in": "query",
        "required": False,
        "schema": {"type": "string"},
        "description": "the session's game (optional: the token alone finds the session)",
    },
]
MISSING = "send the session's token as Authorization: Bearer <token>"


@router.get("/agent-check", response_model=PuzzlePublic, openapi_extra={"parameters": PARAMETERS})
def puzzle(
    services: ServicesDep,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
    slug: Annotated[str | None, Query(include_in_schema=False)] = None,
) -> Response:
    """A puzzle answers only for the session it was issued to: send that session's token.
    (Every session answer already carries the next puzzle.)"""
    if authorization is None:
        raise ApiError(401, MISSING)
    scheme, _, token = authorization.partition(" ")
    row = None
    if scheme.lower() == "bearer" and token.strip():
        row = services.storage.session_by_token(slug, token_hash(token.strip()))
    if row is None:
        game = f"{slug} " if slug else ""
        raise ApiError(404, f"no {game}session for this token: send Authorization: Bearer <token>")
    return json_response(services.puzzle(row.id))
