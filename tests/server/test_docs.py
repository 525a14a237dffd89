"""Pages for people and agents: index, one API page per game, llms.txt, OpenAPI."""

from __future__ import annotations

import json
import re
from html import escape, unescape

from playbench.core import get_game


def test_game_page_shows_the_spec_and_a_curl_example(client, slug):
    game = get_game(slug)
    spec = game.spec()
    reply = client.get(f"/docs/api/{slug}")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")
    page = reply.text
    for text in (game.name, spec.goal, spec.scoring, *spec.rules[:3]):
        assert escape(text) in page
    for command in spec.commands:
        assert escape(command.syntax) in page and escape(command.example) in page
    assert escape(json.dumps(spec.action_schema, indent=2)) in page
    assert f"curl -s &quot;http://testserver/api/games/{slug}/init?seed=7&quot;" in page
    first = json.dumps(game.legal_actions(game.new(7))[0])
    assert escape(first) in page, "the curl example's action is legal at seed 7"


def test_llms_txt_is_the_entry_point_for_agents(client, slug):
    reply = client.get("/llms.txt")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    text = reply.text
    assert text.startswith("# playbench arena\n")
    assert f"(http://testserver/docs/api/{slug}): {get_game(slug).spec().goal}" in text
    for route in ("/api/games/{slug}/init", "/games/{slug}/api/act", "/api/v1/agent-check"):
        assert route in text


def test_index_links_every_game(client, slug):
    page = client.get("/").text
    assert f'href="/docs/api/{slug}"' in page and 'href="/llms.txt"' in page


def test_openapi_lists_every_route_with_response_models(client):
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/games",
        "/api/games/{slug}/init",
        "/api/games/{slug}/action",
        "/games/{slug}/api/new",
        "/games/{slug}/api/state",
        "/games/{slug}/api/act",
        "/games/{slug}/api/finish",
        "/api/v1/agent-check",
        "/api/leaderboard/{slug}",
        "/docs/api/{slug}",
        "/llms.txt",
    ):
        assert path in paths, path
    action = paths["/api/games/{slug}/action"]["post"]["responses"]
    assert action["200"]["content"]["application/json"]["schema"]["$ref"].endswith("ActionPublic")
    assert action["400"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorPublic")


def test_bare_benchmark_endpoint_is_not_served_by_default(client):
    assert client.post("/__bench/bare", content=b"{}").status_code == 404


def _session_command(page):
    """The command text of the page's session example (the -d body of its act call)."""
    (body,) = re.findall(r"api/act .*?-d (&quot;.*?&quot;)</pre>", page, flags=re.S)
    return json.loads(json.loads(unescape(body)))["command"]


def test_session_example_command_is_accepted_at_seed_7(client, slug):
    game = get_game(slug)
    command = _session_command(client.get(f"/docs/api/{slug}").text)
    assert game.step(game.new(7), game.parse_command(command)).ok, command


def test_docs_say_to_carry_the_state_of_a_refusal_that_has_one(client, slug):
    carry = "a refusal that carries a state"
    assert carry in client.get(f"/docs/api/{slug}").text
    assert carry in client.get("/llms.txt").text
    assert carry in client.get("/api/games").json()["howToPlay"]


def test_llms_txt_says_sessions_with_a_seed_or_options_are_not_ranked(client):
    text = client.get("/llms.txt").text
    assert "Every other new is practice: no body, {}" in text
    assert '{"options": {}} and {"options": null}. ranked true with a seed or options' in text
    assert "seed null is read as no seed" in text and "null and {} are read as no options" in text


def test_llms_txt_names_the_optional_body_of_new_and_the_early_finish_answer(client):
    text = client.get("/llms.txt").text
    assert (
        '/games/{slug}/api/new with an optional {"ranked": true|false, "seed": N, "options": {...}'
        in text
    )
    assert "once the game is over (before that: 409)" in text


def test_llms_txt_says_what_an_agent_with_only_it_tripped_on(client):
    """Each line an agent that had only /llms.txt needed (issue 20)."""
    text = client.get("/llms.txt").text
    for said in (
        'POST http://testserver/api/players with {"name": "..."}',
        "X-Player-Key header",
        'Ranked only when asked: new with {"ranked": true}',
        "Every other new is practice",
        "normal operator precedence (multiply first: 2 + 3 * 4 = 14)",
        "A puzzle answers once, for the session it was issued to, and expires after 300 s",
        "finish with",
        "it needs the agent check (and X-Player-Key when the session has a player)",
        "and so does finish of every session that has a player",
        "log: the stateless action objects",
        "the last answer's score and fingerprint equal the ones finish gave",
        "closedAsAbandoned (the ids of this player's open ranked sessions",
        "rank: the finished game's place among this game's finished ranked games",
        "One answer per batch",
        "Requests per client address: 200 a second (bursts of 400); per session token: "
        "100 a second (bursts of 200); player registrations per address: 10 an hour",
        "429 with Retry-After",
        "Every session answer (new, state, act) is the game's view: {sessionId,",
        '{"commands": ["...", "..."]} of up to 100',
        "agent-check with Authorization: Bearer <token> (slug optional)",
    ):
        assert said in text, said


def test_each_game_page_is_also_markdown_without_the_shared_rules(client, slug):
    game = get_game(slug)
    reply = client.get(f"/docs/api/{slug}.md")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/markdown")
    text = reply.text
    assert text.startswith(f"# {game.name}\n") and "http://testserver/llms.txt" in text
    spec = game.spec()
    assert spec.goal in text and all(rule in text for rule in spec.rules)
    assert all(f"`{command.example}`" in text for command in spec.commands)
    assert "X-Agent-Answer: <the answer>" in text  # the example, not the rules again
    assert "operator precedence" not in text and "Retry-After" not in text
    assert f"(as Markdown: http://testserver/docs/api/{slug}.md)" in client.get("/llms.txt").text
    assert client.get("/docs/api/nope.md").status_code == 404


def test_the_session_example_starts_a_ranked_game(client, slug):
    page = client.get(f"/docs/api/{slug}.md").text
    new = f"/games/{slug}/api/new -H 'Content-Type: application/json' -d '{{\"ranked\": true}}'"
    assert new in page
    assert "for practice)" in page


def test_openapi_says_moves_counts_the_games_moves_and_accepted_the_commands(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("SessionView", "LeaderboardEntry"):
        description = schemas[name]["properties"]["moves"]["description"]
        assert description.startswith("actions that moved the game on"), name
    accepted = schemas["SessionView"]["properties"]["accepted"]["description"]
    assert accepted == "commands the game accepted, queries included"
