"""Readable pages: one API page per game, and ``llms.txt`` for agents.

Everything on them comes from the registry and each game's spec, so a new game gets its
pages without new code.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse

from playbench.core.errors import CommandError
from playbench.core.game import Game
from playbench.core.registry import all_games, get_game
from playbench.server.routes.games import REFUSAL_WITH_STATE
from playbench.server.schemas import ErrorPublic
from playbench.server.services import base_url, services_of

EXAMPLE_SEED = 7
TITLE = "playbench arena"

#: the pages answer HTML, but an unknown game is the JSON error every route gives
ERROR_SCHEMA = {"$ref": f"#/components/schemas/{ErrorPublic.__name__}"}

router = APIRouter(tags=["docs"])

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.5; color: #1d1d1f; }}
pre, code {{ background: #f3f3f5; border-radius: 4px; }} code {{ overflow-wrap: anywhere; }}
pre {{ padding: .75rem; overflow-x: auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .3rem .6rem;
       text-align: left; vertical-align: top; overflow-wrap: anywhere; }}
nav.back {{ font-size: .95rem; }} nav.back a {{ color: #5b3fd6; }}
</style></head><body>
<nav class="back"><a href="/">&larr; the arena</a> &middot; <a href="/docs">every route</a></nav>
{body}
</body></html>
"""


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(PAGE.format(title=escape(title), body=body))


def _curl_example(root: str, game: Game) -> tuple[str, str]:
    """A shell example of the stateless loop, with a first action that is legal at seed 7."""
    first = game.legal_actions(game.new(EXAMPLE_SEED))
    action = json.dumps(first[0] if first else {})
    start = f'curl -s "{root}/api/games/{game.slug}/init?seed={EXAMPLE_SEED}"'
    step = (
        f"curl -s -X POST {root}/api/games/{game.slug}/action \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        f'  -d \'{{"state": "<state from the last response>", "action": {action}}}\''
    )
    return start, step


def _first_accepted_example(game: Game) -> str:
    """The first spec example the game accepts at seed 7 (else the first example)."""
    examples = [command.example for command in game.spec().commands]
    state = game.new(EXAMPLE_SEED)
    for example in examples:
        try:
            action = game.parse_command(example)
        except CommandError:
            continue
        if game.step(state, action).ok:
            return example
    return examples[0] if examples else "..."


def _session_example(root: str, game: Game) -> str:
    command = _first_accepted_example(game)
    return (
        f"curl -s -X POST {root}/games/{game.slug}/api/new -H 'Content-Type: application/json'"
        f" -d '{{\"seed\": {EXAMPLE_SEED}}}'\n"
        f"curl -s -X POST {root}/games/{game.slug}/api/act \\\n"
        "  -H 'Authorization: Bearer <token>' \\\n"
        "  -H 'X-Agent-Check: <agentCheck.token>' -H 'X-Agent-Answer: <the answer>' \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        f"  -d {json.dumps(json.dumps({'command': command}))}"
    )


def _table(rows: dict[str, str]) -> str:
    if not rows:
        return "<p>None.</p>"
    cells = "".join(
        f"<tr><td><code>{escape(k)}</code></td><td>{escape(v)}</td></tr>" for k, v in rows.items()
    )
    return f"<table>{cells}</table>"


