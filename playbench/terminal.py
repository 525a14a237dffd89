"""Terminal play for every registered game.

The loop is split from curses so it can be tested: :class:`TerminalSession` turns key
presses into the game's text commands and plays them on a :class:`Match`, and
:func:`run_curses` only draws and reads keys. A game lists its keys and board colours in
its ``controls`` module; a key sequence (``k`` then ``h``) is read while it is a prefix of
some listed sequence; a command ending in ``...`` is finished by the player on a prompt
line; the game's quit key (``q`` unless the game needs that key) quits.
"""

from __future__ import annotations

import curses
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, TextIO

from playbench.core.controls import PROMPT_MARK, Controls, controls_of
from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.match import Match

#: how many of the latest messages the screen keeps
MESSAGES_SHOWN = 4
COLOR_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


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
        if not self.pending and key == controls.quit_key:
            self.quit = True
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
        self.say(f"key {key!r} does nothing here ({controls.quit_key} quits)")
        return None

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
        if not quiet:
            self.say("; ".join(describe_event(event) for event in result.events))
        return True

    def header(self) -> str:
        seed = "" if self.match.seed is None else f"  seed {self.match.seed}"
        return f"{self.game.name}{seed}"

    def footer(self) -> str:
        over = "  [game over]" if self.match.over else ""
        keys = f"{self.controls.help}, " if self.controls.help else ""
        return f"score {self.match.score}{over}  {keys}{self.controls.quit_key} quits"

    def screen_lines(self) -> list[tuple[str, list[str | None]]]:
        """Each line of the screen with the colour name of each of its characters."""
        lines: list[tuple[str, list[str | None]]] = [(self.header(), [])]
        for line in self.game.render(self.state).splitlines():
            lines.append((line, self.controls.color_of(line)))
        lines.append(("", []))
        lines.append((self.footer(), []))
        lines.extend((message, []) for message in self.messages)
        return lines

    def screen(self) -> str:
        return "\n".join(line for line, _ in self.screen_lines())

    def summary(self) -> str:
        """The line printed when play ends: the game, seed, score and how it ended."""
        ended = "game over" if self.match.over else "quit"
        return (
            f"{self.game.name} seed {self.match.seed}: score {self.match.score} "
            f"after {self.match.moves} moves ({ended}); "
            f"replay with: playbench play {self.game.slug} --seed {self.match.seed}"
        )


def describe_event(event: dict[str, Any]) -> str:
    """One event as text: its type, then its plain fields (``hint swap=swap C4 right``)."""
    words = [str(event.get("type", "event"))]
    for key, value in event.items():
        if key != "type" and isinstance(value, str | int | float) and not isinstance(value, bool):
            words.append(f"{key}={value}")
    return " ".join(words)


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
    """Curses attributes by colour name (plain where the terminal has no colours)."""
    if not curses.has_colors():
        return {}
    curses.start_color()
    curses.use_default_colors()
    pairs = {}
    for number, name in enumerate(COLOR_NAMES, start=1):
        curses.init_pair(number, getattr(curses, f"COLOR_{name.upper()}"), -1)
        pairs[name] = curses.color_pair(number)
    return pairs


def draw(window: Any, session: TerminalSession, pairs: dict[str, int]) -> None:
    """Draw the session's screen in its colours (``pairs`` from :func:`color_pairs`)."""
    window.erase()
    height, width = window.getmaxyx()
    for row, (line, colors) in enumerate(session.screen_lines()[: height - 1]):
        for col, char in enumerate(line[: width - 1]):
            color = colors[col] if col < len(colors) else None
            window.addstr(row, col, char, pairs.get(color, 0) if color else 0)
    window.refresh()


def run_curses(session: TerminalSession) -> None:
    """Draw the session in a curses window until the player quits."""

    def loop(window: Any) -> None:
        curses.curs_set(0)
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
                session.run(_prompt(window, partial))

    curses.wrapper(loop)


def _prompt(window: Any, start: str) -> str:
    height, _ = window.getmaxyx()
    shown = f"> {start} " if start else "> "
    window.addstr(height - 1, 0, shown)
    curses.echo()
    curses.curs_set(1)
    window.timeout(-1)
    try:
        typed = window.getstr(height - 1, len(shown)).decode(errors="replace")
    finally:
        curses.noecho()
        curses.curs_set(0)
    return f"{start} {typed}".strip()
