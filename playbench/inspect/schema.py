"""The reply's JSON Schema as the Inspect door sends it: exactly the schema the bench
sends.

Inspect's :class:`~inspect_ai.util.JSONSchema` has no field for some keywords the seat's
schema uses (``minItems``, ``maxItems``: a move list of 1 to 10 entries), so a schema
read into it loses them, and a model whose decoding the schema constrains could answer
an empty list through Inspect where the bench's request forbids it. :class:`SeatSchema`
is Inspect's type, keeping every other keyword as it came, nested schemas included: a
provider dumps it (``model_dump(exclude_none=True)``) to the very dict the seat built.
"""

from __future__ import annotations

from typing import Optional

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema
from pydantic import ConfigDict

from playbench.agents.llm import Ask


class SeatSchema(JSONSchema):
    """Inspect's JSON Schema type with every keyword kept, at every depth."""

    model_config = ConfigDict(extra="allow")

    items: Optional[SeatSchema] = None  # noqa: UP045 (pydantic resolves the forward form)
    properties: dict[str, SeatSchema] | None = None
    anyOf: list[SeatSchema] | None = None
    additionalProperties: Optional[SeatSchema] | bool | None = None  # noqa: UP045


def response_schema(ask: Ask) -> ResponseSchema | None:
    """The reply's schema as Inspect asks any provider for it, when the seat's reply
    format carries it in OpenAI's form (``json_schema``); ``text`` and ``json_object``
    ask by the prompt alone, as Inspect's model API has no form for any JSON object (the
    schema inside a ``json_object`` format travels as the request's own field:
    :func:`playbench.inspect.endpoint.request_config`)."""
    fmt = ask.response_format
    if fmt is None or ask.schema is None or fmt.get("type") != "json_schema":
        return None
    name = fmt["json_schema"].get("name", ask.purpose)
    return ResponseSchema(name=name, json_schema=SeatSchema.model_validate(ask.schema), strict=True)