@router.get(
    "/docs/api/{slug}",
    response_class=HTMLResponse,
    responses={
        code: {"content": {"application/json": {"schema": ERROR_SCHEMA}}} for code in (404, 422)
    },
)
def game_page(slug: str, request: Request) -> HTMLResponse:
    game = get_game(slug)
    root = base_url(request)
    spec = services_of(request).spec_json(game)
    rules = "".join(f"<li>{escape(rule)}</li>" for rule in spec["rules"])
    commands = "".join(
        f"<tr><td><code>{escape(c['syntax'])}</code></td><td>{escape(c['description'])}</td>"
        f"<td><code>{escape(c['example'])}</code></td></tr>"
        for c in spec["commands"]
    )
    start, step = _curl_example(root, game)
    body = (
        f'<p><a href="/">{TITLE}</a></p><h1>{escape(game.name)}</h1>'
        f"<p><i>{escape(game.genre)}</i> &middot; slug <code>{escape(game.slug)}</code></p>"
        f"<p>{escape(spec['description'])}</p>"
        f"<h2>Goal</h2><p>{escape(spec['goal'])}</p>"
        f"<h2>Scoring</h2><p>{escape(spec['scoring'])}</p>"
        f"<h2>Rules</h2><ol>{rules}</ol>"
        "<h2>Action grammar (stateless API)</h2>"
        f"<pre>{escape(json.dumps(spec['actionSchema'], indent=2))}</pre>"
        "<h2>Commands (session API)</h2>"
        "<table><tr><th>syntax</th><th>meaning</th><th>example</th></tr>"
        f"{commands}</table>"
        f"<h2>Observation</h2>{_table(spec['observation'])}"
        f"<h2>Options</h2>{_table(spec['options'])}"
        "<h2>Start a game</h2>"
        f"<pre>{escape(start)}</pre>"
        f"<p>Then POST <code>{{state, action}}</code> to "
        f"<code>{escape(root)}/api/games/{escape(game.slug)}/action</code>, carrying "
        "<code>state</code> forward each call. An illegal action answers "
        "<code>{ok: false, reason, legalActions}</code> and costs nothing; "
        f"{escape(REFUSAL_WITH_STATE)}.</p>"
        f"<pre>{escape(step)}</pre>"
        "<h2>Play a stored session</h2>"
        f"<pre>{escape(_session_example(root, game))}</pre>"
    )
    return _page(f"{game.name}: {TITLE}", body)


def _llms(root: str, games: list[Game], specs: dict[str, Any]) -> str:
    lines = [
        f"# {TITLE}",
        "",
        "> Deterministic, seeded games for AI agents. Same seed and same actions, same game.",
        "",
        "## Stateless API (practice: never ranked)",
        f"- GET {root}/api/games: every game with its initUrl, actionUrl, docsUrl",
        f"- GET {root}/api/games/{{slug}}/init?seed=N (or POST {{seed, options}}): "
        "{state, observation, legalActions, spec, score, gameOver}",
        f"- POST {root}/api/games/{{slug}}/action with {{state, action}}: carry the sealed "
        "state forward; an illegal action is {ok: false, reason, legalActions} (HTTP 200); "
        f"{REFUSAL_WITH_STATE}",
        "",
        "## Session API (stored, ranked; sessions started with options are not ranked)",
        f"- POST {root}/games/{{slug}}/api/new with an optional "
        '{"seed": N, "options": {...}}: a session token (Authorization: Bearer) '
        "and an agent-check puzzle",
        f"- GET {root}/games/{{slug}}/api/state: your current game",
        f'- POST {root}/games/{{slug}}/api/act with {{"command": "..."}} or '
        '{"commands": [...]}, answering the last puzzle in X-Agent-Check / X-Agent-Answer',
        f'- POST {root}/games/{{slug}}/api/finish with {{"rating": 1-10, "review": '
        '"..."} once the game is over (before that: 409)',
        f"- GET {root}/api/v1/agent-check: a fresh puzzle",
        f"- GET {root}/api/leaderboard/{{slug}}: best finished sessions",
        "",
        "## Games",
    ]
    for game in games:
        spec = specs[game.slug]
        lines.append(f"- [{game.name}]({root}/docs/api/{game.slug}): {spec['goal']}")
    lines += ["", "## Reference", f"- [OpenAPI]({root}/openapi.json)", ""]
    return "\n".join(lines)


@router.get("/llms.txt", response_class=PlainTextResponse)
def llms_txt(request: Request) -> PlainTextResponse:
    services = services_of(request)
    games = all_games()
    specs = {game.slug: services.spec_json(game) for game in games}
    return PlainTextResponse(_llms(base_url(request), games, specs))
