"""How people drive a game: keys, the quit key, the idle clock.

These are door settings, not rules: each game package has a ``controls`` module holding
one :class:`Controls` named ``CONTROLS``; the terminal and the browser read it through
:func:`controls_of`. A key's command is text of the game's grammar; one that ends in
``...`` asks the player to finish it on a prompt line (``prefill`` is what the line
starts with).

The browser draws each game's on-screen pad from the same table: a :class:`PadButton`
presses one of the game's keys (or opens one of its panels), and carries the move's name
in words, its accessible name. Buttons with a ``cell`` sit in a 3x3 cross (0 is top left,
4 the middle, 8 bottom right); the others in a row of actions under it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from playbench.core.game import Game

PROMPT_MARK = "..."
#: the key that lists every key, in every game
HELP_KEY = "?"

#: an observation in, lines to read out (a panel such as Cogcrawl's pack)
Lines = Callable[[Mapping[str, Any]], list[str]]
#: an event and the match's view in, the sentence a person reads ("": nothing to tell,
#: None: no words of the game's own)
Words = Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]


@dataclass(frozen=True, slots=True)
class Panel:
    """A screen a key opens over the board and any key closes (Cogcrawl's pack).

    In the browser the panel lists ``source``, a list of objects in the observation, one
    line per object: its ``show`` fields in order (a true flag shows as its own name);
    a prompt command (``eat ...``) waiting for a ``pick`` field offers each object's as a
    button that finishes the command."""

    title: str
    lines: Lines
    source: str = ""
    pick: str = ""
    show: tuple[str, ...] = ()
    #: what the browser's panel says when ``source`` is empty
    empty: str = ""


#: the cells of the pad's 3x3 cross
PAD_CELLS = range(9)


@dataclass(frozen=True, slots=True)
class PadButton:
    """One on-screen button: presses ``key`` (a key of the game's table or a panel's)."""

    #: the move in words, the button's accessible name ("up", "north-east")
    name: str
    key: str
    #: what the button shows (an arrow); empty: the name
    label: str = ""
    #: its place in the 3x3 cross, or None for the row of actions
    cell: int | None = None


#: the one key that ends play in every game; no game's keys may use it
QUIT_KEY = "Q"


@dataclass(frozen=True, slots=True)
class Controls:
    #: key name (curses names such as ``KEY_UP``, or a character) -> command text
    keys: Mapping[str, str] = field(default_factory=dict)
    #: for games that run on a clock: (seconds between idle commands, command text)
    idle: tuple[float, str] | None = None
    #: glyph -> colour name (black red green yellow blue magenta cyan white, or orange:
    #: cyan where the terminal has only 8 colours), drawn on the
    #: lines of the text board that ``board_line`` matches whole
    colors: Mapping[str, str] = field(default_factory=dict)
    board_line: re.Pattern[str] | None = None
    #: the main keys in one short line, for the foot of a screen
    help: str = ""
    #: key -> a panel it opens over the board
    panels: Mapping[str, Panel] = field(default_factory=dict)
    #: the glyph a board too tall for the screen is cropped around (the player's)
    focus: str = ""
    #: a game's own words for its events (the terminal's messages): a sentence, "" for an
    #: event the board already shows, None for one left to the plain form
    words: Words | None = None
    #: the on-screen pad, for touch and mouse
    pad: tuple[PadButton, ...] = ()
    #: a tapped board cell's command, ``{cell}`` standing for the cell's name (Gem Swap's
    #: ``select {cell}``); empty: the board takes no taps
    tap: str = ""
    #: swipe on the board -> key pressed ("up" "down" "left" "right")
    swipes: Mapping[str, str] = field(default_factory=dict)
    #: a seat reply an agent could send, shown in the page's raw-reply box (empty: no box)
    seat_reply: str = ""

    @property
    def quit_key(self) -> str:
        """The key that ends play: the same in every game (:data:`QUIT_KEY`)."""
        return QUIT_KEY

    def color_of(self, line: str) -> list[str | None]:
        """The colour name of each character of a line of the text board (None: plain)."""
        if self.board_line is None or not self.board_line.fullmatch(line):
            return [None] * len(line)
        return [self.colors.get(char) for char in line]

    def browser(self) -> dict[str, Any]:
        """What the play page needs, as JSON: keys, clock, pad, panels, taps, swipes."""
        return {
            "keys": dict(self.keys),
            "idle": self.idle,
            "help": self.help,
            "pad": [
                {"name": b.name, "key": b.key, "label": b.label or b.name, "cell": b.cell}
                for b in self.pad
            ],
            "panels": {
                key: {
                    "title": p.title,
                    "source": p.source,
                    "pick": p.pick,
                    "show": list(p.show),
                    "empty": p.empty,
                }
                for key, p in self.panels.items()
            },
            "tap": self.tap,
            "swipes": dict(self.swipes),
            "seatReply": self.seat_reply,
        }


NO_CONTROLS = Controls()


def controls_of(game: Game) -> Controls:
    """The game's ``CONTROLS`` from the ``controls`` module beside its class, if any."""
    package = type(game).__module__
    try:
        module = importlib.import_module(f"{package}.controls")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.controls":
            raise
        return NO_CONTROLS
    return module.CONTROLS
