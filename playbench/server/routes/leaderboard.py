"""``GET /api/leaderboard/{slug}``: the best finished sessions of a game."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from playbench.server import standings
from playbench.server.deps import GameDep, ServicesDep
from playbench.server.schemas import ErrorPublic, LeaderboardPublic
from playbench.server.services import json_response
from playbench.server.settings import LEADERBOARD_DEFAULT, LEADERBOARD_MAX

router = APIRouter(
    prefix="/api/leaderboard",
    tags=["leaderboard"],
    responses={code: {"model": ErrorPublic} for code in (404, 422)},
)


@router.get("/{slug}", response_model=LeaderboardPublic)
def leaderboard(
    game: GameDep,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=LEADERBOARD_MAX)] = LEADERBOARD_DEFAULT,
) -> Response:
    rows = services.storage.leaderboard(game.slug, limit)
    entries = [
        {
            "rank": rank,
            "sessionId": row.id,
            "player": row.player,
            "score": row.score,
            "seed": row.seed,
            "moves": row.moves,
            "rating": row.rating,
            "review": row.review,
            "finishedAt": datetime.fromtimestamp(row.finished_at or 0.0, UTC).isoformat(
                timespec="seconds"
            ),
        }
        for rank, row in enumerate(rows, start=1)
    ]
    if game.seeded:
        kind, note = (
            "seeded",
            ("Ranked runs only: each on a seed the server drew and kept hidden until the end."),
        )
    else:
        kind, note = (
            "puzzle",
            (
                f"A puzzle board: {game.name}'s levels are fixed, so every run plays the same "
                "puzzle and scores compare solutions, not luck. Practice on the same levels "
                "is allowed (a client seed or options, or playbench play): the board ranks "
                "the solution you bring to a ranked game."
            ),
        )
    return json_response(
        {
            "slug": game.slug,
            "kind": kind,
            "note": note,
            "entries": entries,
            "players": standings.standings(services.storage.player_games(game.slug)),
            "minGames": standings.MIN_GAMES,
            "statistic": standings.STATISTIC,
        }
    )
