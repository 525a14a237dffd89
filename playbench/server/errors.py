"""Every error a client can cause becomes a clear 4xx JSON answer ``{"error": ...}``.

Errors of the session routes also carry a fresh agent-check puzzle, bound to the session
whose token the request carried, so a client that failed a check (or sent a bad body to
``act``/``finish``) can go on.

A database that cannot serve (read-only, stopped, out of space, its pool exhausted) is
answered 503 with ``Retry-After`` and a JSON error that names neither the database nor
its files (the driver's message goes to the log only): by the framework's error table
for the routes, and by :class:`Unavailable` for the layers in front of it.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from typing import Any

import psycopg
import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from playbench.core.errors import (
    CommandError,
    OptionsError,
    PlaybenchError,
    StateError,
    UnknownGameError,
)
from playbench.server import sessions
from playbench.server.deps import token_of
from playbench.server.middleware import ASGIApp, Scope, send_json
from playbench.server.players import KeyRefused
from playbench.server.sealing import SealError
from playbench.server.store import token_hash

#: the errors that say the database cannot serve now, not that the request is wrong
UNAVAILABLE: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InternalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,
    sqlite3.OperationalError,
    sqlite3.InterfaceError,
    psycopg.OperationalError,
    psycopg.InternalError,
    psycopg.InterfaceError,
)
DATABASE_DOWN = "the arena's database cannot take this request just now: retry in a few seconds"
RETRY_SECONDS = 5
LOG = logging.getLogger("playbench.server")

SESSION_ROUTE = re.compile(r"/games/([^/]+)/api/(?:new|state|act|finish)")


class ApiError(Exception):
    """An error answer: HTTP status, message, and whether to attach a fresh puzzle."""

    def __init__(self, status: int, message: str, *, puzzle: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.puzzle = puzzle


async def _answer(
    request: Request,
    status: int,
    message: str,
    *,
    puzzle: bool = False,
    detail: list[dict[str, object]] | None = None,
) -> JSONResponse:
    body: dict[str, object] = {"error": message}
    if detail is not None:
        body["detail"] = detail
    if puzzle or SESSION_ROUTE.fullmatch(request.url.path):
        body["agentCheck"] = await _fresh_puzzle(request)
    return JSONResponse(body, status_code=status)


async def _fresh_puzzle(request: Request) -> dict[str, object]:
    """A puzzle bound to the session whose token the request carries (if any)."""
    services = request.app.state.services
    route = SESSION_ROUTE.fullmatch(request.url.path)
    session_id = None
    if route is not None:
        token = token_of(request, route.group(1), request.headers.get("authorization"))
        if token:
            row = await run_in_threadpool(
                services.storage.session_by_token, route.group(1), token_hash(token)
            )
            session_id = row.id if row is not None else None
    return services.puzzle(session_id)


async def puzzle_for(scope: dict[str, Any]) -> dict[str, object]:
    """The puzzle field of an answer made outside the routes (the body limit's 413):
    a fresh puzzle on the session routes, nothing elsewhere."""
    if not SESSION_ROUTE.fullmatch(scope["path"]):
        return {}
    return {"agentCheck": await _fresh_puzzle(Request(scope))}


#: what FastAPI answers (400) when a JSON body cannot be decoded at all
BODY_PARSE_FAILED = "There was an error parsing the body"
UNPARSABLE_BY_CAUSE: tuple[tuple[type[BaseException], str], ...] = (
    (RecursionError, "the JSON is nested too deeply"),
    (UnicodeDecodeError, "the JSON is not UTF-8 text"),
)


def _field(loc: tuple[object, ...] | list[object]) -> str:
    return ".".join(str(part) for part in loc) or "body"


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _detail(request: Request, error: dict[str, Any]) -> dict[str, object]:
    """One validation error as ``{field, message, type}``, said in the client's terms."""
    loc = tuple(error.get("loc", ()))
    kind = error.get("type")
    field, message = _field(loc), error.get("msg", "")
    if kind == "json_invalid" and len(loc) == 2 and isinstance(loc[1], int):
        # FastAPI's own JSON decoding: the location is a character offset, not a field
        field = "body"
        message = f"invalid JSON at character {loc[1]}: {error.get('ctx', {}).get('error', '')}"
    elif kind == "model_attributes_type" and loc == ("body",):
        content_type = request.headers.get("content-type")
        if content_type and not _is_json(content_type):
            message = (
                f"send a JSON object with Content-Type: application/json (got {content_type!r})"
            )
    return {"field": field, "message": message, "type": kind}


async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    detail = [_detail(request, e) for e in exc.errors()]
    message = "; ".join(f"{d['field']}: {d['message']}" for d in detail) or "invalid request"
    return await _answer(request, 422, message, detail=detail)


async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
    return await _answer(request, exc.status, exc.message, puzzle=exc.puzzle)


async def _http(request: Request, exc: HTTPException) -> JSONResponse:
    cause = exc.__cause__
    if exc.detail == BODY_PARSE_FAILED and cause is not None:
        why = next(
            (text for kind, text in UNPARSABLE_BY_CAUSE if isinstance(cause, kind)),
            "the JSON could not be decoded",
        )
        detail: list[dict[str, object]] = [
            {"field": "body", "message": why, "type": "json_invalid"}
        ]
        return await _answer(request, 422, f"body: {why}", detail=detail)
    response = await _answer(request, exc.status_code, str(exc.detail))
    if exc.headers:
        response.headers.update(exc.headers)
    if exc.status_code == METHOD_NOT_ALLOWED:
        response.headers["Allow"] = ", ".join(allowed_methods(request))
    return response


METHOD_NOT_ALLOWED = 405


def allowed_methods(request: Request) -> list[str]:
    """Every method the API takes on the request's path, as its OpenAPI schema says
    (Starlette names only those of the first route on the path, though another route may
    take another method there)."""
    path = request.url.path
    return sorted(
        {
            method.upper()
            for pattern, methods in _path_patterns(request.app)
            if pattern.fullmatch(path)
            for method in methods
        }
    )


def _path_patterns(app: FastAPI) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    """The schema's paths as patterns, with their methods (made once per app)."""
    patterns = getattr(app.state, "allow_patterns", None)
    if patterns is None:
        patterns = [
            (
                re.compile(
                    PARAMETER.sub("[^/]+", re.escape(path).replace(r"\{", "{").replace(r"\}", "}"))
                ),
                tuple(methods),
            )
            for path, methods in app.openapi()["paths"].items()
        ]
        app.state.allow_patterns = patterns
    return patterns


PARAMETER = re.compile(r"\{[^}/]+\}")


STATUS_BY_ERROR: tuple[tuple[type[PlaybenchError], int], ...] = (
    (sessions.CommandTooLong, 413),
    (sessions.SessionClosed, 409),
    (sessions.FinishRefused, 409),
    (sessions.SessionConflict, 409),
    (UnknownGameError, 404),
    (SealError, 400),
    (StateError, 400),
    (OptionsError, 422),
    (CommandError, 422),
    (PlaybenchError, 400),
)


async def _playbench(request: Request, exc: PlaybenchError) -> JSONResponse:
    status = next(code for kind, code in STATUS_BY_ERROR if isinstance(exc, kind))
    return await _answer(request, status, str(exc))


async def _key_refused(request: Request, exc: KeyRefused) -> JSONResponse:
    """A player name without its key (401), with a wrong one (403), or unknown (404)."""
    return await _answer(request, exc.status, str(exc))


#: the refusals a layer in front of the framework answers by :func:`answer`
ANSWERED = (ApiError, PlaybenchError, KeyRefused)


async def answer(request: Request, exc: ApiError | PlaybenchError | KeyRefused) -> JSONResponse:
    """The error table's answer to ``exc``, for a layer that answers before the framework
    (the sessions' fast path) as the app would."""
    if isinstance(exc, ApiError):
        return await _api_error(request, exc)
    if isinstance(exc, KeyRefused):
        return await _key_refused(request, exc)
    return await _playbench(request, exc)


def _unavailable_body(error: BaseException) -> dict[str, object]:
    LOG.warning("the database could not serve a request: %s", " ".join(str(error).split()))
    return {"error": DATABASE_DOWN, "retryAfter": RETRY_SECONDS}


async def _unavailable(_request: Request, exc: Exception) -> JSONResponse:
    headers = {"Retry-After": str(RETRY_SECONDS)}
    return JSONResponse(_unavailable_body(exc), status_code=503, headers=headers)


class Unavailable:
    """The database errors of the layers in front of the framework (the fast paths, the
    shared rate limits) answered as the framework answers them: 503, ``Retry-After``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        started = False

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except UNAVAILABLE as error:
            if started or scope["type"] != "http":
                raise
            body = json.dumps(_unavailable_body(error)).encode()
            await send_json(send, 503, body, (b"retry-after", b"%d" % RETRY_SECONDS))


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(PlaybenchError, _playbench)
    app.add_exception_handler(KeyRefused, _key_refused)
    for kind in UNAVAILABLE:
        app.add_exception_handler(kind, _unavailable)
