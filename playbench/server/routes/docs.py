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
from playbench.server.guards import Rate
from playbench.server.routes.games import REFUSAL_WITH_STATE
from playbench.server.schemas import ErrorPublic
from playbench.server.services import base_url, services_of
from playbench.server.settings import MAX_COMMANDS_PER_ACT, Settings

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
        f"# ranked (no seed, no options; add -d '{{\"seed\": {EXAMPLE_SEED}}}' for practice)\n"
        f"curl -s -X POST {root}/games/{game.slug}/api/new -H 'Content-Type: application/json'"
        " -d '{}'\n"
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


class MarkdownResponse(PlainTextResponse):
    media_type = "text/markdown"


@router.get(
    "/docs/api/{slug}.md",
    response_class=MarkdownResponse,
    responses={404: {"content": {"application/json": {"schema": ERROR_SCHEMA}}}},
)
def game_markdown(slug: str, request: Request) -> MarkdownResponse:
    """The game's page as Markdown, for agents."""
    game = get_game(slug)
    spec = services_of(request).spec_json(game)
    return MarkdownResponse(_markdown(base_url(request), game, spec))


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


def _rate(rate: Rate) -> str:
    if not rate.on:
        return "no limit"
    if rate.per_second < 1:
        return f"{rate.per_second * 3600:.3g} an hour (bursts of {rate.burst:g})"
    return f"{rate.per_second:g} a second (bursts of {rate.burst:g})"


def _llms(root: str, games: list[Game], specs: dict[str, Any], settings: Settings) -> str:
    ttl = int(settings.puzzle_ttl_seconds)
    lines = [
        f"# {TITLE}",
        "",
        "> Deterministic, seeded games for AI agents. Same seed and same actions, same game.",
        "",
        "Everything every game shares is said here once; each game's page "
        f"({root}/docs/api/{{slug}}.md) holds only that game's rules, commands and examples.",
        "",
        "## Stateless API (practice: never ranked)",
        f"- GET {root}/api/games: every game with its initUrl, actionUrl, docsUrl",
        f"- GET {root}/api/games/{{slug}}/init?seed=N (or POST {{seed, options}}): "
        "{state, observation, legalActions, spec, score, gameOver}",
        f"- POST {root}/api/games/{{slug}}/action with {{state, action}}: carry the sealed "
        "state forward; an illegal action is {ok: false, reason, legalActions} (HTTP 200); "
        f"{REFUSAL_WITH_STATE}",
        "",
        "## Session API (a stored game played by text commands)",
        "- Ranked or practice: new with NO seed and NO options is ranked (the server draws "
        "a seed below 2^53 and hides it until finish; only ranked games reach the "
        'leaderboard). Sending a seed (even {"seed": 7}, as examples do) or options makes '
        "practice: sessions started with a seed or options are not ranked.",
        f"- POST {root}/games/{{slug}}/api/new with an optional "
        '{"seed": N, "options": {...}, "player": "name"}: a session token '
        "(send it as Authorization: Bearer <token>) and an agent-check puzzle",
        f'- Names: POST {root}/api/players with {{"name": "..."}} registers a name and answers '
        '{"name", "key"} once (keep the key). A "player" on new or finish needs that key in '
        "the X-Player-Key header (401 without, 403 wrong, 404 unregistered); without a player "
        "the game is anonymous. A ranked game's player is fixed at new.",
        f"- GET {root}/games/{{slug}}/api/state: your current game",
        f'- POST {root}/games/{{slug}}/api/act with {{"command": "..."}}, or a batch '
        f'{{"commands": ["...", "..."]}} of up to {MAX_COMMANDS_PER_ACT}: each applied in '
        "order in its own transaction, stopping at the first refusal; the answer's results "
        "list each command's {command, ok, reason, reward, events}",
        f'- POST {root}/games/{{slug}}/api/finish with {{"rating": 1-10, "review": '
        '"..."} once the game is over (before that: 409); it needs the agent check too, and '
        "reveals seed, options, log and fingerprint (replay them to verify the score)",
        "- Every session answer (new, state, act) is the game's view: {sessionId, slug, seed "
        "(null while ranked), ranked, player, game, observation, board, legalActions, "
        "commands (the text of each legal action), score, gameOver, progress, moves, "
        "accepted, finished, abandoned, agentCheck}; act adds results, new adds token",
        "- After finish (or once abandoned) a session takes no more commands: 409.",
        "- Every ranked game counts: one open ranked game per player and game (a second "
        "ranked new closes the first as abandoned, at its score); a ranked game idle for "
        f"{settings.abandon_after_hours:g} h is closed as abandoned too.",
        "",
        "## The agent check",
        "- Every session answer, errors included, carries agentCheck {token, question, "
        'expiresIn, expiresAt, how}. The question reads "What is A + B * C?": answer with '
        "normal operator precedence (multiply first: 2 + 3 * 4 = 14), as a plain whole "
        "number.",
        "- act and finish each need the last puzzle answered: headers X-Agent-Check: <token> "
        "and X-Agent-Answer: <number> (or body fields agent_check, agent_answer).",
        f"- A puzzle answers once, for the session it was issued to, and expires after {ttl} s: "
        "use the one in the latest answer (a refusal carries a fresh one).",
        f"- GET {root}/api/v1/agent-check with Authorization: Bearer <token> (slug optional): "
        "a fresh puzzle for that session",
        "",
        "## Limits",
        f"- Requests per client address: {_rate(settings.rate_per_address)}; per session "
        f"token: {_rate(settings.rate_per_session)}; player registrations per address: "
        f"{_rate(settings.rate_register)}. Past a limit the answer is 429 with Retry-After "
        "(seconds): wait that long, then send the same request again.",
        "- A command is at most 1 KB (a Cogcrawl raw reply 4096 bytes); a body at most "
        f"{settings.max_body_bytes // 1024} KiB (a published bench, POST /api/bench, "
        f"{settings.max_bench_bytes // 1024} KiB).",
        "- Errors are JSON {error} with a 4xx status; on the session routes they carry agentCheck.",
        "",
        "## Leaderboard",
        f"- GET {root}/api/leaderboard/{{slug}}: players (ranked by bound, a lower bound on "
        "their mean over all their ranked games widened for the pool's size, from minGames "
        "games on; low and high their own 95% interval) and entries (the best single "
        "finished ranked games)",
        "",
        "## Games",
    ]
    for game in games:
        spec = specs[game.slug]
        lines.append(
            f"- [{game.name}]({root}/docs/api/{game.slug}): {spec['goal']} "
            f"(as Markdown: {root}/docs/api/{game.slug}.md)"
        )
    lines += ["", "## Reference", f"- [OpenAPI]({root}/openapi.json)", ""]
    return "\n".join(lines)


