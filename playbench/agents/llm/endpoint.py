"""The model's endpoint: any OpenAI-compatible server, through the official ``openai``
client (chat completions).

One :class:`Endpoint` per process and settings serves every episode that process plays
at once (one connection pool, one :class:`Throttle`). Transient failures (429, 5xx,
timeouts, a dropped connection) are retried by the client with bounded exponential
backoff that honours ``Retry-After`` (``retries`` times), and counted; a 429 also halves
the number of calls the throttle lets into flight, which then grows back by one for every
window of calls that met none. A call that still fails is an :class:`Answer` without text.

:func:`check_endpoint` is the start-up check: the model listed by ``/v1/models`` (where
the endpoint lists them), then one token asked as the first turn would ask it. The API
key is read from the environment when the client is made and is never written anywhere.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from typing import TYPE_CHECKING, Any

import httpx

from playbench.agents.base import AgentError
from playbench.agents.llm.prompts import (
    JSON_OBJECT,
    JSON_SCHEMA,
    SCHEMA_IN_JSON_OBJECT,
    TEXT,
    response_format,
)
from playbench.agents.llm.settings import LlmSettings
from playbench.agents.llm.turn import Answer, Ask
from playbench.core.game import JSON
from playbench.core.seat import SeatGuide

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

#: what the start-up check asks (one token back)
PING = [{"role": "user", "content": "Reply with OK."}]
#: calls in flight a process allows until a run sets its own (``--concurrency``)
DEFAULT_CONCURRENCY = 16
#: what a body that does not decode raises inside the client (JSON, UTF-8) or when a
#: non-JSON body is read as the client's types
NONSENSE = (ValueError, TypeError, AttributeError)


class NotACompletion(Exception):
    """A 200 whose body is no chat completion (an HTML page, text, another JSON)."""


def completion_of(response: object) -> ChatCompletion:
    """``response`` when it is a chat completion with its choices, else
    :class:`NotACompletion` saying what came instead."""
    from openai.types.chat import ChatCompletion

    if isinstance(response, ChatCompletion) and isinstance(response.__dict__.get("choices"), list):
        return response
    shown = " ".join(str(response).split())[:60]
    raise NotACompletion(f"a 200 whose body is no chat completion ({shown!r})")


class Throttle:
    """How many calls may be in flight at once: at most ``ceiling``, halved by a 429 and
    grown back by one after each ``limit`` calls in a row that met none (additive
    increase, multiplicative decrease, as rate-limited clients of record do)."""

    def __init__(self, ceiling: int) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = self.ceiling
        self.in_flight = 0
        #: the most calls that were in flight at once
        self.peak = 0
        #: calls waiting for a slot now
        self.waiting = 0
        self.slowdowns = 0
        self._calm = 0
        self._lock = threading.Condition()

    def __enter__(self) -> Throttle:
        with self._lock:
            if self.in_flight >= self.limit:
                self.waiting += 1
                self._lock.notify_all()
                while self.in_flight >= self.limit:
                    self._lock.wait()
                self.waiting -= 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.in_flight -= 1
            self._lock.notify_all()

    def rate_limited(self) -> None:
        with self._lock:
            self.limit = max(1, self.limit // 2)
            self._calm = 0
            self.slowdowns += 1

    def answered(self) -> None:
        with self._lock:
            if self.limit >= self.ceiling:
                return
            self._calm += 1
            if self._calm >= self.limit:
                self._calm = 0
                self.limit += 1
                self._lock.notify_all()


try:
    import openai
except ImportError:  # the model client is an extra: pip install 'playbench[llm]'
    openai = None  # type: ignore[assignment]

#: what a model agent says when the ``openai`` client is not installed
NO_CLIENT = "a model agent needs the openai client: pip install 'playbench[llm]'"


class Endpoint:
    """The client and throttle of one endpoint in this process."""

    def __init__(
        self,
        settings: LlmSettings,
        concurrency: int = DEFAULT_CONCURRENCY,
        api_key: str | None = None,
    ) -> None:
        if openai is None:
            raise AgentError(NO_CLIENT)
        key = api_key or os.environ.get(settings.api_key_env)
        if not key:
            raise AgentError(
                f"no API key: set {settings.api_key_env} "
                "(or name the variable that holds it with --api-key-env)"
            )
        self.settings = settings
        self.throttle = Throttle(concurrency)
        self._requests = threading.local()
        limits = httpx.Limits(
            max_connections=concurrency + 4, max_keepalive_connections=concurrency
        )
        self.client = openai.OpenAI(
            api_key=key,
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=settings.retries,
            http_client=openai.DefaultHttpxClient(
                limits=limits,
                event_hooks={"request": [self._sent], "response": [self._answered]},
            ),
        )

    def _sent(self, request: Any) -> None:
        self._requests.count = getattr(self._requests, "count", 0) + 1

    def _answered(self, response: httpx.Response) -> None:
        if response.status_code == 429:
            self.throttle.rate_limited()

    def call(self, ask: Ask) -> Answer:
        """One chat completion for ``ask``: its text, or none and why."""
        settings = self.settings
        extra = {"response_format": ask.response_format} if ask.response_format else {}
        self._requests.count = 0
        asked = time.perf_counter()
        with self.throttle:
            # the request's own time starts once it has a slot: the wait is apart
            start = time.perf_counter()
            queued = start - asked
            try:
                response = self.client.chat.completions.create(
                    model=settings.model,
                    messages=ask.messages,  # type: ignore[arg-type]
                    temperature=settings.temperature,
                    max_tokens=settings.max_tokens,
                    **extra,
                )
                response = completion_of(response)
            except openai.APITimeoutError:
                return self._failed(start, queued, f"timed out after {settings.timeout:g} s", True)
            except (openai.OpenAIError, httpx.HTTPError, NotACompletion, *NONSENSE) as error:
                return self._failed(start, queued, one_line(error), False)
            latency = time.perf_counter() - start
        self.throttle.answered()
        usage = response.usage
        choices = response.choices or []
        text = choices[0].message.content if choices else None
        return Answer(
            text=text or "",
            prompt_tokens=usage.prompt_tokens if usage is not None else 0,
            completion_tokens=usage.completion_tokens if usage is not None else 0,
            latency=latency,
            queued=queued,
            retried=self._retried(),
            cut=bool(choices) and choices[0].finish_reason == "length",
        )

    def _retried(self) -> int:
        return max(0, getattr(self._requests, "count", 0) - 1)

    def _failed(self, start: float, queued: float, failure: str, timed_out: bool) -> Answer:
        return Answer(
            text=None,
            latency=time.perf_counter() - start,
            queued=queued,
            failure=failure,
            timed_out=timed_out,
            retried=self._retried(),
        )

    def close(self) -> None:
        self.client.close()


#: the endpoints this process holds, one per settings and concurrency
_ENDPOINTS: dict[tuple[LlmSettings, int], Endpoint] = {}
_ENDPOINTS_LOCK = threading.Lock()


def endpoint_for(settings: LlmSettings, concurrency: int = DEFAULT_CONCURRENCY) -> Endpoint:
    """This process's endpoint for ``settings``, shared by the episodes it plays at once."""
    with _ENDPOINTS_LOCK:
        held = _ENDPOINTS.get((settings, concurrency))
        if held is None:
            held = _ENDPOINTS[(settings, concurrency)] = Endpoint(settings, concurrency)
        return held


