"""The llm agent's settings: how to reach the model (:class:`LlmSettings`, worded as
``playbench run``'s flags) and the harness its seat plays in (:class:`SeatSettings`, what
the Inspect door sets as task arguments)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlsplit

from playbench.agents.base import AgentError
from playbench.agents.llm.prompts import JSON_SCHEMA, REPLY_FORMATS, SCHEMA_IN_JSON_SCHEMA
from playbench.core.game import JSON
from playbench.core.seat import SeatGuide

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: the most tokens a reply may take: room for ten moves and full notes on every game
#: (Cogcrawl's longest reply of that kind is about 330 tokens), not for a runaway reply
DEFAULT_MAX_TOKENS = 512
#: seconds a call may take: a small model on a CPU writes a 512-token reply in about a
#: minute; an API answers in seconds
DEFAULT_TIMEOUT = 120.0
DEFAULT_TEMPERATURE = 0.0
#: transient failures retried per call, with the client's backoff (0.5 s doubling to
#: 8 s, or the server's Retry-After up to 2 minutes)
DEFAULT_RETRIES = 4
MAX_RETRIES = 10
#: what plays a turn the model failed twice
BOT = "bot"
RANDOM = "random"
WAIT = "wait"
FALLBACKS = (BOT, RANDOM, WAIT)
DEFAULT_FALLBACK = BOT
DEFAULT_REPLY_FORMAT = JSON_SCHEMA
#: the turns of history in the prompt by default: what the last turn did
DEFAULT_MEMORY = 1
MAX_MEMORY = 50
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True, slots=True)
class SeatSettings:
    """The harness a seat plays in, whatever calls the model."""

    reply_format: str = DEFAULT_REPLY_FORMAT
    #: where a ``json_schema`` reply format puts the schema
    schema_in: str = SCHEMA_IN_JSON_SCHEMA
    fallback: str = DEFAULT_FALLBACK
    memory: int = DEFAULT_MEMORY
    reflect: int = 0
    vision: bool = False
    #: the token limit of a reply, which a reply stopped by it is told
    max_tokens: int = DEFAULT_MAX_TOKENS


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """How to reach the model and the harness it plays in: picklable, holds the key's
    variable name, never the key."""

    model: str
    base_url: str | None = None
    api_key_env: str = DEFAULT_KEY_ENV
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    reply_format: str = DEFAULT_REPLY_FORMAT
    fallback: str = DEFAULT_FALLBACK
    memory: int = DEFAULT_MEMORY
    reflect: int = 0
    vision: bool = False
    #: where a ``json_schema`` reply format puts the schema (the start-up check finds
    #: the form the endpoint takes)
    schema_in: str = SCHEMA_IN_JSON_SCHEMA

    def check(self) -> None:
        """:class:`AgentError` in one line for a setting no run can use."""
        if not self.model.strip():
            raise AgentError("--model must name a model")
        if self.base_url is not None:
            parts = urlsplit(self.base_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise AgentError(
                    f"--base-url {self.base_url!r} is no http(s) URL: write it with its "
                    "scheme, e.g. http://127.0.0.1:8080/v1"
                )
        if self.max_tokens < 1:
            raise AgentError(f"--max-tokens must be at least 1, got {self.max_tokens}")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise AgentError(f"--timeout must be more than 0 seconds, got {self.timeout:g}")
        if not (math.isfinite(self.temperature) and 0 <= self.temperature <= MAX_TEMPERATURE):
            raise AgentError(
                f"--temperature must be between 0 and {MAX_TEMPERATURE:g}, got {self.temperature:g}"
            )
        if not 0 <= self.retries <= MAX_RETRIES:
            raise AgentError(f"--retries must be 0 to {MAX_RETRIES}, got {self.retries}")
        if self.reply_format not in REPLY_FORMATS:
            raise AgentError(
                f"--reply-format must be one of {', '.join(REPLY_FORMATS)}, got "
                f"{self.reply_format!r}"
            )
        if self.fallback not in FALLBACKS:
            raise AgentError(
                f"--fallback must be one of {', '.join(FALLBACKS)}, got {self.fallback!r}"
            )
        if not 0 <= self.memory <= MAX_MEMORY:
            raise AgentError(f"--memory must be 0 to {MAX_MEMORY} turns, got {self.memory}")
        if self.reflect < 0:
            raise AgentError(f"--reflect must be 0 (off) or more turns, got {self.reflect}")

    def describe(self) -> JSON:
        """What a run records about the model (no key)."""
        return {
            "model": self.model,
            "baseUrl": self.base_url,
            "apiKeyEnv": self.api_key_env,
            "temperature": self.temperature,
            "maxTokens": self.max_tokens,
            "timeout": self.timeout,
            "retries": self.retries,
        }

    @property
    def seat(self) -> SeatSettings:
        """The settings of the seat these settings play (the harness, no endpoint)."""
        return SeatSettings(
            reply_format=self.reply_format,
            schema_in=self.schema_in,
            fallback=self.fallback,
            memory=self.memory,
            reflect=self.reflect,
            vision=self.vision,
            max_tokens=self.max_tokens,
        )

    def harness(self, guide: SeatGuide) -> JSON:
        """The harness a result was played in, as ``run.json`` names it."""
        return {
            "replyFormat": self.reply_format,
            "schemaIn": self.schema_in,
            "fallback": fallback_of(self, guide),
            "memory": self.memory,
            "reflect": self.reflect,
            "vision": self.vision,
        }


def fallback_of(settings: LlmSettings | SeatSettings, guide: SeatGuide) -> str:
    """What plays a failed turn: the game's own rule where it has one, else the run's."""
    return guide.own_fallback or settings.fallback


def check_fallback(settings: LlmSettings | SeatSettings, guide: SeatGuide) -> None:
    if fallback_of(settings, guide) == WAIT and guide.wait_move is None:
        raise AgentError(
            f"{guide.game.name} has no move that waits: use --fallback {BOT} or {RANDOM}"
        )
