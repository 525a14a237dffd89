"""What the OpenAPI schema promises, the routes keep: a 405 names in ``Allow`` every
method of the path (not only those of its first route), and the refusals the schema
can state are stated (a player name's length)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import allow_header_conformance, not_a_server_error, unsupported_method

from playbench.server import Settings, create_app
from tests.server.test_openapi_fuzz import map_path_parameters

CHECKS = [not_a_server_error, unsupported_method, allow_header_conformance]


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
_schema.hook(map_path_parameters)


@_schema.parametrize()
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_route_answers_an_unsupported_method_by_the_schema(case):
    case.call_and_validate(checks=CHECKS)
