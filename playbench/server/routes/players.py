"""``POST /api/players``: register a player name and receive its key, once."""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from playbench.server import players
from playbench.server.deps import ServicesDep
from playbench.server.errors import ApiError
from playbench.server.schemas import ErrorPublic, PlayerCreate, PlayerPublic
from playbench.server.services import json_response

router = APIRouter(
    prefix="/api/players",
    tags=["players"],
    responses={code: {"model": ErrorPublic} for code in (409, 422, 429)},
)


@router.post("", response_model=PlayerPublic, status_code=201)
def register(request: Request, services: ServicesDep, body: PlayerCreate) -> Response:
    """Register a name; the answer holds its key, shown this once (only its hash is
    stored). Send the key as ``X-Player-Key`` to play or finish under the name."""
    if services.registrations is not None:
        address = request.client.host if request.client is not None else ""
        wait = services.registrations.take(address)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            answer: dict[str, Any] = {
                "error": f"too many names registered from this address: retry in {seconds} s"
            }
            response = json_response(answer, status_code=429)
            response.headers["Retry-After"] = str(seconds)
            return response
    try:
        made = players.register(services.storage, body.name)
    except players.NameRefused as refused:
        raise ApiError(422, str(refused)) from None
    except players.NameTaken as taken:
        raise ApiError(
            409, f"the name {taken} is taken, or one that looks like it: choose another"
        ) from None
    return json_response({"name": made.name, "key": made.key}, status_code=201)
