"""The contract every playbench game implements.

A game is a pure rules core: ``new`` makes a state, ``step`` turns a state and an action
into an :class:`Outcome` without touching its input, and everything else (observation,
text board, spec, text commands, JSON form) is a view of the state. Every door (HTTP,
sessions, terminal, MCP, Gymnasium, bots, benchmarks) goes through this class only.

Actions are JSON objects (``{"type": "move", "dir": "up"}``); a game's text grammar
(``parse_command``) turns a command line into one.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

from playbench.core.seat import SeatGuide

S = TypeVar("S")
#: the most bytes of one text command
COMMAND_BYTES = 1024
Action = dict[str, Any]
JSON = dict[str, Any]

#: how a finished game ended (:meth:`Game.ending`): won, lost, or neither (an endless
#: game or a score attack just ends)
WON = "won"
LOST = "lost"
OVER = "over"
ENDINGS = (WON, LOST, OVER)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[S]):
    """What one ``step`` did.

    An accepted action has ``ok=True``, the new state, the score gained (``reward``,
    never negative unless a game's rules say so) and the events, in order. A refused
    action has ``ok=False``, the *unchanged* input state and a ``reason``; it costs
    nothing. A game whose rules count a refusal (Cogcrawl retries a turn whose reply did
    not parse, then falls back to its scripted plan) says so with ``counted=True`` and
    returns the counting state: the refusal changed the game, so every door carries that
    state forward and logs the action (:attr:`advances`). An accepted action that only
    asks (Gem Swap's ``moves``) says so with ``query=True``: it answers in its events and
    leaves the game where it was, so it is no move of the game and is not logged.
    """

    state: S
    ok: bool = True
    reward: int = 0
    events: list[JSON] = field(default_factory=list)
    reason: str = ""
    counted: bool = False
    query: bool = False

    @classmethod
    def refused(cls, state: S, reason: str) -> Outcome[S]:
        """A refusal that costs nothing: ``state`` is the unchanged input."""
        return cls(state=state, ok=False, reason=reason)

    @classmethod
    def counted_refusal(cls, state: S, reason: str, events: list[JSON] | None = None) -> Outcome[S]:
        """A refusal the rules count: ``state`` is the new state that records it."""
        return cls(state=state, ok=False, reason=reason, events=events or [], counted=True)

    @classmethod
    def answered(cls, state: S, events: list[JSON]) -> Outcome[S]:
        """An accepted query: ``state`` is the unchanged input; the answer is in ``events``."""
        return cls(state=state, events=events, query=True)

    @property
    def advances(self) -> bool:
        """True when the game moved on: an accepted move, or a counted refusal."""
        return (self.ok and not self.query) or self.counted


@dataclass(frozen=True, slots=True)
class Command:
    """One line of a game's text grammar, for docs and help screens."""

    syntax: str
    description: str
    example: str


@dataclass(frozen=True, slots=True)
class Spec:
    """A game's self-description: what the docs page, llms.txt and ``spec`` show."""

    description: str
    goal: str
    scoring: str
    rules: list[str]
    action_schema: JSON
    commands: list[Command]
    observation: dict[str, str]
    options: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "description": self.description,
            "goal": self.goal,
            "scoring": self.scoring,
            "rules": list(self.rules),
            "actionSchema": self.action_schema,
            "commands": [
                {"syntax": c.syntax, "description": c.description, "example": c.example}
                for c in self.commands
            ],
            "observation": dict(self.observation),
            "options": dict(self.options),
        }


class Game(ABC, Generic[S]):
    """Base class of every game. Subclasses are stateless singletons."""

    slug: ClassVar[str]
    name: ClassVar[str]
    genre: ClassVar[str]
    #: True where some action costs points (Gem Swap's ``hint``); otherwise score only rises.
    score_can_fall: ClassVar[bool] = False
    #: False where the seed changes nothing (Delvewick's fixed levels): every run is the
    #: same puzzle, so its leaderboard compares solutions
    seeded: ClassVar[bool] = True
    #: the steps after which a door that cuts episodes (Gymnasium's ``max_episode_steps``)
    #: stops one by default: well past a full game played at random
    step_cap: ClassVar[int] = 10_000
    #: the module of the game's baseline bot, whose ``make_bot(seed)`` returns a player
    #: with ``act(view) -> action`` that decides from the public view alone (None: no bot)
    bot: ClassVar[str | None] = None

    # -- the rules ---------------------------------------------------------------------
    @abstractmethod
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> S:
        """A fresh run. Raises :class:`OptionsError` for a bad seed or options."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[Action]:
        """Every action ``step`` would accept now, in a stable order."""

    @abstractmethod
    def step(self, state: S, action: Action) -> Outcome[S]:
        """Apply ``action``. Never mutates ``state``; never raises for a bad action.

        ``action`` is whatever JSON value a client sent: anything that is not an action
        of the game's grammar (not even an object) is refused with a reason.
        """

    @abstractmethod
    def score(self, state: S) -> int: ...

    @abstractmethod
    def is_over(self, state: S) -> bool: ...

    def ending(self, state: S) -> str:
        """How a finished run ended: :data:`WON`, :data:`LOST` or :data:`OVER` (neither:
        an endless game or a score attack). Asked only once :meth:`is_over` holds."""
        return OVER

    @abstractmethod
    def progress(self, state: S) -> float:
        """How far the run has come, from 0 to 1, by the definition in the game's spec.

        Agent evaluations report it beside the score; it rises with better play.
        """

    # -- views -------------------------------------------------------------------------
    @abstractmethod
    def observe(self, state: S) -> JSON:
        """The public view: JSON-ready, without hidden information."""

    @abstractmethod
    def render(self, state: S) -> str:
        """The text board a person or a language model reads."""

    @abstractmethod
    def spec(self) -> Spec: ...

    def seat_guide(self) -> SeatGuide:
        """What a language-model seat is told about this game: short play rules, one
        example reply, the board and the legal moves in the reply's form. The default
        speaks the spec's text commands; a game with a seat of its own says more."""
        return SeatGuide(self)

    @abstractmethod
    def parse_command(self, text: str) -> Action:
        """Turn a text command into an action. Raises :class:`CommandError`."""

    @abstractmethod
    def command_text(self, action: Action) -> str:
        """The command text of an action: ``parse_command(command_text(a)) == a`` for
        every legal action ``a`` of any reachable state. Raises :class:`CommandError` for
        a value that is no action of the game."""

    # -- serialization -----------------------------------------------------------------
    @abstractmethod
    def to_json(self, state: S) -> JSON:
        """The whole state, hidden parts included, as plain JSON data."""

    @abstractmethod
    def from_json(self, data: Any) -> S:
        """Inverse of :meth:`to_json`. Raises :class:`StateError` on malformed data."""

    def from_trusted_json(self, data: Any) -> S:
        """The same state as :meth:`from_json`, built without checking ``data``.

        Only for data that this same code wrote through :meth:`to_json` and that a seal
        has authenticated since (the server's own key, bound to this game): nothing in it
        can be wrong, so the field checks are skipped. A state from a client, a file or a
        store always goes through :meth:`from_json`. A game with no faster way keeps this
        default, the full check; a game with one reads through :func:`trusted_or_checked`
        (:class:`FolderGame` does when its state module has ``from_trusted_json``), so
        that a state an earlier release sealed in another form still gets the full
        check's :class:`StateError` instead of a crash.
        """
        return self.from_json(data)

    # -- derived helpers -----------------------------------------------------------------
    def command_limit(self, text: str) -> int:
        """The most UTF-8 bytes one command may have (a game with longer replies says so)."""
        return COMMAND_BYTES

    def notice(self, state: S, action: Action) -> str:
        """What the accepted ``action`` that led to ``state`` left undone, in words (parts
        of a reply that were dropped or cut short); empty when it did all it was asked."""
        return ""

    def is_legal(self, state: S, action: Action) -> bool:
        return action in self.legal_actions(state)

    def fingerprint(self, state: S) -> str:
        """A short stable hash of the whole state (same state, same fingerprint)."""
        return hashlib.sha256(canonical_json(self.to_json(state)).encode()).hexdigest()[:16]

    def describe(self) -> JSON:
        """The registry entry: slug, name, genre, description and goal."""
        spec = self.spec()
        return {
            "slug": self.slug,
            "name": self.name,
            "genre": self.genre,
            "description": spec.description,
            "goal": spec.goal,
        }


def game_package(game: Any) -> str:
    """The package of a game's class (a game object or its class): where its modules
    ``learning``, ``kernel`` and its palette live beside it."""
    cls = game if isinstance(game, type) else type(game)
    return sys.modules[cls.__module__].__package__ or ""


def module_beside(game: Any, name: str) -> ModuleType | None:
    """The module ``name`` of the game's package, or None when the package has none (an
    import error inside that module is raised, not taken for its absence)."""
    full = f"{game_package(game)}.{name}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as error:
        if error.name != full:
            raise
        return None


def canonical_json(data: Any) -> str:
    """Compact JSON with sorted keys: equal data gives equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def trusted_or_checked(trusted: Callable[[Any], S], checked: Callable[[Any], S], data: Any) -> S:
    """``trusted(data)``, or ``checked(data)`` when ``data`` does not have the form
    ``trusted`` reads (sealed by an earlier release): ``checked`` then names the problem
    with a :class:`StateError`, or reads the older form if it still can."""
    try:
        return trusted(data)
    except (LookupError, TypeError, ValueError, AttributeError):
        return checked(data)


#: what :class:`FolderGame` reads from each module of a game's folder, by the one set of
#: names every game uses; the names in brackets are optional
FOLDER_NAMES: dict[str, tuple[str, ...]] = {
    "state": ("to_json", "from_json", "[from_trusted_json]"),
    "rules": ("new", "legal_actions", "step", "score", "is_over", "[ending]"),
    "view": ("observe", "render", "progress"),
    "commands": ("parse_command", "command_text", "[command_limit]"),
    "spec": (),
}
#: what :class:`FolderGame` reads from the spec module: the parts of :class:`Spec`
SPEC_NAMES = ("DESCRIPTION", "GOAL", "SCORING", "RULES", "ACTION_SCHEMA", "COMMANDS", "OBSERVATION")


class FolderGame(Game[S]):
    """A game declared by its folder: the contract read from the folder's modules.

    A game's package holds ``state.py`` (the JSON codec), ``rules.py`` (the pure step),
    ``view.py``, ``commands.py`` (the text grammar), each with the functions of
    :data:`FOLDER_NAMES`, and ``spec.py`` with the constants of :data:`SPEC_NAMES` (and
    ``OPTIONS`` where the game takes options); its ``__init__`` declares the game as a
    subclass that sets the identity (``slug``, ``name``, ``genre``, the docstring) and any
    hooks, and makes the one instance from the modules::

        class Nim(FolderGame):
            \"\"\"Nim: ...\"\"\"

            slug = "nim"
            name = "Nim"
            genre = "take-away"

        GAME = Nim(state=state, rules=rules, view=view, commands=commands, spec=spec)

    The entry point ``[project.entry-points."playbench.games"]`` names ``GAME``.
    """

    #: what a language-model seat is told (a game with a seat of its own names its guide)
    seat: ClassVar[type[SeatGuide]] = SeatGuide

    def __init__(
        self,
        *,
        state: ModuleType,
        rules: ModuleType,
        view: ModuleType,
        commands: ModuleType,
        spec: ModuleType,
    ) -> None:
        modules = {"state": state, "rules": rules, "view": view, "commands": commands, "spec": spec}
        for role, names in FOLDER_NAMES.items():
            for name in names:
                if not name.startswith("[") and not callable(getattr(modules[role], name, None)):
                    raise TypeError(
                        f"{type(self).__name__}: its {role} module "
                        f"{modules[role].__name__} has no function {name}"
                    )
        for name in SPEC_NAMES:
            if not hasattr(spec, name):
                raise TypeError(f"{type(self).__name__}: its spec module has no {name}")
        self.codec = state
        self.rules = rules
        self.views = view
        self.grammar = commands
        self.about = spec
        self._trusted = getattr(state, "from_trusted_json", None)
        self._ending = getattr(rules, "ending", None)
        self._limit = getattr(commands, "command_limit", None)

    # -- the rules ---------------------------------------------------------------------
    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> S:
        return self.rules.new(seed, options)

    def legal_actions(self, state: S) -> list[Action]:
        return self.rules.legal_actions(state)

    def step(self, state: S, action: Action) -> Outcome[S]:
        return self.rules.step(state, action)

    def score(self, state: S) -> int:
        return self.rules.score(state)

    def is_over(self, state: S) -> bool:
        return self.rules.is_over(state)

    def ending(self, state: S) -> str:
        return OVER if self._ending is None else self._ending(state)

    def progress(self, state: S) -> float:
        return self.views.progress(state)

    # -- views -------------------------------------------------------------------------
    def observe(self, state: S) -> JSON:
        return self.views.observe(state)

    def render(self, state: S) -> str:
        return self.views.render(state)

    def spec(self) -> Spec:
        about = self.about
        return Spec(
            description=about.DESCRIPTION,
            goal=about.GOAL,
            scoring=about.SCORING,
            rules=list(about.RULES),
            action_schema=about.ACTION_SCHEMA,
            commands=list(about.COMMANDS),
            observation=dict(about.OBSERVATION),
            options=dict(getattr(about, "OPTIONS", {})),
        )

    def seat_guide(self) -> SeatGuide:
        return self.seat(self)

    def parse_command(self, text: str) -> Action:
        return self.grammar.parse_command(text)

    def command_text(self, action: Action) -> str:
        return self.grammar.command_text(action)

    def command_limit(self, text: str) -> int:
        return COMMAND_BYTES if self._limit is None else self._limit(text)

    # -- serialization -----------------------------------------------------------------
    def to_json(self, state: S) -> JSON:
        return self.codec.to_json(state)

    def from_json(self, data: Any) -> S:
        return self.codec.from_json(data)

    def from_trusted_json(self, data: Any) -> S:
        if self._trusted is None:
            return self.codec.from_json(data)
        return trusted_or_checked(self._trusted, self.codec.from_json, data)
