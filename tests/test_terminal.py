import io
import random

import pytest

from playbench import __version__
from playbench.cli import main
from playbench.core import all_games
from playbench.core.match import Match
from playbench.terminal import TerminalSession
from tests.fakes import COUNTER_CONTROLS, Counter


def session() -> TerminalSession:
    game = Counter()
    return TerminalSession(Match(game, game.new(0)), COUNTER_CONTROLS)


def test_single_key_runs_its_command():
    s = session()
    assert s.press("b") is None
    assert s.state["total"] == 2
    assert s.log == ["add 2"]


def test_key_sequence_waits_for_its_second_key():
    s = session()
    s.press("x")
    assert s.pending == "x" and s.state["total"] == 0
    s.press("y")
    assert s.pending == "" and s.state["total"] == 1


def test_broken_sequence_is_dropped_with_a_message():
    s = session()
    s.press("x")
    s.press("z")
    assert s.pending == "" and s.state["total"] == 0
    assert "does nothing" in s.message


def test_prompt_command_is_returned_for_completion():
    s = session()
    assert s.press("p") == "add"
    assert s.run("add 2") and s.state["total"] == 2


def test_bad_prompt_text_keeps_state_and_says_why():
    s = session()
    assert not s.run("add 9")
    assert s.state["total"] == 0 and "unknown command" in s.message


def test_refused_action_reports_reason():
    s = session()
    for _ in range(3):
        s.press("b")
    assert s.state["total"] == 6
    s.press("a")
    assert s.state["total"] == 6 and s.message.startswith("refused:")


def test_q_quits():
    s = session()
    s.press("Q")
    assert s.quit


def test_screen_shows_board_and_score_and_says_when_over():
    s = session()
    s.press("a")
    screen = s.screen()
    assert "total 1" in screen and "score 1" in screen and "game over" not in screen
    s.press("b")
    s.press("b")
    assert "[game over]" in s.screen()


def test_events_are_described_in_words_with_their_plain_fields():
    from playbench.terminal import describe_event

    event = {"type": "outOfOil", "gems": 4, "cells": [1, 2], "ok": True, "points": 30}
    assert describe_event(event) == "Out of oil: gems 4, ok yes (+30 points)"
    moved = {"type": "move", "to": {"row": 4, "col": 3}, "cleared": ["B2", "B3"]}
    assert describe_event(moved) == "Move: to row 4 col 3, cleared B2 B3"
    assert describe_event({"cell": {"row": 1}}) == "Event"


def test_quiet_commands_keep_the_message_line():
    s = session()
    s.press("b")
    assert s.message == "Add"
    assert s.run("add 1", quiet=True) and s.state["total"] == 3
    assert s.message == "Add"
    s.run("add 2")
    assert not s.run("add 1", quiet=True)
    assert s.message == "Add"


def test_the_screen_keeps_the_last_few_messages():
    s = session()
    for key in "zzzzzz":
        s.press(key)
    s.press("a")
    assert len(s.messages) == 4 and s.message == "Add"
    assert s.screen().splitlines()[-4:] == list(s.messages)


def test_the_header_shows_the_seed_and_the_summary_tells_how_to_play_it_again():
    game = Counter()
    s = TerminalSession(Match.start(game, 42), COUNTER_CONTROLS)
    assert s.screen().splitlines()[0] == "Counter  seed 42"
    s.press("b")
    assert s.summary() == (
        "Counter seed 42: score 2, quit after 1 action (1 add); "
        "play the same seed again: playbench play counter --seed 42"
    )


def test_a_game_whose_seed_changes_nothing_offers_none():
    match = Match.start("delvewick", 7, {"startLevel": 3})
    s = TerminalSession(match)
    assert s.screen().splitlines()[0] == "Delvewick"
    s.press("q")
    summary = s.summary()
    assert "seed" not in summary
    assert summary.endswith(
        "play it again: playbench play delvewick --options '{\"startLevel\":3}'"
    )
    assert (
        TerminalSession(Match.start("delvewick", 7))
        .summary()
        .endswith("play it again: playbench play delvewick")
    )


def test_play_with_a_seed_that_changes_nothing_is_refused(capsys):
    assert main(["play", "delvewick", "--seed", "3"]) == 2
    assert capsys.readouterr().err == (
        "playbench: Delvewick's seed changes nothing (every run plays the same levels): drop "
        "--seed; --level or --options choose where it starts\n"
    )


def test_play_without_a_terminal_is_one_clear_line_and_exit_2(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "gem-swap", "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "playbench: play needs a terminal: run it in a terminal window, not with its input "
        "or output piped or redirected\n"
    )


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out == f"playbench {__version__}\n"


