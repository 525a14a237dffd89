"""The seat protocol's shared terms, and what a game tells a language-model seat.

A seat answers each turn with one JSON object: a list of moves (``commands``, text of the
game's grammar, or for a game that reads its replies itself, such as Cogcrawl,
``actions``, objects), ``say`` for the spectators and ``notes``, its memory. The limits
below are the protocol's, the same for every game.

:class:`SeatGuide` is what a seat is told about one game: short play rules with one
filled-in example reply (once), then each turn the board and the legal moves in the
exact form the reply takes them. A game gives its own through
:meth:`playbench.core.game.Game.seat_guide`; the default here speaks the game's text
commands and is built from its spec, so a new game can be played by a model at once.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from playbench.core.fields import json_type

#: the most bytes of a reply that are read
MAX_REPLY_BYTES = 4096
#: the most moves one reply may carry
MAX_MOVES = 10
#: the most characters of ``say`` and ``notes`` that are kept
MAX_SAY = 140
MAX_NOTES = 400
#: the reply keys of the two kinds of move list
COMMANDS = "commands"
ACTIONS = "actions"


class ReplyError(Exception):
    """A reply that cannot be played: the family of every reason one is not used."""


class ReplyUnreadable(ReplyError):
    """A reply that is not exactly one JSON object; the message says why."""


class SpecSource(Protocol):
    """What a guide reads of its game (a :class:`~playbench.core.game.Game`): its name
    and spec. A protocol, so this module needs nothing of ``game.py``, which makes the
    default guide."""

    name: str

    def spec(self) -> Any: ...


def read_object(text: str, cut: bool = False) -> dict[str, Any]:
    """Exactly one JSON object, from the text's first character to its last, as the
    seat protocol reads a reply (``cut``: the text is the first 4096 bytes of a longer
    reply). JSON's ``NaN`` and ``Infinity`` are no JSON; with duplicate keys the last
    counts. :class:`ReplyUnreadable` says why it is not one."""
    length = f" of the first {MAX_REPLY_BYTES} bytes read" if cut else ""
    if not text:
        raise ReplyUnreadable("the reply is empty; it must be one JSON object")
    if not text.startswith("{"):
        raise ReplyUnreadable(f"the reply must begin with '{{', it begins with {text[:12]!r}")
    if not text.endswith("}"):
        raise ReplyUnreadable(f"the text{length} must end with '}}', it ends with {text[-12:]!r}")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except ReplyUnreadable:
        raise
    except RecursionError:
        raise ReplyUnreadable("the reply nests too deeply to read") from None
    except json.JSONDecodeError as error:
        reason = "more than one JSON value" if error.msg == "Extra data" else error.msg
        raise ReplyUnreadable(
            f"the text{length} is not one JSON object: {reason} at line {error.lineno} "
            f"column {error.colno}"
        ) from None
    except ValueError as error:
        raise ReplyUnreadable(f"the reply is not one JSON object: {error}") from None
    if not isinstance(value, dict):
        raise ReplyUnreadable(f"a reply must be a JSON object, got {json_type(value)}")
    return value


def _refuse_constant(name: str) -> Any:
    raise ReplyUnreadable(f"{name} is not a JSON value")


class SeatGuide:
    """How a language-model seat plays a game. The default: the spec's description,
    goal, scoring and command grammar as the rules, the view's text board and its legal
    commands, and a reply ``{"commands": [...], "notes": ...}``. A game overrides what
    its seat should be told differently."""

    #: the reply's list of moves: ``commands`` (text) or ``actions`` (objects)
    reply_key: str = COMMANDS
    #: where the game reads a whole reply itself (``{raw_key: "<reply text>"}`` as one
    #: action, with its own rule for a turn that fails), the key that carries it
    raw_key: str | None = None
    #: the move a ``wait`` fallback plays; None where the game has no such move
    wait_move: str | None = None
    #: the fallback the game's own seat rules name for a failed turn, whatever a run
    #: asks for (Cogcrawl: ``bot``, its delver); None where the run chooses
    own_fallback: str | None = None

    def __init__(self, game: Any) -> None:
        #: the game (a :class:`SpecSource`; typed loosely so games' guides reach its
        #: whole interface)
        self.game = game

    def rules(self) -> str:
        """The play rules, short: what a seat needs to play (the full spec stays on the
        docs pages)."""
        spec = self.game.spec()
        grammar = "\n".join(f"- {c.syntax}: {c.description}" for c in spec.commands)
        return (
            f"{spec.description}\nGoal: {spec.goal}\nScoring: {spec.scoring}\nCommands:\n{grammar}"
        )

    def example(self) -> dict[str, Any]:
        """One filled-in reply, as a seat would write it."""
        first = self.game.spec().commands[0].example
        return {self.reply_key: [first], "notes": "what I plan next"}

    def board(self, view: dict[str, Any]) -> str:
        """The board as the seat reads it, once: by default the game's text render."""
        return str(view["board"])

    def moves(self, view: dict[str, Any]) -> list[Any]:
        """The legal moves of this view in the exact form the reply takes them, each one
        safe to play (a move that ends the run is left out, and the rules say how to
        make it)."""
        return list(view["commands"])

    def plan_moves(self, view: dict[str, Any]) -> list[Any]:
        """Every move a plan may hold after its first, in the reply's form: the moves of
        the game's grammar that can be legal later in this turn, not only now (an entry
        refused when reached ends the turn). By default the legal moves."""
        return self.moves(view)

    def fell_back(self, view: dict[str, Any]) -> bool:
        """Whether the game's own fallback played the turn that led to ``view`` (a game
        that reads its replies itself may hand a turn to its scripted player)."""
        return False
