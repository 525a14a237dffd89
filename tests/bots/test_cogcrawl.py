"""The Cogcrawl bot door: the pinned ``make_bot(seed).act(view)`` interface."""

from playbench.bots.cogcrawl import make_bot, run_delver
from playbench.core.match import Match
from playbench.games.cogcrawl.delver import delver_reply


def test_the_bot_answers_a_view_with_the_delvers_reply():
    match = Match.start("cogcrawl", 4)
    view = match.view()
    assert make_bot(4).act(view) == delver_reply(view["observation"])


def test_the_bot_plays_a_match_on_the_view_alone_and_keeps_its_notes():
    match = Match.start("cogcrawl", 5)
    bot = make_bot(5)
    written = []
    for _ in range(30):
        reply = bot.act(match.view())
        written.append(reply["notes"])
        assert match.play(reply).ok
        # the game echoes the notes: the bot's memory survives the turn
        assert match.view()["observation"]["notes"] == written[-1]
    assert written[-1].startswith("L")


def test_the_bot_is_deterministic_for_its_seed():
    first, second = Match.start("cogcrawl", 6), Match.start("cogcrawl", 6)
    for _ in range(40):
        first.play(make_bot(6).act(first.view()))
        second.play(make_bot(6).act(second.view()))
    assert first.fingerprint() == second.fingerprint()


def test_run_delver_plays_through_match_and_names_the_cause_of_death():
    run = run_delver(2, 3000)
    assert run.state == "dead" and run.cause.startswith("killed by")
    assert run.turns > 0 and run.primitives >= run.turns
