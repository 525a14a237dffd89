"""The arena's pages for people: play, watch, replay, leaderboards, and /docs offline.

The pages are static files under ``playbench/web`` (plain ES modules, no build step, no
CDN); they speak only the public APIs and the push feed. The server fills in what it
knows before the page loads (the game cards of the home page, titles) and serves the
assets, Swagger UI's included (from the ``swagger-ui-py`` package, with its licence).
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import re
from functools import cache
from html import escape
from importlib import resources
from pathlib import Path
from typing import NoReturn

from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response

from playbench.core.controls import controls_of
from playbench.core.errors import UnknownGameError
from playbench.core.game import Game
from playbench.core.palette import palette_of
from playbench.core.registry import all_games, get_game
from playbench.server.guards import CONTENT_SECURITY_POLICY
from playbench.server.services import services_of

WEB = Path(str(resources.files("playbench") / "web"))
PAGES = WEB / "pages"
ASSETS = WEB / "assets"
#: the Swagger UI files /docs needs, served from the installed swagger-ui-py package
SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE")
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
SLOT = re.compile(r"\{\{(\w+)\}\}")
SESSION_ID = re.compile(r"^[0-9a-f]{1,32}$")
TITLE = "playbench arena"
#: every page's head and header, around the page's own body
FRAME = "frame.html"
BODY_MARK = "<!-- body -->"
#: the bar above Swagger UI that leads back to the arena
DOCS_BAR = (
    '<nav class="arena-bar" style="display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;'
    "align-items:center;padding:.7rem 1.2rem;background:#0f0c18;font:15px system-ui,sans-serif"
    '"><a href="/" style="color:#ffcf4d;font-weight:700;text-decoration:none">'
    "&larr; playbench arena</a>"
    '<a href="/llms.txt" style="color:#c9c2e8;text-decoration:none">llms.txt</a>'
    '<a href="/openapi.json" style="color:#c9c2e8;text-decoration:none">openapi.json</a></nav>'
)

router = APIRouter(include_in_schema=False)


@cache
def _template(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def _page(template: str, status_code: int = 200, **slots: str) -> HTMLResponse:
    """A page's body in the shared frame (head, header), each ``{{slot}}`` filled in;
    values are HTML already (escape first)."""
    body = SLOT.sub(lambda found: slots.get(found.group(1), ""), _template(template))
    frame = SLOT.sub(lambda found: slots.get(found.group(1), ""), _template(FRAME))
    return HTMLResponse(frame.replace(BODY_MARK, body, 1), status_code=status_code)


def framed(title: str, body: str) -> HTMLResponse:
    """A page of HTML ``body`` (escaped already) in the arena's frame and stylesheet."""
    slots = {"title": escape(title)}
    frame = SLOT.sub(lambda found: slots.get(found.group(1), ""), _template(FRAME))
    return HTMLResponse(frame.replace(BODY_MARK, body, 1))


def not_found_page(what: str) -> HTMLResponse:
    """The 404 page for people (``missing.py`` chooses it by ``Accept``)."""
    return _page("missing.html", 404, title=escape(f"Not here · {TITLE}"), message=escape(what))


def _not_found(what: str) -> NoReturn:
    raise HTTPException(404, what)


def _game(slug: str) -> Game | None:
    try:
        return get_game(slug)
    except UnknownGameError:
        return None


def _card(game: Game) -> str:
    slug = escape(game.slug)
    return (
        f'<article class="card" data-testid="game-card" data-slug="{slug}">'
        f'<a class="thumb" href="/play/{slug}" aria-label="play {escape(game.name)}">'
        f'<div class="board-thumb" data-thumb="{slug}"></div></a>'
        f'<div class="card-body"><h2>{escape(game.name)}</h2>'
        f'<p class="genre">{escape(game.genre)}</p>'
        f'<p class="goal">{escape(game.spec().goal)}</p>'
        f'<div class="live" data-live="{slug}"><span class="muted">nobody is playing</span></div>'
        f'<nav class="card-links"><a class="button primary" href="/play/{slug}">Play</a>'
        f'<a class="button" href="/leaderboard/{slug}">Leaderboard</a>'
        f'<a class="button quiet" href="/docs/api/{slug}">API</a></nav>'
        "</div></article>"
    )


def _controls_json(game: Game) -> str:
    """The game's keys, clock, pad and panels (the terminal's table), for the page's script."""
    return json.dumps(controls_of(game).browser()).replace("<", "\\u003c")


