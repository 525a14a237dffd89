"""Terminal play for every registered game.

The loop is split from curses so it can be tested: :class:`TerminalSession` turns key
presses into the game's text commands and plays them on a :class:`Match`, and
:func:`run_curses` only draws and reads keys. A game lists its keys and board colours in
its ``controls`` module; a key sequence (``k`` then ``h``) is read while it is a prefix of
some listed sequence; a command ending in ``...`` is finished by the player on a prompt
line, where Escape cancels it; ``Q``, the one quit key of every game (no game's move),
quits, ``?`` lists every key, and a game's panel keys (Cogcrawl's ``i``, the pack) open a
screen over the board that any key closes.

Every screen fits the terminal it is drawn in (:mod:`playbench.screen`): prose wraps, and
a board taller than the window is cropped around the player's glyph; where even that
cannot fit, the screen says how large a terminal it needs.
"""

from __future__ import annotations

import curses
import shlex
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, TextIO

from playbench.core.controls import HELP_KEY, PROMPT_MARK, Controls, controls_of
from playbench.core.errors import PlaybenchError
from playbench.core.game import Game, canonical_json
from playbench.core.match import Match
from playbench.core.wording import gained, spaced
from playbench.screen import Line, Screen, fit, fit_text

#: how many of the latest messages the screen keeps
MESSAGES_SHOWN = 4
COLOR_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
#: colours beyond the eight: (colour number on a 256-colour terminal, the fallback name)
EXTRA_COLORS = {"orange": (208, "cyan")}
ESCAPE = "\x1b"
#: how long curses waits after Escape for the rest of a key's sequence
ESCAPE_MS = 25
CLOSE_PANEL = "any key returns to the game"
#: the help screen: entries in one column up to this many, else two of this width
HELP_ROWS = 16
HELP_CELL = 38
#: a prompt lists the commands it can be finished with when they are at most this many
MAX_CHOICES = 12
KEY_WORDS = {
    "KEY_UP": "up",
    "KEY_DOWN": "down",
    "KEY_LEFT": "left",
    "KEY_RIGHT": "right",
    "KEY_HOME": "Home",
    "KEY_END": "End",
    "KEY_PPAGE": "PgUp",
    "KEY_NPAGE": "PgDn",
    " ": "space",
    "\n": "Enter",
}


class NoTerminal(PlaybenchError):
    """Terminal play was asked for where standard input or output is not a terminal."""


