"""Every game's events told in words at the terminal: each event of a shipped run (the
bot's and the random agent's, ``docs/bench/``, one drawn at random) has its game's own
sentence, never the plain ``type: field value`` form, and what a step tells is read the
same in play (keys pressed) and in a replay."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playbench.core.controls import controls_of
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.games.cogcrawl.constants import TURN_LIMIT
from playbench.games.delvewick.controls import CONTROLS as DELVEWICK_KEYS
from playbench.runner.playback import Playback
from playbench.runner.replay import Replay, read_replay
from playbench.terminal import TerminalSession

SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "bench"
GAMES = ["delvewick", "chimestep", "gem-swap", "cogcrawl"]
#: what a sentence for a person never holds: a machine name (``levelClear``,
#: ``out_of_turns``, ``downLeft``), a raw field (``dir up``, ``x=3``), a cell as the plain
#: form writes it (``row 2 col 1``), JSON
RAW = re.compile(r"[a-z][A-Z]|\w_\w|=|[{}\[\]]|\brow \d+ col \d+|\bdir |\bkind ")
#: events every shipped run of the game has (each run starts, and scores)
EVERY_RUN = {
    "delvewick": {"move"},
    "chimestep": {"start", "ring"},
    "gem-swap": {"swap", "cascade"},
    "cogcrawl": set(),
}


def drawn_run(agent: str, slug: str) -> Replay:
    files = sorted((SHIPPED / agent / slug / "replays").glob("*.jsonl"))
    return read_replay(random.choice(files))


def steps(replay: Replay) -> Iterator[tuple[Match, list[dict[str, Any]]]]:
    """The run step by step: the match after each action and that action's events."""
    head = replay.header
    match = Match.start(head["game"], head["seed"], head.get("options"))
    for action in replay.actions:
        yield match, match.play(action).events


@pytest.mark.parametrize("agent", ["bot", "random"])
@pytest.mark.parametrize("slug", GAMES)
def test_every_event_of_a_shipped_run_has_its_games_own_words(slug: str, agent: str):
    words = controls_of(get_game(slug)).words
    assert words is not None
    kinds: set[str] = set()
    for match, events in steps(drawn_run(agent, slug)):
        view = match.view()
        for event in events:
            said = words(event, view)
            assert said is not None, event  # not left to the plain form
            assert not RAW.search(said), (event, said)
            kinds.add(event["type"])
    assert EVERY_RUN[slug] <= kinds


@pytest.mark.parametrize("slug", GAMES)
def test_a_replay_tells_each_step_as_play_does(slug: str):
    """``playbench replay``'s message for each step is the told events of that step (with
    nothing of the plain form), the same words a person playing sees."""
    replay = drawn_run("bot", slug)
    playback = Playback.of(replay)
    told = TerminalSession(Match.start(slug, replay.header["seed"], replay.header.get("options")))
    for step, (_, events) in enumerate(steps(replay), start=1):
        assert playback.forward()
        said = told.told(events)
        assert not RAW.search(said), said
        if said:
            assert said in playback.message
        else:  # nothing told: the step's number, or what the seat said
            assert playback.message.startswith((f"step {step}", "says: ", "refused: ", "(the bot"))
    assert playback.at_end


def test_delvewick_keys_tell_what_each_step_did():
    """A person pressing the keys of the bot's run of a level: after each key the message
    line holds what that step told (a gem with its points, the open exit, the cleared
    level), and a step that tells nothing (a move the board shows) leaves it as it was."""
    replay = drawn_run("bot", "delvewick")
    head = replay.header
    session = TerminalSession(Match.start("delvewick", head["seed"], head.get("options")))
    twin = TerminalSession(Match.start("delvewick", head["seed"], head.get("options")))
    key_of = {command: key for key, command in reversed(DELVEWICK_KEYS.keys.items())}
    gems = 0
    for action in replay.actions:
        before = session.message
        session.press(key_of[action["dir"] if action["type"] == "move" else "wait"])
        events = twin.match.play(action).events
        said = twin.told(events)
        assert session.message == (said or before)
        for event in events:
            if event["type"] == "collect":
                gems += 1
                chain = f", chain of {event['chain']}" if event["chain"] > 1 else ""
                assert f"gem{chain} (+{event['points']} points)" in said
    assert session.match.fingerprint() == twin.match.fingerprint()
    assert gems > 0


@pytest.mark.parametrize(
    ("slug", "event", "said"),
    [
        ("delvewick", {"type": "move", "dir": "up"}, ""),
        ("delvewick", {"type": "collect", "points": 25, "chain": 1}, "gem (+25 points)"),
        (
            "delvewick",
            {"type": "collect", "points": 45, "chain": 3},
            "gem, chain of 3 (+45 points)",
        ),
        (
            "delvewick",
            {"type": "levelClear", "level": 1, "name": "Topsoil", "points": 300, "oilLeft": 40},
            "level 1, Topsoil, cleared with 40 units of oil left (+300 points)",
        ),
        (
            "delvewick",
            {"type": "crushed", "object": "boulder"},
            "crushed by a falling boulder: the run is over",
        ),
        ("chimestep", {"type": "ring", "chain": 1, "points": 30}, "ring (+30 points)"),
        (
            "chimestep",
            {"type": "teeter", "dir": "downLeft", "points": 0},
            "teetering on the rim: hop down-left again and the chick leaps off",
        ),
        ("chimestep", {"type": "lifeLost", "lives": 1, "points": 0}, "a life lost: 1 life left"),
        (
            "chimestep",
            {"type": "toll", "scattered": 2, "points": 0},
            "the bell tolls: 2 Hush scattered",
        ),
        (
            "chimestep",
            {"type": "stageClear", "stage": 2, "stageHops": 31, "par": 28, "points": 410},
            "stage 2 cleared in 31 hops (par 28) (+410 points)",
        ),
        ("chimestep", {"type": "tick", "count": 3}, ""),
        (
            "gem-swap",
            {"type": "cascade", "step": 2, "cleared": ["A1", "A2", "A3"], "points": 60},
            "cascade x2: 3 gems cleared (+60 points)",
        ),
        ("cogcrawl", {"type": "level", "dl": 3}, "you reach dungeon level 3"),
        (
            "cogcrawl",
            {"type": "died", "cause": "killed by a jackal"},
            "you die: killed by a jackal",
        ),
        ("cogcrawl", {"type": "found", "x": 34, "y": 6}, "you find a hidden way at x 34, y 6"),
        (
            "cogcrawl",
            {"type": "out_of_turns"},
            f"out of turns: the run is over after {TURN_LIMIT:,} dungeon turns",
        ),
        ("cogcrawl", {"type": "killed", "monster": "jackal"}, ""),
    ],
)
def test_each_games_sentences(slug: str, event: dict[str, Any], said: str):
    assert controls_of(get_game(slug)).words(event, {}) == said
