"""``playbench play`` and ``playbench replay`` under a real pseudo-terminal of 80x24,
read back as a person sees it: the output goes through a terminal emulator (pyte), and
each test waits for what the screen shows, never for a clock."""

from __future__ import annotations

import os
import random
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect
import pyte
import pytest
from pyte.graphics import FG_BG_256

from playbench.core.match import Match
from playbench.runner.episode import EpisodeSpec, Task, play
from playbench.runner.replay import dump_lines
from playbench.terminal import TerminalSession

ROWS, COLS = 24, 80
#: a cap on waiting for a screen that never comes (the verdict never depends on it)
PATIENCE_SECONDS = 60
ESCAPE = "\x1b"
ORANGE = FG_BG_256[208]
CLOSE = "any key returns to the game"


class Terminal:
    """A ``playbench`` command in a pseudo-terminal, its output drawn on an emulated
    screen."""

    def __init__(self, child: pexpect.spawn, rows: int, cols: int) -> None:
        self.child = child
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    @property
    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def feed(self) -> bool:
        """Read what the program wrote; False once it has ended."""
        try:
            data = self.child.read_nonblocking(65536, timeout=PATIENCE_SECONDS)
        except pexpect.EOF:
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def until(self, shown: Callable[[Terminal], bool], what: str) -> None:
        while not shown(self):
            if not self.feed():
                raise AssertionError(f"the program ended before {what}:\n{self.text}")

    def shows(self, text: str) -> None:
        self.until(lambda t: text in t.text, repr(text))

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def ended(self) -> str:
        """Everything the program wrote, once it has ended."""
        while self.feed():
            pass
        self.child.wait()
        return self.raw.decode(errors="replace")


@contextmanager
def terminal(*args: str, rows: int = ROWS, cols: int = COLS) -> Iterator[Terminal]:
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "playbench.cli", *args],
        dimensions=(rows, cols),
        env=env,
        timeout=PATIENCE_SECONDS,
    )
    try:
        yield Terminal(child, rows, cols)
    finally:
        child.close(force=True)


def cogcrawl_footer() -> str:
    return TerminalSession(Match.start("cogcrawl", 7)).footer()


def test_cogcrawl_key_line_whole_and_q_asks_and_escape_cancels() -> None:
    footer = cogcrawl_footer()
    assert footer.endswith("? all keys, Q quits") and len(footer) <= COLS - 1
    with terminal("play", "cogcrawl", "--seed", "7") as term:
        term.until(lambda t: footer in t.lines, "the key line")
        assert "Dlvl:1" in term.text
        term.send("q")
        term.shows("> quaff [nothing now; Esc cancels]")
        term.send(ESCAPE)
        term.shows("quaff: cancelled")
        assert "needs a pack letter" not in term.text and "^[" not in term.text
        assert "T:0" in term.text  # nothing was sent: the turn is still 0
        term.send("e")
        term.shows("> eat [c, d; Esc cancels]")
        term.send(ESCAPE)
        term.shows("eat: cancelled")
        term.send("Q")
        assert "Cogcrawl seed 7: score 0, quit after 0 actions;" in term.ended()


def test_cogcrawl_inventory_and_every_key() -> None:
    with terminal("play", "cogcrawl", "--seed", "7") as term:
        term.shows("Dlvl:1")
        term.send("i")
        term.until(lambda t: "Your pack" in t.text and CLOSE in t.text, "the pack")
        for line in (
            "a - dagger (weapon, wielded)",
            "b - leather armour (armour, worn)",
            "c - food ration (food)",
        ):
            assert line in term.lines
        term.send(" ")
        term.until(lambda t: "Your pack" not in t.text and "Dlvl:1" in t.text, "the map again")
        term.send("?")
        term.until(lambda t: "every key" in t.text and CLOSE in t.text, "the keys")
        help_text = term.text
        for entry in ("quaff …", "kick (then a direction key)", "your pack", "Esc", "quit"):
            assert entry in help_text
        assert help_text.rstrip().splitlines()[-1].strip() == CLOSE
        term.send("x")
        term.shows("Dlvl:1")
        term.send("Q")
        term.ended()


def test_gem_swap_quit_line_counts_what_was_played_and_says_how_to_play_again() -> None:
    expected = Match.start("gem-swap", 7)
    expected.command("hint")
    expected.command("swap D2 right")
    with terminal("play", "gem-swap", "--seed", "7") as term:
        term.shows("h hint (costs 50)")
        # orange gems are drawn orange on a terminal of 256 colours
        term.until(lambda t: any(t.screen.buffer[3][x].data == "O" for x in range(COLS)), "row 2")
        row = term.screen.buffer[3]
        orange = [row[x].fg for x in range(COLS) if row[x].data == "O"]
        assert orange and set(orange) == {ORANGE}
        term.send("h")
        term.shows("(the hint cost 50 points)")
        term.send("m")
        term.shows("swaps make a line: D2 right, G2 down,")
        term.send("s")
        term.shows("> swap [Esc cancels]")
        term.send("D2 right\r")
        term.shows(f"score {expected.score}")
        term.send("Q")
        out = term.ended()
    summary = (
        f"Gem Swap seed 7: score {expected.score}, quit after 2 actions (1 hint, 1 swap); "
        "play the same seed again: playbench play gem-swap --seed 7"
    )
    assert summary in out


def test_chimestep_tells_its_events_in_words() -> None:
    """Started and hopped on a drawn seed while its clock ticks: the stage, then the hop
    (queued until the chick can hop, or landed and rung) in words, never the events'
    machine names."""
    seed = random.randrange(2**31)
    with terminal("play", "chimestep", "--seed", str(seed)) as term:
        term.shows("space or s starts")
        term.send(" ")
        term.shows("stage 1: get ready")
        term.shows("target 1  playing")  # the stage's intro ticked away
        term.send("k")
        term.until(
            lambda t: "ring (+" in t.text or "hop down-right queued" in t.text, "the hop told"
        )
        lines = [line for line in term.lines if line]
        told = lines[lines.index(next(line for line in lines if line.endswith("Q quits"))) + 1 :]
        assert told[0] == "stage 1: get ready"
        assert not [line for line in told if re.search(r"[A-Z][a-z]+:|\bdir |[a-z][A-Z]", line)]
        term.send("Q")
        assert f"Chimestep seed {seed}: score" in term.ended()


@pytest.mark.parametrize("slug", ["delvewick", "chimestep", "gem-swap", "cogcrawl"])
def test_replay_fits_80_by_24_header_board_and_legend(tmp_path: Path, slug: str) -> None:
    episode = play(EpisodeSpec(slug, "random", max_steps=12), Task(3))
    path = tmp_path / f"{slug}.jsonl"
    path.write_bytes(dump_lines(episode.replay))
    steps = len(episode.replay) - 2
    with terminal("replay", str(path), "--speed", "1000") as term:
        term.shows(f"step {steps}/{steps} ")
        text = term.text
        assert text.splitlines()[0].startswith(f"replay {slug} seed 3 · random")
        assert "Q quit" in text
        if slug == "delvewick":
            # the legend, wrapped, is whole: its last words are on the screen
            assert "# bedrock" in text and "lowercase o v g: falling" in text
        term.send("Q")
        term.ended()


def test_a_terminal_too_small_says_how_large_it_must_be() -> None:
    with terminal("play", "cogcrawl", "--seed", "7", cols=40) as term:
        term.shows("make it larger.")
        said = " ".join(term.text.split())
        assert "needs a terminal of at least 49 columns and 24 rows; this one has 40" in said
        term.send("Q")
        term.ended()