def test_board_lines_are_coloured_and_prose_is_not():
    match = Match.start("delvewick", 0)
    s = TerminalSession(match)
    lines = s.screen_lines()
    header, first_row = lines[1], lines[2]
    assert header[1] == []
    assert first_row[0] == "#" * 18 and set(first_row[1]) == {"blue"}
    mole_row = lines[3]
    assert mole_row[1][1] == "green" and mole_row[1][2] == "yellow"


def test_the_footer_names_the_keys_so_chimestep_says_which_key_starts():
    s = TerminalSession(Match.start("chimestep", 1))
    footer = s.screen().splitlines()[-1]
    assert footer.startswith("score 0  space or s starts, u i j k")
    assert footer.endswith("n ticks N, ? all keys, Q quits")


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.slug)
def test_every_game_fits_80_by_24_with_its_key_line_whole(game):
    s = TerminalSession(Match.start(game, 7))
    for _ in range(3):
        if s.match.over:
            break
        s.run(s.match.view()["commands"][0])
    lines = s.screen(23, 79).splitlines()
    assert len(lines) <= 23 and max(map(len, lines)) <= 79
    said = " ".join(" ".join(lines).split())
    assert " ".join(s.footer().split()) in said
    assert said.count(s.controls.quit_key + " quits") == 1


def test_a_tall_board_is_cropped_around_the_player():
    s = TerminalSession(Match.start("cogcrawl", 7))
    full = s.screen().splitlines()
    small = s.screen(15, 79).splitlines()
    assert len(full) > 15 and len(small) == 15
    assert any("@" in line for line in small) and small[-1].startswith("score 0")


def test_escape_drops_a_half_typed_key_sequence():
    s = session()
    s.press("x")
    s.press("\x1b")
    assert s.pending == "" and s.message == "cancelled" and s.state["total"] == 0


def test_help_lists_every_key_and_any_key_closes_it():
    s = session()
    s.press("?")
    shown = s.screen()
    assert shown.splitlines()[0] == "Counter: every key"
    for entry in ("a", "b", "add 1", "add 2", "add …", "Esc", "quit"):
        assert entry in shown
    s.press("a")
    assert s.overlay is None and s.state["total"] == 0


def test_cogcrawl_pack_panel_lists_the_letters():
    s = TerminalSession(Match.start("cogcrawl", 7))
    s.press("i")
    assert s.screen().splitlines()[2:6] == [
        "a - dagger (weapon, wielded)",
        "b - leather armour (armour, worn)",
        "c - food ration (food)",
        "d - food ration (food)",
    ]
    assert s.choices("quaff") == "nothing now" and s.choices("eat") == "c, d"


@pytest.mark.parametrize("slug", ["delvewick", "chimestep", "gem-swap", "cogcrawl"])
def test_every_game_quits_on_q_upper_and_prints_its_events_in_words(slug):
    """One quit key for every game; what the commands did is told in words, never in the
    events' raw ``key=value`` form."""
    match = Match.start(slug, random.randrange(2**53))
    s = TerminalSession(match)
    said = []
    for turn in range(60):
        commands = match.view()["commands"]
        if match.over or not commands:
            break
        s.run(random.Random(turn).choice(commands))
        said.append(s.message)
    assert said and not [line for line in said if "=" in line]
    s.press("Q")
    assert s.quit


def test_gem_swap_moves_list_goes_once_a_swap_changes_the_board():
    s = TerminalSession(Match.start("gem-swap", random.randrange(2**53)))
    s.run("moves")
    listed = s.message
    assert "make a line" in listed or "makes a line" in listed
    swap = next(c for c in s.match.view()["commands"] if c.startswith("swap "))
    s.run(swap)
    assert listed not in s.messages
    first, second = swap.split()[1], s.message.split()[3]
    assert s.message.startswith(f"swapped {first} and {second}") and "points)" in s.message


def test_a_bought_hint_stays_on_the_gem_swap_screen_until_the_next_swap():
    """The board's own line (not the message of the step, which says what it cost)."""
    seed = random.randrange(2**31)
    (event,) = Match.start("gem-swap", seed).command("hint").events
    line = f"hint: {event['swap']} lines up {event['gems']} gems"
    s = TerminalSession(Match.start("gem-swap", seed))
    assert line not in s.screen().splitlines()
    assert s.run("hint")
    assert line in [shown.strip() for shown in s.screen().splitlines()], seed
    assert s.run("moves")
    assert line in [shown.strip() for shown in s.screen().splitlines()], seed
    assert s.run(event["swap"])
    assert line not in [shown.strip() for shown in s.screen().splitlines()], seed
