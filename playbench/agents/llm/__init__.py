"""``llm``: a language model on any OpenAI-compatible endpoint, or on any model API the
Inspect door reaches, playing the seat protocol.

- :mod:`.settings`: how to reach the model and the harness it plays in;
- :mod:`.prompts`: what the seat is asked, and the reply's JSON Schema;
- :mod:`.reply`: how a reply is read (repair, the 4096-byte cut, the moves);
- :mod:`.turn`: the seat, whose turn is a chain of named steps that yields each call;
- :mod:`.endpoint`: the ``openai`` client, its throttle and the start-up check;
- :mod:`.agent`: the runner's agent, the seat driven by the endpoint.
"""

from playbench.agents.llm.agent import LlmAgent
from playbench.agents.llm.endpoint import DEFAULT_CONCURRENCY, Endpoint, Throttle, check_endpoint
from playbench.agents.llm.reply import ReplyError, ReplyUnreadable, ReplyUnusable
from playbench.agents.llm.settings import LlmSettings, SeatSettings, check_fallback
from playbench.agents.llm.turn import (
    MAX_TOKENS,
    MAX_TURNS,
    Answer,
    Ask,
    Budget,
    BudgetSpent,
    EndpointDown,
    Seat,
    SeatCounts,
    drive,
    drive_async,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "MAX_TOKENS",
    "MAX_TURNS",
    "Answer",
    "Ask",
    "Budget",
    "BudgetSpent",
    "Endpoint",
    "EndpointDown",
    "LlmAgent",
    "LlmSettings",
    "ReplyError",
    "ReplyUnreadable",
    "ReplyUnusable",
    "Seat",
    "SeatCounts",
    "SeatSettings",
    "Throttle",
    "check_endpoint",
    "check_fallback",
    "drive",
    "drive_async",
]
