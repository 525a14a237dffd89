"""Terminal play for every registered game.

The loop is split from curses so it can be tested: :class:`TerminalSession` turns key
presses into the game's text commands and plays them on a :class:`Match`, and
:func:`run_curses` only draws and reads keys. A game lists its keys in its ``controls``
module; a key sequence (``k`` then ``h``) is read while it is a prefix of some listed
sequence; a command ending in ``...`` is finished by the player on a prompt line; the
game's quit key (``q`` unless the game needs that key) quits.
"""

from __future__ import annotations

import curses
import time
from dataclasses import dataclass, field
from typing import Any

from playbench.core.controls import PROMPT_MARK, Controls, controls_of
from playbench.core.game import Game
from playbench.core.match import Match


@dataclass
class TerminalSession:
    """Key presses in, game states out; no drawing."""

    match: Match
    controls: Controls | None = None
    pending: str = ""
    message: str = ""
    quit: bool = False
    #: the commands that moved the game on, in order
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.controls is None:
            self.controls = controls_of(self.match.game)

    @property
    def game(self) -> Game:
        return self.match.game

    @property
    def state(self) -> Any:
        return self.match.state

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
            self.message = f"{sequence}…"
            return None
        self.pending = ""
        self.message = f"key {key!r} does nothing here ({controls.quit_key} quits)"
        return None

    def run(self, command: str, quiet: bool = False) -> bool:
        """Parse and apply one text command; keep the reason when it is refused.

        A ``quiet`` command (the clock's idle tick) leaves the message line alone, so the
        last thing the player did stays readable.
        """
        result = self.match.command(command)
        if result.advanced:
            self.log.append(command)
        if not result.ok:
            if not quiet:
                refused = "refused: " if result.action is not None else ""
                self.message = f"{refused}{result.reason}"
            return False
        if not quiet:
            self.message = "; ".join(describe_event(event) for event in result.events)
        return True

    def screen(self) -> str:
        over = "  [game over]" if self.game.is_over(self.state) else ""
        footer = f"score {self.game.score(self.state)}{over}  {self.controls.quit_key} quits"
        return f"{self.game.render(self.state)}\n\n{footer}\n{self.message}"


def describe_event(event: dict[str, Any]) -> str:
    """One event as text: its type, then its plain fields (``hint swap=swap C4 right``)."""
    words = [str(event.get("type", "event"))]
    for key, value in event.items():
        if key != "type" and isinstance(value, str | int | float) and not isinstance(value, bool):
            words.append(f"{key}={value}")
    return " ".join(words)


def _key_name(code: int | str) -> str:
    if isinstance(code, str):
        return code
    return curses.keyname(code).decode() if code > 255 else chr(code)


def run_curses(session: TerminalSession) -> None:
    """Draw the session in a curses window until the player quits."""

    def loop(window: Any) -> None:
        curses.curs_set(0)
        idle = session.controls.idle
        next_idle = time.monotonic() + (idle[0] if idle else 0)
        while not session.quit:
            window.timeout(int(idle[0] * 1000) if idle else -1)
            window.erase()
            for row, line in enumerate(session.screen().splitlines()):
                try:
                    window.addstr(row, 0, line)
                except curses.error:
                    break
            window.refresh()
            try:
                code = window.get_wch()
            except curses.error:
                code = None
            if code is None:
                if (
                    idle
                    and time.monotonic() >= next_idle
                    and not session.game.is_over(session.state)
                ):
                    session.run(idle[1], quiet=True)
                    next_idle = time.monotonic() + idle[0]
                continue
            partial = session.press(_key_name(code))
            if partial is not None:
                session.run(_prompt(window, partial))

    curses.wrapper(loop)


def _prompt(window: Any, start: str) -> str:
    height, _ = window.getmaxyx()
    window.addstr(height - 1, 0, f"> {start} ")
    curses.echo()
    curses.curs_set(1)
    window.timeout(-1)
    try:
        typed = window.getstr(height - 1, len(start) + 3).decode(errors="replace")
    finally:
        curses.noecho()
        curses.curs_set(0)
    return f"{start} {typed}".strip()
