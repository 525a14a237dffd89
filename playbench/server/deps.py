"""Route dependencies as ``Annotated`` aliases.

Every dependency is a coroutine: FastAPI runs a plain function's dependency in its thread
pool, one hop a dependency a request, for work that takes microseconds."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from playbench.core.game import Game
from playbench.core.registry import get_game
from playbench.server.services import Services, services_of


async def game_from_path(slug: str) -> Game:
    return get_game(slug)


def session_cookie(slug: str) -> str:
    return f"playbench_{slug}"


async def session_token(
    request: Request,
    slug: str,
    authorization: Annotated[
        str | None, Header(description="Bearer <token> from POST /games/{slug}/api/new")
    ] = None,
) -> str | None:
    """The session token: ``Authorization: Bearer ...``, else the browser's cookie."""
    return token_of(request, slug, authorization)


def token_of(request: Request, slug: str, authorization: str | None) -> str | None:
    return bearer(authorization) or request.cookies.get(session_cookie(slug))


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None: not one)."""
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return None


async def agent_headers(
    x_agent_check: Annotated[str | None, Header(description="agent-check puzzle token")] = None,
    x_agent_answer: Annotated[str | None, Header(description="agent-check answer")] = None,
) -> tuple[str | None, str | None]:
    return x_agent_check, x_agent_answer


async def player_key(
    x_player_key: Annotated[
        str | None, Header(description="the player's key from POST /api/players")
    ] = None,
) -> str | None:
    return x_player_key


async def services(request: Request) -> Services:
    return services_of(request)


ServicesDep = Annotated[Services, Depends(services)]
GameDep = Annotated[Game, Depends(game_from_path)]
TokenDep = Annotated[str | None, Depends(session_token)]
AgentHeadersDep = Annotated[tuple[str | None, str | None], Depends(agent_headers)]
PlayerKeyDep = Annotated[str | None, Depends(player_key)]
