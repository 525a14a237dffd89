"""One 404 for people and one for clients, chosen by ``Accept``: a browser that asks for
HTML (before JSON) gets the arena's "Not here" page, any other client the JSON error the
API answers everywhere (``{"error": ...}``). Installed after :func:`errors.install`, for a
route unknown to the server, an unknown game and a 404 any route raises."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from playbench.core.errors import UnknownGameError
from playbench.server import errors
from playbench.server.routes.pages import not_found_page

HTML = "text/html"
JSON = "application/json"


def wants_html(request: Request) -> bool:
    """Whether the client prefers HTML to JSON (by quality, then by order)."""
    best: dict[str, tuple[float, int]] = {}
    for order, part in enumerate(request.headers.get("accept", "").split(",")):
        media, *params = (piece.strip() for piece in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if media in (HTML, JSON) and media not in best:
            best[media] = (quality, -order)
    html = best.get(HTML)
    return html is not None and html[0] > 0 and html > best.get(JSON, (0.0, 0))


async def _missing(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        said = str(exc.detail) if exc.detail != "Not Found" else ""
        nothing = f"There is nothing at {request.url.path}"
        if wants_html(request):
            return not_found_page(said or f"{nothing}.")
        told = said or f"{nothing}: /llms.txt lists the API's routes."
        return await errors.answer(request, errors.ApiError(404, told))
    if isinstance(exc, errors.ApiError) and exc.status != 404:
        return await errors.answer(request, exc)
    if wants_html(request):
        return not_found_page(str(exc))
    return await errors.answer(request, exc)  # type: ignore[arg-type]


def install(app: FastAPI) -> None:
    app.add_exception_handler(404, _missing)
    app.add_exception_handler(UnknownGameError, _missing)
    app.add_exception_handler(errors.ApiError, _missing)
