"""``playbench replay FILE``: a replay played back in the terminal.

:class:`Playback` rebuilds the run step by step through :class:`Match` and gives the
screen of each step (the game's board, where the replay stands, what the step did and
what the agent said); :func:`run_playback` only draws it with curses and reads keys:
space pauses, ``→``/``l`` and ``←``/``h`` step while paused, ``+``/``-`` double or halve
the speed, ``q`` quits. Without a terminal every screen is printed one after another.
"""

from __future__ import annotations

import curses
import time
from collections.abc import Iterator
from typing import Any, TextIO

from playbench.core.match import Match
from playbench.runner.replay import Replay
from playbench.terminal import describe_event

DEFAULT_SPEED = 10.0
MAX_SPEED = 1000.0
MIN_SPEED = 0.1
KEYS_HINT = "space pause · ←/→ step · +/- speed · q quit"


class Playback:
    """A replay as screens, forward and back; no drawing."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.match = self._start()
        #: how many of the replay's actions are applied
        self.index = 0
        self.message = "start"

    def _start(self) -> Match:
        head = self.replay.header
        return Match.start(head["game"], head["seed"], head["options"])

    @property
    def total(self) -> int:
        return len(self.replay.lines)

    @property
    def at_end(self) -> bool:
        return self.index >= self.total

    def forward(self) -> bool:
        """Apply the next action; False at the end."""
        if self.at_end:
            return False
        line = self.replay.lines[self.index]
        result = self.match.play(line["action"])
        self.index += 1
        words = [describe_event(event) for event in result.events]
        if not result.ok:
            words.insert(0, f"refused: {result.reason}")
        for turn in line.get("turns", []):
            if turn.get("say"):
                words.append(f"says: {turn['say']}")
            if turn.get("fallback"):
                words.append("(the bot played this turn)")
        self.message = "; ".join(words)
        return True

    def back(self) -> bool:
        """Go one action back (the run is rebuilt from its seed); False at the start."""
        if self.index == 0:
            return False
        target = self.index - 1
        self.match = self._start()
        self.index = 0
        while self.index < target:
            self.forward()
        if target == 0:
            self.message = "start"
        return True

    def screen(self) -> str:
        head = self.replay.header
        model = f" ({head['model']})" if head.get("model") else ""
        status = "end" if self.at_end else "playing"
        footer = (
            f"replay {head['game']} seed {head['seed']} · {head['agent']}{model} · "
            f"step {self.index}/{self.total} · score {self.match.score} · {status}"
        )
        return f"{self.match.game.render(self.match.state)}\n\n{footer}\n{self.message}"

    def screens(self) -> Iterator[str]:
        """Every screen from here to the end."""
        yield self.screen()
        while self.forward():
            yield self.screen()


def print_playback(playback: Playback, out: TextIO) -> None:
    """Every screen, one after another, for a reader without a terminal."""
    for screen in playback.screens():
        out.write(f"{screen}\n\n")


def run_playback(playback: Playback, speed: float) -> None:
    """Draw the playback with curses at ``speed`` actions a second until ``q``."""

    def loop(window: Any) -> None:
        curses.curs_set(0)
        paused = False
        rate = speed
        next_step = time.monotonic()
        while True:
            window.erase()
            state = " [paused]" if paused else ""
            text = f"{playback.screen()}\n{rate:g} actions/s{state} · {KEYS_HINT}"
            for row, line in enumerate(text.splitlines()):
                try:
                    window.addstr(row, 0, line)
                except curses.error:
                    break
            window.refresh()
            wait = max(0.0, next_step - time.monotonic())
            window.timeout(-1 if paused or playback.at_end else int(wait * 1000))
            try:
                key = window.get_wch()
            except curses.error:
                key = None
            if key is None:
                playback.forward()
                next_step = time.monotonic() + 1 / rate
                continue
            name = key if isinstance(key, str) else curses.keyname(key).decode()
            if name in ("q", "Q"):
                return
            if name == " ":
                paused = not paused
            elif name in ("+", "="):
                rate = min(MAX_SPEED, rate * 2)
            elif name == "-":
                rate = max(MIN_SPEED, rate / 2)
            elif name in ("KEY_RIGHT", "l"):
                playback.forward()
            elif name in ("KEY_LEFT", "h"):
                playback.back()
            next_step = time.monotonic() + 1 / rate

    curses.wrapper(loop)
