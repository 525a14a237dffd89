"""The spectator API: anyone may watch any session by its id, live, and replay it.

- ``GET /api/spectate/live``: the sessions being played right now, newest move first.
- ``GET /api/spectate/sessions/{session_id}``: a session as a spectator sees it: the
  board and observation the player sees, score, player, the last command and what
  happened to it, whether it is finished, and the seat's ``say`` line where the game has
  one (Cogcrawl).
- ``GET /api/spectate/sessions/{session_id}/stream``: the same record pushed as
  server-sent events each time the session moves (see :mod:`playbench.server.feed`).
- ``GET /api/spectate/sessions/{session_id}/replay``: seed, options and the actions that
  moved the game, for a practice session or a finished one. A ranked session's seed
  decides what the player has not seen yet (Gem Swap's refills, the dungeon's next
  level), so until it is finished neither the seed nor the replay is shown.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from playbench import __version__
from playbench.core.game import JSON
from playbench.core.match import Match
from playbench.core.registry import all_games, get_game
from playbench.server import sessions
from playbench.server.deps import ServicesDep
from playbench.server.errors import ApiError
from playbench.server.feed import TooManyStreams, Watcher
from playbench.server.schemas import ErrorPublic
from playbench.server.services import Services, json_response
from playbench.server.store import SessionRow

#: a session counts as being played when it moved within this many seconds
LIVE_WINDOW_SECONDS = 600.0
LIVE_DEFAULT = 10
LIVE_MAX = 50
#: a comment line sent on an idle stream so proxies keep it open
KEEPALIVE_SECONDS = 15.0
SESSION_ID_PATTERN = r"^[0-9a-f]{1,32}$"

SessionId = Annotated[
    str, Path(pattern=SESSION_ID_PATTERN, description="the sessionId from new (hex)")
]

router = APIRouter(
    prefix="/api/spectate",
    tags=["spectate"],
    responses={code: {"model": ErrorPublic} for code in (404, 422)},
)


class LastAction(BaseModel):
    command: str | None = Field(description="the command text as sent")
    ok: bool
    reason: str = Field(description="why it was refused; empty when it was accepted")
    reward: int


class SpectatorRecord(BaseModel):
    sessionId: str
    slug: str
    game: str = Field(description="the game's slug, as in the session view")
    name: str = Field(description="the game's name")
    player: str | None
    ranked: bool
    seed: int | None = Field(description="null for a ranked session until it is finished")
    version: int = Field(description="grows with every stored command; a push carries it")
    observation: JSON
    board: str
    legalActions: list[Any]
    commands: list[str]
    score: int
    gameOver: bool
    progress: float
    moves: int
    accepted: int
    finished: bool
    lastAction: LastAction | None
    say: str | None = Field(description="the seat's say line (Cogcrawl); null elsewhere")


class LiveEntry(BaseModel):
    sessionId: str
    slug: str
    player: str | None
    ranked: bool
    score: int
    moves: int
    watchUrl: str


class LivePublic(BaseModel):
    sessions: list[LiveEntry]


class ReplayStep(BaseModel):
    action: Any
    reward: int
    score: int = Field(description="the score after this action")


class ReplayPublic(BaseModel):
    game: str = Field(description="the game's slug")
    sessionId: str
    seed: int
    options: JSON
    agent: str | None = Field(description="the player's name")
    version: str = Field(description="the playbench version that serves this replay")
    finished: bool
    ranked: bool
    abandoned: bool = Field(description="a ranked session closed unfinished, counted")
    score: int = Field(description="the score stored with the session")
    fingerprint: str = Field(
        description="a hash of the stored state: a replay of the steps must end on it "
        "(playbench verify --server URL SESSION_ID)"
    )
    steps: list[ReplayStep] = Field(
        description="every action that moved the game, in order, with its reward and the "
        "score after it: stepping them from the seed and options rebuilds every board"
    )


def _row(services: Services, session_id: str) -> SessionRow:
    row = services.storage.session_by_id(session_id)
    if row is None:
        raise ApiError(404, f"no session {session_id}")
    return row


def record(services: Services, row: SessionRow) -> JSON:
    """The spectator's record of a stored session (never the hidden state)."""
    game = get_game(row.slug)
    view = sessions.load(game, row).view()
    last = services.storage.last_entry(row.id)
    say = next(
        (e.get("text") for e in (last.events if last else []) if e.get("type") == "say"), None
    )
    return {
        "sessionId": row.id,
        "slug": row.slug,
        "name": game.name,
        "player": row.player,
        "ranked": row.ranked,
        "seed": row.seed if row.finished or row.abandoned or not row.ranked else None,
        "version": row.version,
        **view,
        "accepted": row.accepted,
        "finished": row.finished,
        "lastAction": None
        if last is None
        else {
            "command": last.command,
            "ok": last.ok,
            "reason": "" if last.ok else last.reason,
            "reward": last.reward,
        },
        "say": say if isinstance(say, str) else None,
    }