def close_endpoints() -> None:
    with _ENDPOINTS_LOCK:
        for endpoint in _ENDPOINTS.values():
            endpoint.close()
        _ENDPOINTS.clear()


# -- the start-up check -------------------------------------------------------------------


def check_endpoint(
    settings: LlmSettings,
    guide: SeatGuide | None = None,
    view: JSON | None = None,
    api_key: str | None = None,
) -> LlmSettings:
    """Check that the endpoint serves the model and takes the first turn's request:
    :class:`AgentError` in one line naming the fix when the key is missing or refused,
    the model not among those ``/v1/models`` lists, the path wrong, the endpoint
    unreachable or still busy after the retries, or the reply format refused.

    With ``json_schema``, an endpoint that refuses OpenAI's form of the schema (at its
    first refusal: a refused form is never asked again) is asked once with the schema
    inside a ``json_object`` format (llama-cpp-python's server, which refuses the other
    form with a 500 naming ``response_format``): the settings returned say which form it
    took.

    An endpoint and model that passed are not checked again in this process (a bench of
    four games checks once). ``api_key``: the key itself, where the caller holds it (an
    Inspect model), else it is read from ``settings.api_key_env``."""
    settings.check()
    with _ENDPOINTS_LOCK:
        passed = _CHECKED.get(settings)
    if passed is not None:
        return passed
    found = _check(settings, guide, view, api_key)
    with _ENDPOINTS_LOCK:
        _CHECKED[settings] = found
    return found