@dataclass
class TerminalSession:
    """Key presses in, game states out; no drawing."""

    match: Match
    controls: Controls | None = None
    pending: str = ""
    quit: bool = False
    #: the commands that moved the game on, in order
    log: list[str] = field(default_factory=list)
    messages: deque[str] = field(default_factory=lambda: deque(maxlen=MESSAGES_SHOWN))
    #: messages that answered a query about the board (Gem Swap's moves): dropped once a
    #: command moves the game on, as they no longer hold
    answers: list[str] = field(default_factory=list)
    #: a screen shown over the board (every key, a panel) until the next key
    overlay: list[str] | None = None

    def __post_init__(self) -> None:
        if self.controls is None:
            self.controls = controls_of(self.match.game)

    @property
    def game(self) -> Game:
        return self.match.game

    @property
    def state(self) -> Any:
        return self.match.state

    @property
    def message(self) -> str:
        """The latest message ('' before the first)."""
        return self.messages[-1] if self.messages else ""

    def say(self, text: str) -> None:
        if text:
            self.messages.append(text)

    def press(self, key: str) -> str | None:
        """Feed one key. Returns a command that needs a prompt line, else None."""
        controls = self.controls
        if self.overlay is not None:
            self.overlay = None
            return None
        if key == ESCAPE:
            self.say("cancelled" if self.pending else "")
            self.pending = ""
            return None
        if not self.pending and key == controls.quit_key:
            self.quit = True
            return None
        if not self.pending and key == HELP_KEY and HELP_KEY not in controls.keys:
            self.overlay = self.key_list()
            return None
        if not self.pending and key in controls.panels:
            panel = controls.panels[key]
            lines = panel.lines(self.match.view()["observation"])
            self.overlay = [panel.title, "", *lines, "", CLOSE_PANEL]
            return None
        sequence = self.pending + key
        keys = controls.keys
        if sequence in keys:
            self.pending = ""
            command = keys[sequence]
            if command.endswith(PROMPT_MARK):
                return command[: -len(PROMPT_MARK)].rstrip()
            self.run(command)
            return None
        if any(name.startswith(sequence) for name in keys if len(name) > len(sequence)):
            self.pending = sequence
            self.say(f"{sequence}…")
            return None
        self.pending = ""
        self.say(f"key {key!r} does nothing here ({HELP_KEY} lists the keys)")
        return None

    def cancel(self, command: str) -> None:
        """The prompt for ``command`` was left with Escape: nothing is sent."""
        self.say(f"{command or 'command'}: cancelled")

    def choices(self, command: str) -> str:
        """What a prompt for ``command`` can be finished with, from the legal commands
        (``a c``), or '' when there are too many to list or none."""
        start = f"{command} " if command else ""
        legal = [c[len(start) :] for c in self.match.view()["commands"] if c.startswith(start)]
        if not command or len(legal) > MAX_CHOICES:
            return ""
        return ", ".join(legal) if legal else "nothing now"

    def key_list(self) -> list[str]:
        """Every key and what it does, for the help screen."""
        controls = self.controls
        by_command: dict[str, list[str]] = {}
        for key, command in controls.keys.items():
            name = key_name(key)
            if len(key) > 1 and not key.startswith("KEY_"):
                verb = command.split()[0]
                by_command.setdefault(f"{verb} (then a direction key)", [])
                if key[0] not in by_command[f"{verb} (then a direction key)"]:
                    by_command[f"{verb} (then a direction key)"].append(key[0])
                continue
            words = command.replace(PROMPT_MARK, "…").strip() if command != PROMPT_MARK else ""
            by_command.setdefault(words or "type any command", []).append(name)
        entries = [(" ".join(keys), command) for command, keys in by_command.items()]
        entries += [
            (key, panel.title.split(" (")[0].lower()) for key, panel in controls.panels.items()
        ]
        entries += [("Esc", "cancel a prompt"), (controls.quit_key, "quit")]
        cells = [f"{keys:<9} {command}"[:HELP_CELL] for keys, command in entries]
        half = (len(cells) + 1) // 2 if len(cells) > HELP_ROWS else len(cells)
        left, right = cells[:half], cells[half:]
        lines = [
            f"{a:<{HELP_CELL}}  {b}".rstrip()
            for a, b in zip(left, right + [""] * (len(left) - len(right)), strict=True)
        ]
        return [f"{self.game.name}: every key", "", *lines, "", CLOSE_PANEL]

    def run(self, command: str, quiet: bool = False) -> bool:
        """Parse and apply one text command; keep the reason when it is refused.

        A ``quiet`` command (the clock's idle tick) leaves the messages alone, so the last
        thing the player did stays readable.
        """
        result = self.match.command(command)
        if result.advanced:
            self.log.append(command)
        if not result.ok:
            if not quiet:
                refused = "refused: " if result.action is not None else ""
                self.say(f"{refused}{result.reason}")
            return False
        if result.advanced:
            for answer in self.answers:
                if answer in self.messages:
                    self.messages.remove(answer)
            self.answers.clear()
        if not quiet:
            said = self.told(result.events)
            self.say(said)
            if said and not result.advanced:
                self.answers.append(said)
        return True

    def is_board(self, line: str) -> bool:
        """A line of the board itself (drawn in colour, never wrapped), not prose."""
        pattern = self.controls.board_line
        return pattern is not None and pattern.fullmatch(line) is not None

    def describe(self, event: dict[str, Any]) -> str:
        """An event in the game's own words where it has some, else its plain form; ""
        for an event the game leaves untold (a move the board shows)."""
        if self.controls.words is not None:
            said = self.controls.words(event, self.match.view())
            if said is not None:
                return said
        return describe_event(event)

    def told(self, events: list[dict[str, Any]]) -> str:
        """What a step's events tell a player, one after another ("" : nothing)."""
        return "; ".join(said for said in map(self.describe, events) if said)

    def _shows_seed(self) -> bool:
        """A seed is shown where it changes the game (not Delvewick's fixed levels)."""
        return self.match.seed is not None and self.game.seeded

    def header(self) -> str:
        seed = f"  seed {self.match.seed}" if self._shows_seed() else ""
        return f"{self.game.name}{seed}"

    def footer(self) -> str:
        over = "  [game over]" if self.match.over else ""
        keys = f"{self.controls.help}, " if self.controls.help else ""
        helps = f"{HELP_KEY} all keys, " if HELP_KEY not in self.controls.keys else ""
        return f"score {self.match.score}{over}  {keys}{helps}{self.controls.quit_key} quits"

    def footer_lines(self) -> list[str]:
        """The lines under the board: the score and the keys."""
        return [self.footer()]

    def screen_lines(self, rows: int | None = None, cols: int | None = None) -> list[Line]:
        """Each line of the screen with the colour name of each of its characters, fitted
        to ``rows`` x ``cols`` when given (see :func:`fit`)."""
        if self.overlay is not None:
            return fit_text(self.overlay, rows, cols)
        board = [
            (line, self.controls.color_of(line) if self.is_board(line) else [])
            for line in self.game.render(self.state).splitlines()
        ]
        return fit(
            Screen(
                header=[self.header()],
                board=board,
                footer=self.footer_lines(),
                messages=list(self.messages),
                focus=self.controls.focus,
            ),
            rows,
            cols,
        )

    def screen(self, rows: int | None = None, cols: int | None = None) -> str:
        return "\n".join(line for line, _ in self.screen_lines(rows, cols))

    def summary(self) -> str:
        """The line printed when play ends: the game, seed, score, what was played and how
        to play the same game again."""
        ended = "game over" if self.match.over else "quit"
        kinds = Counter(command.split()[0] for command in self.log if command.split())
        played = ", ".join(f"{count} {verb}" for verb, count in kinds.items())
        actions = f"{len(self.log)} action{'' if len(self.log) == 1 else 's'}"
        done = f"score {self.match.score}, {ended} after {actions}"
        done += f" ({played})" if played else ""
        if self._shows_seed():
            return (
                f"{self.game.name} seed {self.match.seed}: {done}; play the same seed again: "
                f"playbench play {self.game.slug} --seed {self.match.seed}"
            )
        options = self.match.options
        again = f" --options {shlex.quote(canonical_json(options))}" if options else ""
        return f"{self.game.name}: {done}; play it again: playbench play {self.game.slug}{again}"


