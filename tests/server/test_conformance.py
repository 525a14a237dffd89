"""What the OpenAPI schema promises, the routes keep: a 405 names in ``Allow`` every
method of the path (not only those of its first route), the refusals the schema can
state are stated (a player name's length and characters, a seed's exact bound, one of
command or commands, a ranked game's missing seed, a sealed state's minimum length), a
required header missing is answered 401, and the event stream's schema describes its
events. Schemathesis finds no request valid by the schema that a route refuses, but for
the rules no JSON Schema can state (:data:`UNSTATABLE`): on the four routes that have
them, a refusal must name one of its route's, or the test fails."""

from __future__ import annotations

import re
import tempfile
import unicodedata
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    allow_header_conformance,
    content_type_conformance,
    missing_required_header,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)
from schemathesis.core.transport import expand_status_codes

from playbench.server import Settings, create_app
from playbench.server.schemas import PLAYER_PATTERN
from tests.server.conftest import served_slugs

CHECKS = [
    not_a_server_error,
    unsupported_method,
    allow_header_conformance,
    positive_data_acceptance,
    missing_required_header,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
#: the refusals of a request valid by the schema that no JSON Schema can state, as their
#: errors say them: a state the server did not seal (400); an action object outside the
#: game's grammar, or options the game does not take (422: each game's own, and the game
#: is in the path); a name in two scripts, or in look-alikes of Latin letters (422)
UNSEALED = (400, r"state does not verify: it was edited, truncated or not sealed by this server")
GRAMMAR = (422, r"action \d+ \(.*\) was refused and changed nothing: .+")
OPTIONS = (422, r"unknown options \[.*\]; .+ takes .+|.+ takes no options, got .+")
SCRIPTS = (422, r".* mixes scripts \(.+\): a name is written in one script, .+")
#: the routes where such a refusal can come, and which
UNSTATABLE = {
    "POST /api/games/{slug}/action": (UNSEALED,),
    "POST /api/games/{slug}/frames": (GRAMMAR, OPTIONS),
    "POST /api/games/{slug}/init": (OPTIONS,),
    "POST /api/players": (SCRIPTS,),
}


def refused_only_for_an_unstatable_rule(ctx, response, case):
    """Schemathesis's positive acceptance on a route of :data:`UNSTATABLE`: a request valid
    by the schema is answered as that check expects (2xx; 404 for a game the path names
    that does not exist), or refused for one of the route's unstatable rules."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None  # an invalid request, which the other checks hold to the schema
    expected = expand_status_codes(ctx.config.positive_data_acceptance.expected_statuses)
    if response.status_code in expected:
        return None
    error = response.json().get("error", "")
    for status, reason in UNSTATABLE[case.operation.label]:
        if response.status_code == status and re.fullmatch(reason, error, re.DOTALL):
            return None
    raise AssertionError(
        f"{case.operation.label} refused a request valid by its schema for a reason the "
        f"schema could state: {response.status_code} {error}"
    )


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as client:
        yield client


def test_a_405_names_every_method_of_the_path(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path, methods in paths.items():
        concrete = re.sub(r"\{[^}]+\}", "delvewick", path)
        answer = client.request("PATCH", concrete)
        if answer.status_code == 405:
            assert answer.headers["allow"] == ", ".join(sorted(m.upper() for m in methods))


def test_the_schema_states_a_player_names_length(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]["PlayerCreate"]
    name = schema["properties"]["name"]
    assert (name["minLength"], name["maxLength"]) == (1, 40)
    assert client.post("/api/players", json={"name": ""}).status_code == 422


_DATA = tempfile.TemporaryDirectory(prefix="playbench-conformance-")
_schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(Settings(data_dir=Path(_DATA.name)))
)


@_schema.hook
def map_path_parameters(context, path_parameters):
    """Every game named in a path one the server serves (``tests/server/test_openapi_fuzz.py``
    holds the routes to the schema for unknown games too)."""
    slug = (path_parameters or {}).get("slug")
    if isinstance(slug, str):
        slugs = served_slugs()
        path_parameters["slug"] = slugs[len(slug) % len(slugs)]
    return path_parameters


def _check(case):
    if case.operation.label in UNSTATABLE:
        checks = [*CHECKS, refused_only_for_an_unstatable_rule]
        case.call_and_validate(checks=checks, excluded_checks=[positive_data_acceptance])
    else:
        case.call_and_validate(checks=CHECKS)


@_schema.parametrize()
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_route_keeps_what_its_schema_states(case):
    _check(case)


def test_each_unstatable_rule_is_recognised_by_its_refusal(client):
    """Each rule of :data:`UNSTATABLE`, broken by a request valid by the schema, is refused
    with the status and the words the check recognises (no other refusal is)."""
    state = client.post("/api/games/gem-swap/init", json={"seed": 3}).json()["state"]
    broken = {
        UNSEALED: ("action", {"state": state[:-4] + "AAAA", "action": {"command": "swap"}}),
        GRAMMAR: ("frames", {"seed": 3, "actions": [{"command": "jump"}]}),
        OPTIONS: ("init", {"seed": 3, "options": {"colours": 9}}),
        SCRIPTS: ("players", {"name": "Mаrta"}),
    }
    for (status, reason), (route, body) in broken.items():
        path = "/api/players" if route == "players" else f"/api/games/gem-swap/{route}"
        answer = client.post(path, json=body)
        assert answer.status_code == status, answer.text
        assert re.fullmatch(reason, answer.json()["error"], re.DOTALL), answer.text
        assert (status, reason) in UNSTATABLE[f"POST {path.replace('gem-swap', '{slug}')}"]


@_schema.include(path_regex="^/api/(games/\\{slug\\}/(action|frames|init)|players)$").parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_routes_with_unstatable_rules_refuse_only_for_them(case):
    _check(case)


def test_a_seeds_bound_is_exact_in_the_schema(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    seed = schemas["FramesCreate"]["properties"]["seed"]
    assert (seed["minimum"], seed["exclusiveMaximum"]) == (0, 2**63)
    assert "9223372036854775808" in client.get("/openapi.json").text
    body = {"seed": 2**63 - 1, "actions": []}
    assert client.post("/api/games/gem-swap/frames", json=body).status_code == 200
    body["seed"] = 2**63
    assert client.post("/api/games/gem-swap/frames", json=body).status_code == 422


def test_an_integer_may_be_written_with_no_fraction(client):
    assert client.post("/api/games/gem-swap/init", json={"seed": 7.0}).status_code == 200
    for seed in (7.5, "7", True):
        assert client.post("/api/games/gem-swap/init", json={"seed": seed}).status_code == 422


def test_the_name_pattern_refuses_exactly_the_unprintable_categories():
    """The hard-coded ranges against this Python's Unicode data, every code point."""
    refused = {"Cc", "Cf", "Co", "Zl", "Zp"}
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue  # no text (refused before the pattern)
        char = chr(code)
        category = unicodedata.category(char)
        printable = category not in refused and (category != "Zs" or char == " ")
        assert bool(re.fullmatch(PLAYER_PATTERN, "a" + char)) is printable, hex(code)
    assert re.fullmatch(PLAYER_PATTERN, "   ") is None
    assert re.fullmatch(PLAYER_PATTERN, " a ") is not None


def test_the_event_streams_schema_is_one_event(client):
    paths = client.get("/openapi.json").json()["paths"]
    answer = paths["/api/spectate/sessions/{session_id}/stream"]["get"]["responses"]["200"]
    event = answer["content"]["text/event-stream"]["schema"]
    assert event["required"] == ["event", "id", "data"]
    assert event["properties"]["event"]["enum"] == ["state", "end"]