#: the settings whose start-up check passed in this process, and what it found
_CHECKED: dict[LlmSettings, LlmSettings] = {}


def forget_checks() -> None:
    """Check every endpoint again at its next start-up check (a server restarted on the
    same address may serve another model)."""
    with _ENDPOINTS_LOCK:
        _CHECKED.clear()


def _check(
    settings: LlmSettings, guide: SeatGuide | None, view: JSON | None, api_key: str | None
) -> LlmSettings:
    endpoint = Endpoint(settings, 1, api_key)
    client = endpoint.client
    try:
        _check_listed(client, settings)
        try:
            _ping(client, settings, guide, view)
        except openai.APIStatusError as refused:
            if (
                settings.reply_format != JSON_SCHEMA
                or guide is None
                or not _format_refused(refused)
            ):
                raise
            other = dataclasses.replace(settings, schema_in=SCHEMA_IN_JSON_OBJECT)
            try:
                _ping(client, other, guide, view)
            except openai.APIStatusError as again:
                if not _format_refused(again):
                    raise
                raise refused from None
            return other
    except openai.OpenAIError as error:
        raise AgentError(_check_failure(client, settings, error)) from None
    except (NotACompletion, *NONSENSE) as error:
        where = str(client.base_url).rstrip("/")
        said = (
            str(error) if isinstance(error, NotACompletion) else f"a body that {_undecoded(error)}"
        )
        raise AgentError(
            f"the endpoint {where} answered {said}: it is no OpenAI-compatible "
            "chat-completions server (check --base-url: such servers answer under /v1)"
        ) from None
    finally:
        endpoint.close()
    return settings