def _example(game: Game) -> str:
    """A command of the game's grammar to show beside the command line."""
    examples = [command.example for command in game.spec().commands if command.example]
    return examples[0] if examples else "help"


@router.get("/", response_class=HTMLResponse)
def index() -> HTMLResponse:
    cards = "".join(_card(game) for game in all_games())
    return _page("index.html", title=escape(TITLE), cards=cards)


@router.get("/play/{slug}", response_class=HTMLResponse)
def play(slug: str) -> HTMLResponse:
    game = _game(slug)
    if game is None:
        return _not_found(f"There is no game called {slug!r}.")
    return _page(
        "play.html",
        title=escape(f"{game.name} · {TITLE}"),
        name=escape(game.name),
        slug=escape(game.slug),
        seeded="true" if game.seeded else "false",
        goal=escape(game.spec().goal),
        example=escape(_example(game)),
        controls=_controls_json(game),
    )


@router.get("/leaderboard/{slug}", response_class=HTMLResponse)
def leaderboard(slug: str) -> HTMLResponse:
    game = _game(slug)
    if game is None:
        return _not_found(f"There is no game called {slug!r}.")
    return _page(
        "leaderboard.html",
        title=escape(f"{game.name} leaderboard · {TITLE}"),
        name=escape(game.name),
        slug=escape(game.slug),
    )


def _stored(request: Request, session_id: str) -> None:
    """A 404 unless ``session_id`` names a stored session."""
    if not SESSION_ID.match(session_id):
        _not_found(f"{session_id!r} is no session id.")
    if services_of(request).storage.session_by_id(session_id) is None:
        _not_found(f"There is no session {session_id}: it never was, or it was pruned.")


@router.get("/watch/{session_id}", response_class=HTMLResponse)
def watch(session_id: str, request: Request) -> HTMLResponse:
    _stored(request, session_id)
    return _page("watch.html", title=escape(f"Watch {session_id} · {TITLE}"))


@router.get("/replay", response_class=HTMLResponse)
def replay_file() -> HTMLResponse:
    return _page("replay.html", title=escape(f"Replay · {TITLE}"))


@router.get("/replay/{session_id}", response_class=HTMLResponse)
def replay(session_id: str, request: Request) -> HTMLResponse:
    _stored(request, session_id)
    return _page("replay.html", title=escape(f"Replay {session_id} · {TITLE}"))


def _file(root: Path, name: str) -> Response:
    path = (root / name).resolve()
    if not path.is_file() or not path.is_relative_to(root.resolve()):
        return _not_found(f"No file {name!r}.")
    media_type = mimetypes.guess_type(path.name)[0] or "text/plain"
    if path.suffix == ".js":
        media_type = "text/javascript"
    return FileResponse(path, media_type=media_type, headers={"Cache-Control": "no-cache"})


@router.get("/assets/palette.json")
def palette() -> Response:
    """Every game's colours by slug, the same files the Gymnasium door paints with."""
    colours = {game.slug: palette_of(game) for game in all_games()}
    body = json.dumps({slug: found for slug, found in colours.items() if found is not None})
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})


@router.get("/assets/{name:path}")
def asset(name: str) -> Response:
    return _file(ASSETS, name)


@router.get("/favicon.ico")
def favicon() -> Response:
    return _file(ASSETS, "favicon.svg")


def _swagger_root() -> Path:
    return Path(str(resources.files("swagger_ui") / "static"))


@router.get("/docs", response_class=HTMLResponse)
def swagger() -> HTMLResponse:
    """Swagger UI from this server's own files; its one inline script is allowed by its
    hash in the page's content security policy, and nothing else inline is."""
    page = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title=f"{TITLE}: API",
        swagger_js_url="/docs/assets/swagger-ui-bundle.js",
        swagger_css_url="/docs/assets/swagger-ui.css",
        swagger_favicon_url="/docs/assets/favicon-32x32.png",
    )
    page = HTMLResponse(page.body.decode().replace("<body>", f"<body>\n{DOCS_BAR}", 1))
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in INLINE_SCRIPT.findall(page.body.decode())
    )
    page.headers["content-security-policy"] = CONTENT_SECURITY_POLICY.decode().replace(
        "script-src 'self'", f"script-src 'self' {hashes}"
    )
    return page


@router.get("/docs/assets/{name}")
def swagger_asset(name: str) -> Response:
    if name not in SWAGGER_FILES:
        return _not_found(f"No file {name!r}.")
    return _file(_swagger_root(), name)