def key_name(key: str) -> str:
    """A key as printed on a keyboard."""
    return KEY_WORDS.get(key, key.removeprefix("KEY_"))


def describe_event(event: dict[str, Any]) -> str:
    """One event as a plain sentence, for a game that gives it no words of its own: its
    type in words, then its plain fields and cells (``Collect: cell row 5 col 2, chain 1
    (+25 points)``)."""
    parts = []
    for key, value in event.items():
        if key in ("type", "points"):
            continue
        if isinstance(value, bool):
            parts.append(f"{spaced(key)} {'yes' if value else 'no'}")
        elif isinstance(value, str | int | float):
            parts.append(f"{spaced(key)} {value}")
        elif isinstance(value, dict) and {"row", "col"} <= value.keys():
            parts.append(f"{spaced(key)} row {value['row']} col {value['col']}")
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            parts.append(f"{spaced(key)} {' '.join(value)}")
    head = spaced(str(event.get("type", "event"))).capitalize()
    return f"{head}{': ' + ', '.join(parts) if parts else ''}{gained(event.get('points'))}"


def require_terminal(stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """Raise :class:`NoTerminal` unless both standard streams are terminals."""
    for stream in (stdin or sys.stdin, stdout or sys.stdout):
        if not stream.isatty():
            raise NoTerminal(
                "play needs a terminal: run it in a terminal window, not with its input or "
                "output piped or redirected"
            )


def _key_name(code: int | str) -> str:
    if isinstance(code, str):
        return code
    return curses.keyname(code).decode() if code > 255 else chr(code)


def color_pairs() -> dict[str, int]:
    """Curses attributes by colour name (plain where the terminal has no colours); the
    extra colours (orange) on a terminal of 256, else their fallback."""
    if not curses.has_colors():
        return {}
    curses.start_color()
    curses.use_default_colors()
    pairs = {}
    for number, name in enumerate(COLOR_NAMES, start=1):
        curses.init_pair(number, getattr(curses, f"COLOR_{name.upper()}"), -1)
        pairs[name] = curses.color_pair(number)
    for number, (name, (color, fallback)) in enumerate(EXTRA_COLORS.items(), start=len(pairs) + 1):
        if color < curses.COLORS and number < curses.COLOR_PAIRS:
            curses.init_pair(number, color, -1)
            pairs[name] = curses.color_pair(number)
        else:
            pairs[name] = pairs[fallback]
    return pairs


def draw(window: Any, session: TerminalSession, pairs: dict[str, int]) -> None:
    """Draw the session's screen in its colours (``pairs`` from :func:`color_pairs`)."""
    window.erase()
    height, width = window.getmaxyx()
    # the last row is the prompt's; the last column is left alone (curses cannot write
    # the bottom-right cell)
    for row, (line, colors) in enumerate(session.screen_lines(height - 1, width - 1)):
        for col, char in enumerate(line[: width - 1]):
            color = colors[col] if col < len(colors) else None
            window.addstr(row, col, char, pairs.get(color, 0) if color else 0)
    window.refresh()


def run_curses(session: TerminalSession) -> None:
    """Draw the session in a curses window until the player quits."""

    def loop(window: Any) -> None:
        curses.curs_set(0)
        curses.set_escdelay(ESCAPE_MS)
        pairs = color_pairs()
        idle = session.controls.idle
        next_idle = time.monotonic() + (idle[0] if idle else 0)
        while not session.quit:
            window.timeout(int(idle[0] * 1000) if idle else -1)
            draw(window, session, pairs)
            try:
                code = window.get_wch()
            except curses.error:
                code = None
            if code is None:
                if idle and time.monotonic() >= next_idle and not session.match.over:
                    session.run(idle[1], quiet=True)
                    next_idle = time.monotonic() + idle[0]
                continue
            partial = session.press(_key_name(code))
            if partial is not None:
                typed = _prompt(window, partial, session.choices(partial))
                if typed is None:
                    session.cancel(partial)
                else:
                    session.run(typed)

    curses.wrapper(loop)


def _prompt(window: Any, start: str, choices: str) -> str | None:
    """Read the rest of a command on the last row: Enter sends it, Escape cancels (None),
    Backspace takes a character back."""
    height, width = window.getmaxyx()
    hint = f"[{choices}; Esc cancels] " if choices else "[Esc cancels] "
    if len(start) + len(hint) > width // 2:
        hint = "[Esc cancels] "
    shown = f"{start} {hint}" if start else hint
    typed = ""
    curses.curs_set(1)
    window.timeout(-1)
    try:
        while True:
            line = f"> {shown}{typed}"[-(width - 1) :]
            window.move(height - 1, 0)
            window.clrtoeol()
            window.addstr(height - 1, 0, line)
            window.refresh()
            code = window.get_wch()
            if code == ESCAPE:
                return None
            if code in ("\n", "\r", curses.KEY_ENTER):
                return f"{start} {typed}".strip()
            if code in ("\b", "\x7f", curses.KEY_BACKSPACE):
                typed = typed[:-1]
            elif isinstance(code, str) and code.isprintable():
                typed += code
    finally:
        curses.curs_set(0)