def _undecoded(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "is not UTF-8 text"
    if isinstance(error, ValueError):
        return f"is not JSON ({one_line(error)})"
    return f"does not read as a chat completion ({one_line(error)})"


def _check_listed(client: openai.OpenAI, settings: LlmSettings) -> None:
    """:class:`AgentError` when the endpoint lists its models and not this one (a server
    that lists none, or has no such route, is asked the model directly)."""
    try:
        served = [str(model.id) for model in client.with_options(max_retries=0).models.list()]
    except (openai.OpenAIError, httpx.HTTPError, *NONSENSE):
        # no list to read (the ping says what the endpoint answers)
        return
    if served and settings.model not in served:
        where = str(client.base_url).rstrip("/")
        shown = ", ".join(served[:10]) + (
            f" and {len(served) - 10} more" if len(served) > 10 else ""
        )
        raise AgentError(
            f"the endpoint {where} does not serve the model {settings.model!r}: it serves "
            f"{shown} (pass one with --model)"
        )


def _ping(
    client: openai.OpenAI, settings: LlmSettings, guide: SeatGuide | None, view: JSON | None
) -> None:
    """One token, asked as the first turn asks. A refused reply format is not retried
    (the client's retries are for what may pass on a second try)."""
    fmt = None
    if guide is not None and view is not None:
        fmt = response_format(settings, guide, guide.moves(view), guide.plan_moves(view))
    extra = {"response_format": fmt} if fmt is not None else {}
    ask = {"model": settings.model, "messages": PING, "max_tokens": 1, **extra}
    try:
        completion_of(
            client.with_options(max_retries=0).chat.completions.create(
                temperature=settings.temperature,
                **ask,  # type: ignore[arg-type]
            )
        )
    except openai.APIStatusError as error:
        if _format_refused(error) or not _transient(error):
            raise
        _ping_again(client, settings, ask)
    except (openai.APITimeoutError, openai.APIConnectionError):
        _ping_again(client, settings, ask)


def _ping_again(client: openai.OpenAI, settings: LlmSettings, ask: JSON) -> None:
    """The ping after a transient failure, with the retries left."""
    again = client.with_options(max_retries=max(0, settings.retries - 1))
    completion_of(again.chat.completions.create(temperature=settings.temperature, **ask))  # type: ignore[arg-type]


def _transient(error: openai.APIStatusError) -> bool:
    return error.status_code in (408, 409, 429) or error.status_code >= 500


def _format_refused(error: openai.APIStatusError) -> bool:
    """Whether the endpoint refused the request's form: a 400 or 422, or a server error
    that names ``response_format`` (llama-cpp-python's server answers its validation
    errors with 500)."""
    if isinstance(error, openai.BadRequestError | openai.UnprocessableEntityError):
        return True
    return error.status_code >= 500 and "response_format" in _message(error)


def _check_failure(client: openai.OpenAI, settings: LlmSettings, error: Exception) -> str:
    """The one line that says what the start-up check met, and the fix."""
    where = str(client.base_url).rstrip("/")
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return (
            f"the endpoint {where} refused the API key ({error.status_code}): set "
            f"{settings.api_key_env} to a key it takes (or name another with --api-key-env)"
        )
    if isinstance(error, openai.NotFoundError):
        return _not_found(client, settings, error)
    if isinstance(error, openai.APITimeoutError):
        return (
            f"the endpoint {where} did not answer within {settings.timeout:g} s, "
            f"{settings.retries} retries included: raise --timeout or check the server"
        )
    if isinstance(error, openai.APIConnectionError):
        return f"cannot reach the endpoint {where}: {one_line(error)}"
    if isinstance(error, openai.APIStatusError) and _format_refused(error):
        fix = ""
        if settings.reply_format != TEXT:
            fix = (
                f"; if it cannot take --reply-format {settings.reply_format}, use "
                f"{JSON_OBJECT if settings.reply_format == JSON_SCHEMA else TEXT}"
            )
        said = f"{error.status_code}: {_message(error)}"
        return f"the endpoint {where} refused the request ({said}){fix}"
    if isinstance(error, openai.RateLimitError | openai.InternalServerError):
        return (
            f"the endpoint {where} stayed busy ({error.status_code}) through "
            f"{settings.retries} retries: try again later or raise --retries"
        )
    if isinstance(error, openai.APIStatusError):
        return f"the endpoint {where} answered {error.status_code}: {_message(error)}"
    return f"the endpoint {where} failed: {one_line(error)}"


def _not_found(client: openai.OpenAI, settings: LlmSettings, error: openai.NotFoundError) -> str:
    where = str(client.base_url).rstrip("/")
    if error.code == "model_not_found" or "model" in _message(error).lower():
        return (
            f"the endpoint {where} has no model {settings.model!r} (404 model_not_found): "
            "pass --model with one it serves"
        )
    return (
        f"the endpoint answered 404 for {where}/chat/completions: check --base-url "
        "(OpenAI-compatible servers answer under /v1, e.g. http://127.0.0.1:8080/v1)"
    )


def _message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error", {}).get("message")
        if isinstance(message, str):
            return " ".join(message.split())[:200]
    return " ".join(str(error).split())[:200]


def one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300]