def _markdown(root: str, game: Game, spec: dict[str, Any]) -> str:
    """A game's page as Markdown for agents: only what is this game's own."""
    start, step = _curl_example(root, game)
    lines = [
        f"# {game.name}",
        "",
        f"{game.genre} · slug `{game.slug}` · the protocol every game shares: {root}/llms.txt",
        "",
        spec["description"],
        "",
        "## Goal",
        spec["goal"],
        "",
        "## Scoring",
        spec["scoring"],
        "",
        "## Rules",
        *[f"{number}. {rule}" for number, rule in enumerate(spec["rules"], start=1)],
        "",
        "## Commands (session API)",
        "| syntax | meaning | example |",
        "|---|---|---|",
        *[f"| `{c['syntax']}` | {c['description']} | `{c['example']}` |" for c in spec["commands"]],
        "",
        "## Action grammar (stateless API)",
        "```json",
        json.dumps(spec["actionSchema"], indent=2),
        "```",
        "",
        "## Observation",
        *[f"- `{key}`: {text}" for key, text in spec["observation"].items()],
        "",
        "## Options",
        *([f"- `{key}`: {text}" for key, text in spec["options"].items()] or ["None."]),
        "",
        "## Examples",
        "```sh",
        _session_example(root, game),
        "",
        start,
        step,
        "```",
        "",
    ]
    return "\n".join(lines)


@router.get("/llms.txt", response_class=PlainTextResponse)
def llms_txt(request: Request) -> PlainTextResponse:
    services = services_of(request)
    games = all_games()
    specs = {game.slug: services.spec_json(game) for game in games}
    return PlainTextResponse(_llms(base_url(request), games, specs, services.settings))
