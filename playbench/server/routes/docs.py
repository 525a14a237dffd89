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
from playbench.server.routes.pages import framed
from playbench.server.schemas import ErrorPublic
from playbench.server.services import base_url, services_of
from playbench.server.settings import MAX_COMMANDS_PER_ACT, Settings

EXAMPLE_SEED = 7
TITLE = "playbench arena"

#: the pages answer HTML, but an unknown game is the JSON error every route gives
ERROR_SCHEMA = {"$ref": f"#/components/schemas/{ErrorPublic.__name__}"}

router = APIRouter(tags=["docs"])


def _page(title: str, body: str) -> HTMLResponse:
    return framed(title, f'<main class="doc">{body}</main>')


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
        f"# ranked (-d '{{\"seed\": {EXAMPLE_SEED}}}' instead for practice)\n"
        f"curl -s -X POST {root}/games/{game.slug}/api/new -H 'Content-Type: application/json'"
        " -d '{\"ranked\": true}'\n"
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
    return f'<div class="table-wrap"><table class="doc-table">{cells}</table></div>'


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
        f"<h1>{escape(game.name)} API</h1>"
        f'<p class="lede"><span class="genre">{escape(game.genre)}</span> &middot; slug '
        f"<code>{escape(game.slug)}</code></p>"
        f'<nav class="doc-links"><a href="/play/{escape(game.slug)}">play it</a>'
        f'<a href="/docs/api/{escape(game.slug)}.md">as Markdown</a>'
        '<a href="/llms.txt">what every game shares (llms.txt)</a>'
        '<a href="/docs">every route</a></nav>'
        f"<p>{escape(spec['description'])}</p>"
        f"<h2>Goal</h2><p>{escape(spec['goal'])}</p>"
        f"<h2>Scoring</h2><p>{escape(spec['scoring'])}</p>"
        f"<h2>Rules</h2><ol>{rules}</ol>"
        "<h2>Action grammar (stateless API)</h2>"
        f"<pre>{escape(json.dumps(spec['actionSchema'], indent=2))}</pre>"
        "<h2>Commands (session API)</h2>"
        '<div class="table-wrap"><table class="doc-table">'
        "<tr><th>syntax</th><th>meaning</th><th>example</th></tr>"
        f"{commands}</table></div>"
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
        "{seed, state, fingerprint, observation, legalActions, spec, score, gameOver}",
        f"- POST {root}/api/games/{{slug}}/action with {{state, action}}: carry the sealed "
        "state forward; an accepted action answers {ok: true, state, reward, events, "
        "observation, score, gameOver, legalActions}, and fingerprint too on the step that "
        "ends the game; an illegal action is "
        f"{{ok: false, reason, legalActions}} (HTTP 200); {REFUSAL_WITH_STATE}",
        "- fingerprint (on init and on the step that ends the game): a hash of the whole "
        "state, hidden parts included. Two runs with the same seed, options and actions end "
        "on the same fingerprint.",
        "",
        "## Seeds and options (the same at every door: stateless, session, MCP)",
        "- seed: a whole number from 0 to 2^63-1, sent as a JSON number (not a string; "
        "past 2^53 write its digits, as JavaScript's numbers would round it). seed null "
        "is read as no seed: the server draws one and answers it.",
        "- options: an object of the game's options; null and {} are read as no options.",
        "",
        "## Session API (a stored game played by text commands)",
        '- Ranked only when asked: new with {"ranked": true} (and no seed, no options) is '
        "ranked (the server draws a seed below 2^53 and hides it until finish; only ranked "
        "games reach the leaderboard). Every other new is practice: no body, {}, "
        '{"ranked": false}, {"seed": 7}, {"seed": null} (a drawn seed, shown), '
        '{"options": {}} and {"options": null}. ranked true with a seed or options is a 422.',
        f"- POST {root}/games/{{slug}}/api/new with an optional "
        '{"ranked": true|false, "seed": N, "options": {...}, "player": "name"}: a session token '
        "(send it as Authorization: Bearer <token>) and an agent-check puzzle",
        f'- Names: POST {root}/api/players with {{"name": "..."}} registers a name and answers '
        '{"name", "key"} once (keep the key). new with a "player" needs that key in the '
        "X-Player-Key header, and so does finish of every session that has a player (send "
        "it on finish even when the finish body names no player): 401 without, 403 wrong, "
        "404 unregistered. Without a player the game is anonymous. A ranked game's player "
        "is fixed at new.",
        f"- GET {root}/games/{{slug}}/api/state: your current game",
        f'- POST {root}/games/{{slug}}/api/act with {{"command": "..."}}, or a batch '
        f'{{"commands": ["...", "..."]}} of up to {MAX_COMMANDS_PER_ACT}: each applied in '
        "order in its own transaction, stopping at the first refusal. One answer per batch "
        "(one puzzle answered, one new puzzle back): the view after the last command "
        "applied, and results listing each command's {command, ok, reason, reward, events}",
        f'- POST {root}/games/{{slug}}/api/finish with {{"rating": 1-10, "review": '
        '"..."} once the game is over (before that: 409); it needs the agent check (and '
        "X-Player-Key when the session has a player), and answers {sessionId, slug, player, "
        "score, rating, review, rank, seed, options, log, fingerprint, agentCheck}.",
        "- rank: the finished game's place among this game's finished ranked games (1 + the "
        "number with a higher score, or the same score finished earlier); null for practice.",
        "- log: the stateless action objects (the same JSON the stateless action route "
        "takes) of every step that moved the game, in order; refused commands that changed "
        "nothing are not in it.",
        f"- Verify a finished game: POST {root}/api/games/{{slug}}/init with the revealed "
        "{seed, options}, then POST each log entry in turn as the action, carrying state "
        "forward: the last answer's score and fingerprint equal the ones finish gave.",
        "- Every session answer (new, state, act) is the game's view: {sessionId, slug, seed "
        "(null while ranked), ranked, player, game, observation, board, legalActions, "
        "commands (the text of each legal action), score, gameOver, progress, moves, "
        "accepted, finished, abandoned, agentCheck}; act adds results; new adds token and "
        "closedAsAbandoned (the ids of this player's open ranked sessions of the game that "
        "this ranked new closed as abandoned; empty for practice and anonymous games)",
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
        "finished games on; low and high their own 95% interval) and entries (the best single "
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
