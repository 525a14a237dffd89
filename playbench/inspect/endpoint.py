"""The Inspect door's start-up check: the bench's own
(:func:`~playbench.agents.llm.endpoint.check_endpoint`), made when a task is created,
before the eval plays, against the endpoint of the model Inspect evaluates.

It reaches the endpoints of Inspect's OpenAI-compatible providers (``openai-api/...``,
``llama-cpp-python/...``, ``vllm/...``, ``openai/...`` on its base URL): the model must be
one ``/v1/models`` lists, and the first turn's request must pass, its reply format
included. An endpoint that refuses OpenAI's ``json_schema`` form but takes the schema
inside a ``json_object`` format (llama-cpp-python's server) is found as the bench finds
it, and the seat sends it that form (:func:`request_config`). What the check refuses
stops ``inspect eval`` before the first sample, in one line, exiting 1. Other providers
(Anthropic, Google, ``mockllm``) have no such endpoint to check and are not checked.
"""

from __future__ import annotations

from typing import Any

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import GenerateConfig, Model
from inspect_ai.model._model import active_model

from playbench.agents.base import AgentError
from playbench.agents.llm import Ask, LlmSettings, check_endpoint
from playbench.agents.llm.prompts import JSON_OBJECT, SCHEMA_IN_JSON_SCHEMA
from playbench.core.game import Game
from playbench.core.match import Match
from playbench.inspect.schema import response_schema


class EndpointRefused(PrerequisiteError):
    """The model's endpoint failed the start-up check: Inspect prints the message alone
    (no traceback) and ``inspect eval`` exits 1."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.message)


def endpoint_of(model: Model) -> tuple[str, str | None, str | None] | None:
    """The model's name as its endpoint knows it, the endpoint's base URL and the key,
    for an OpenAI-compatible provider; None for any other."""
    from inspect_ai.model._providers.openai import OpenAIAPI
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI

    api: Any = model.api
    if isinstance(api, OpenAICompatibleAPI):
        # the name its requests carry, on the endpoint it has resolved (none yet: a
        # server the provider starts itself, not checked)
        base_url = getattr(api, "base_url", None)
        return (api.service_model_name(), base_url, api.api_key) if base_url else None
    if isinstance(api, OpenAIAPI) and not api.is_azure():
        return api.model_name, api.base_url, api.api_key
    return None


def check_model(reply_format: str, game: Game, seed: int, options: Any) -> str:
    """Check the endpoint of the model being evaluated (none outside an eval, or for a
    provider with no OpenAI-compatible endpoint) as the bench checks its own, asked as
    the first turn of ``game`` on ``seed`` asks; where the reply's schema goes in the
    requests (``schemaIn``). :class:`EndpointRefused` naming what failed."""
    model = active_model()
    found = endpoint_of(model) if model is not None else None
    if found is None:
        return SCHEMA_IN_JSON_SCHEMA
    name, base_url, key = found
    settings = LlmSettings(model=name, base_url=base_url, reply_format=reply_format)
    view = Match.start(game, seed, options or None).view()
    try:
        checked = check_endpoint(settings, game.seat_guide(), view, api_key=key)
    except AgentError as error:
        raise EndpointRefused(f"{model}: {inspect_terms(str(error))}") from None
    return checked.schema_in


def inspect_terms(message: str) -> str:
    """The start-up check's line with the fixes named as Inspect's options."""
    return (
        message.replace("--reply-format ", "-T reply_format=")
        .replace(f"use {JSON_OBJECT}", f"use -T reply_format={JSON_OBJECT}")
        .replace("check --base-url", "check the model's base URL, --model-base-url")
    )


def request_config(ask: Ask) -> GenerateConfig:
    """What a call's generate config adds for the seat's reply format: the schema as
    Inspect's ``response_schema`` (OpenAI's form, which Inspect's providers translate),
    or the request's own ``response_format`` where the endpoint takes the schema inside
    a ``json_object`` format (found by :func:`check_model`); nothing for text."""
    schema = response_schema(ask)
    if schema is not None:
        return GenerateConfig(response_schema=schema)
    fmt = ask.response_format
    if fmt is not None and fmt.get("type") == JSON_OBJECT and "schema" in fmt:
        return GenerateConfig(extra_body={"response_format": fmt})
    return GenerateConfig()
