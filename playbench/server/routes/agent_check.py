"""``GET /api/v1/agent-check``: a fresh puzzle."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from playbench.server import agent_check
from playbench.server.deps import ServicesDep
from playbench.server.schemas import PuzzlePublic
from playbench.server.services import json_response

router = APIRouter(prefix="/api/v1", tags=["agent check"])


@router.get("/agent-check", response_model=PuzzlePublic)
def puzzle(services: ServicesDep) -> Response:
    return json_response(agent_check.issue(services.storage, services.settings.puzzle_ttl_seconds))
