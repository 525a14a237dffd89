"""``playbench replay FILE``: a replay played back in the terminal.

:class:`Playback` is a :class:`~playbench.terminal.TerminalSession` whose moves come from
the replay instead of keys: it rebuilds the run step by step through its :class:`Match`
and keeps the terminal's screen (coloured board, messages: what each step did and what
the agent said), with a header naming the replay and a footer saying where it stands.
:func:`run_playback` draws it with the terminal's :func:`~playbench.terminal.draw` and
reads keys: space pauses, ``→``/``l`` and ``←``/``h`` step while paused, ``+``/``-``
double or halve the speed, ``Q`` quits (as in play). Without a terminal, every screen is printed one
after another.
"""

from __future__ import annotations

import curses
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from playbench.core.match import Match
from playbench.runner.replay import Replay
from playbench.terminal import TerminalSession, color_pairs, draw

DEFAULT_SPEED = 10.0
MAX_SPEED = 1000.0
MIN_SPEED = 0.1
KEYS_HINT = "space pause · ←/→ step · +/- speed · Q quit"


@dataclass
class Playback(TerminalSession):
    """A replay as terminal screens, forward and back; no drawing."""

    replay: Replay | None = None
    #: how many of the replay's actions are applied
    index: int = 0
    #: the playback's speed line, drawn last
    status: str = ""

    @classmethod
    def of(cls, replay: Replay) -> Playback:
        playback = cls(match=_start(replay), replay=replay)
        playback.say("start of the replay")
        return playback

    @property
    def lines(self) -> list[Any]:
        return self.replay.lines if self.replay is not None else []

    @property
    def total(self) -> int:
        return len(self.lines)

    @property
    def at_end(self) -> bool:
        return self.index >= self.total

    def forward(self) -> bool:
        """Apply the next action; False at the end."""
        if self.at_end:
            return False
        line = self.lines[self.index]
        result = self.match.play(line["action"])
        self.index += 1
        told = self.told(result.events)
        words = [told] if told else []
        if not result.ok:
            words.insert(0, f"refused: {result.reason}")
        for turn in line.get("turns", []):
            if turn.get("say"):
                words.append(f"says: {turn['say']}")
            if turn.get("fallback"):
                words.append("(the bot played this turn)")
        self.say("; ".join(words) or f"step {self.index}")
        return True

    def back(self) -> bool:
        """Go one action back (the run is rebuilt from its seed); False at the start."""
        if self.index == 0 or self.replay is None:
            return False
        target = self.index - 1
        self.match = _start(self.replay)
        self.messages.clear()
        self.index = 0
        self.say("start of the replay")
        while self.index < target:
            self.forward()
        return True

    def header(self) -> str:
        head = self.replay.header if self.replay is not None else {}
        model = f" ({head['model']})" if head.get("model") else ""
        return f"replay {head.get('game')} seed {head.get('seed')} · {head.get('agent')}{model}"

    def footer(self) -> str:
        status = "end" if self.at_end else "playing"
        return f"step {self.index}/{self.total} · score {self.match.score} · {status}"

    def footer_lines(self) -> list[str]:
        return [self.footer(), self.status] if self.status else [self.footer()]

    def screens(self) -> Iterator[str]:
        """Every screen from here to the end."""
        yield self.screen()
        while self.forward():
            yield self.screen()


def _start(replay: Replay) -> Match:
    head = replay.header
    return Match.start(head["game"], head["seed"], head["options"])


def print_playback(playback: Playback, out: TextIO) -> None:
    """Every screen, one after another, for a reader without a terminal."""
    for screen in playback.screens():
        out.write(f"{screen}\n\n")


def run_playback(playback: Playback, speed: float) -> None:
    """Draw the playback with curses at ``speed`` actions a second until ``q``."""

    def loop(window: Any) -> None:
        curses.curs_set(0)
        pairs = color_pairs()
        paused = False
        rate = speed
        next_step = time.monotonic() + 1 / rate
        while True:
            state = " [paused]" if paused else ""
            playback.status = f"{rate:g} actions/s{state} · {KEYS_HINT}"
            draw(window, playback, pairs)
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
