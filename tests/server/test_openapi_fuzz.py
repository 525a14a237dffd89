"""Schemathesis over /openapi.json: no server error and every answer matches its schema.

Bounded for speed: a few examples per route (the hypothesis profile's count, capped).
Half the generated slugs are mapped onto registered games so the game routes are reached.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from playbench.server import Settings, create_app
from tests.server.conftest import served_slugs

EXAMPLES_PER_ROUTE = 12
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


_DATA = tempfile.TemporaryDirectory(prefix="playbench-fuzz-")
schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(Settings(data_dir=Path(_DATA.name)))
)


@schema.hook
def map_path_parameters(context, path_parameters):
    slug = (path_parameters or {}).get("slug")
    if isinstance(slug, str) and len(slug) % 2 == 0:
        slugs = served_slugs()
        path_parameters["slug"] = slugs[len(slug) // 2 % len(slugs)]
    return path_parameters


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_ROUTE,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_answers_match_the_schema(case):
    case.call_and_validate(checks=CHECKS)