@router.get("/live", response_model=LivePublic)
def live(
    services: ServicesDep,
    slug: Annotated[str | None, Query(description="one game's slug; every game if absent")] = None,
    limit: Annotated[int, Query(ge=1, le=LIVE_MAX, description="sessions per game")] = LIVE_DEFAULT,
) -> Response:
    """Sessions being played right now (moved in the last ten minutes, not over)."""
    games = [get_game(slug)] if slug is not None else all_games()
    since = time.time() - LIVE_WINDOW_SECONDS
    entries = [
        {
            "sessionId": row.id,
            "slug": row.slug,
            "player": row.player,
            "ranked": row.ranked,
            "score": row.score,
            "moves": row.moves,
            "watchUrl": f"/watch/{row.id}",
        }
        for game in games
        for row in services.storage.live_sessions(game.slug, since, limit)
    ]
    return json_response({"sessions": entries})


@router.get("/sessions/{session_id}", response_model=SpectatorRecord)
def session(session_id: SessionId, services: ServicesDep) -> Response:
    """A session as a spectator sees it."""
    return json_response(record(services, _row(services, session_id)))


@router.get(
    "/sessions/{session_id}/replay",
    response_model=ReplayPublic,
    responses={403: {"model": ErrorPublic}},
)
def replay(session_id: SessionId, services: ServicesDep) -> Response:
    """Seed, options and actions of a practice session or a finished one (403 for a
    ranked session still being played: its seed is secret until it is finished)."""
    row = _row(services, session_id)
    if row.ranked and not (row.finished or row.abandoned):
        raise ApiError(
            403,
            "a ranked session's seed stays secret until it is finished; "
            "watch it live instead, or replay it once it is finished",
        )
    match = Match.start(row.slug, row.seed, row.options)
    steps: list[JSON] = []
    for entry in services.storage.log(row.id):
        if entry.action is None:
            continue
        result = match.play(entry.action)
        if result.advanced:
            steps.append({"action": result.action, "reward": result.reward, "score": match.score})
    return json_response(
        {
            "game": row.slug,
            "sessionId": row.id,
            "seed": row.seed,
            "options": row.options,
            "agent": row.player,
            "version": __version__,
            "finished": row.finished,
            "ranked": row.ranked,
            "abandoned": row.abandoned,
            "score": row.score,
            "fingerprint": sessions.load(get_game(row.slug), row).fingerprint(),
            "steps": steps,
        }
    )


def _watcher(request: Request, services: Services) -> Watcher:
    state = request.app.state
    watcher = getattr(state, "spectate_watcher", None)
    if watcher is None:
        watcher = state.spectate_watcher = Watcher(services.storage)
    return watcher


class EventStream(StreamingResponse):
    """A server-sent event stream that runs ``on_close`` however it ends (the client
    went away before the first event included), so the stream count stays true."""

    media_type = "text/event-stream"

    def __init__(self, events: AsyncIterator[str], on_close: Callable[[], None]) -> None:
        super().__init__(events, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self.on_close = on_close

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.on_close()


def _event(name: str, body: JSON) -> str:
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return f"event: {name}\nid: {body.get('version', '')}\ndata: {data}\n\n"


#: one event of the stream (the schema of an event stream's media type, before OpenAPI
#: 3.2's ``itemSchema``, describes each event)
STREAM_EVENT = {
    "type": "object",
    "required": ["event", "id", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["state", "end"]},
        "id": {"type": "string", "description": "the record's version"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "description": "the SpectatorRecord, as JSON",
        },
    },
}
STREAM_DOC = (
    "Server-sent events (text/event-stream): an `state` event with the spectator record "
    "at once and after every stored command, within 200 ms and without polling by the "
    "client; an `end` event once the session is finished, after which the server closes "
    "the stream; a comment line every 15 s when nothing moves. At most 8 open streams per "
    "client address (429 past that)."
)


@router.get(
    "/sessions/{session_id}/stream",
    response_class=StreamingResponse,
    description=STREAM_DOC,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": STREAM_EVENT}},
            "description": "a stream of `state` events (each `data` a SpectatorRecord)",
        },
        429: {"model": ErrorPublic},
    },
)
async def stream(session_id: SessionId, request: Request, services: ServicesDep) -> Response:
    """The session's record, pushed each time it moves."""
    row = await run_in_threadpool(_row, services, session_id)
    watcher = _watcher(request, services)
    client = request.client.host if request.client else "unknown"
    try:
        subscription = watcher.subscribe(session_id, client, row.version)
    except TooManyStreams as error:
        raise ApiError(429, str(error)) from None

    async def events() -> AsyncIterator[str]:
        current = await run_in_threadpool(record, services, row)
        yield _event("state", current)
        while not current["finished"]:
            try:
                await asyncio.wait_for(subscription.changed.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            subscription.changed.clear()
            fresh = await run_in_threadpool(services.storage.reload, session_id)
            current = await run_in_threadpool(record, services, fresh)
            yield _event("state", current)
        yield _event("end", {"sessionId": session_id, "version": current["version"]})

    return EventStream(events(), lambda: watcher.unsubscribe(subscription))
