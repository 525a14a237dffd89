"""The match kernel: stepping, refusals, counted refusals, the log, replay and the view."""

import pytest

from playbench.core.errors import OptionsError, StateError
from playbench.core.match import Match, StepResult
from tests.fakes import Counter
from tests.server.tally import Tally

COUNTER = Counter()
TALLY = Tally()
VIEW_KEYS = [
    "game",
    "observation",
    "board",
    "legalActions",
    "commands",
    "score",
    "gameOver",
    "progress",
    "moves",
]


def test_start_takes_a_slug_or_a_game():
    by_slug = Match.start("delvewick", 3)
    assert by_slug.game.slug == "delvewick" and by_slug.seed == 3 and by_slug.options is None
    by_game = Match.start(COUNTER, 4, {})
    assert by_game.game is COUNTER and by_game.state == {"total": 0, "seed": 4}


def test_start_refuses_a_bad_seed_with_the_games_error():
    with pytest.raises(OptionsError):
        Match.start(COUNTER, -1)


def test_an_accepted_action_moves_on_and_is_logged():
    match = Match.start(COUNTER, 0)
    result = match.play({"add": 2})
    assert result == StepResult(
        ok=True, reward=2, events=[{"type": "add"}], advanced=True, action={"add": 2}
    )
    assert match.state["total"] == 2 and match.log == [{"add": 2}] and match.moves == 1


def test_a_refusal_costs_nothing_and_is_not_logged():
    match = Match.start(COUNTER, 0)
    result = match.play({"add": 3})
    assert not result.ok and not result.advanced and "cannot" in result.reason
    assert match.state["total"] == 0 and match.log == [] and match.moves == 0


def test_a_command_that_does_not_parse_is_a_refusal_with_the_parsers_reason():
    match = Match.start(COUNTER, 0)
    result = match.command("add 9")
    assert result.ok is False and result.action is None and not result.advanced
    assert result.reason == "unknown command 'add 9': try 'add 1' or 'add 2'"
    assert match.command(None).action is None


def test_a_command_is_parsed_then_played():
    match = Match.start(COUNTER, 0)
    assert match.command("add 1").ok and match.log == [{"add": 1}]


def test_a_counted_refusal_moves_the_match_on_and_is_logged():
    match = Match.start(TALLY, 5)
    result = match.play({"type": "fumble"})
    assert result.ok is False and result.advanced is True
    assert result.reason == "fumbled: counted"
    assert match.state.fumbles == 1 and match.log == [{"type": "fumble"}]
    again = Match.replay(TALLY, 5, None, match.log)
    assert again.fingerprint() == match.fingerprint()


def test_replay_rebuilds_the_match_and_its_view():
    match = Match.start(TALLY, 9)
    for action in ({"type": "step", "by": 2}, {"type": "fumble"}, {"type": "step", "by": 1}):
        match.play(action)
    match.play({"type": "step", "by": 7})  # refused, not logged
    again = Match.replay(TALLY, 9, None, match.log)
    assert len(match.log) == 3
    assert again.view() == match.view() and again.fingerprint() == match.fingerprint()


def test_replay_names_the_log_entry_that_was_refused():
    with pytest.raises(StateError, match=r"log entry 1 \(\{'add': 5\}\) was refused"):
        Match.replay(COUNTER, 0, None, [{"add": 1}, {"add": 5}])


def test_the_view_has_every_field_in_order():
    match = Match.start(COUNTER, 0)
    match.play({"add": 1})
    assert list(match.view()) == VIEW_KEYS
    assert match.view() == {
        "game": "counter",
        "observation": {"total": 1},
        "board": "total 1",
        "legalActions": [{"add": 1}, {"add": 2}],
        "commands": ["add 1", "add 2"],
        "score": 1,
        "gameOver": False,
        "progress": 0.2,
        "moves": 1,
    }


def test_a_finished_match_offers_nothing_and_refuses_more():
    match = Match.start(COUNTER, 0)
    for _ in range(3):
        match.play({"add": 2})
    assert match.over and match.score == 6
    assert match.view()["legalActions"] == [] and match.view()["commands"] == []
    assert not match.play({"add": 1}).advanced and len(match.log) == 3


def test_wrapping_a_reached_state_counts_moves_from_there():
    match = Match(COUNTER, {"total": 3, "seed": 0})
    assert match.moves == 0 and match.seed is None
    match.play({"add": 1})
    assert match.moves == 1 and match.log == [{"add": 1}]


def test_step_result_json_has_the_reason_only_when_refused():
    assert StepResult(ok=True, reward=3, events=[{"type": "x"}]).to_json() == {
        "ok": True,
        "reward": 3,
        "events": [{"type": "x"}],
    }
    assert StepResult(ok=False, reason="no").to_json() == {
        "ok": False,
        "reward": 0,
        "events": [],
        "reason": "no",
    }


def test_a_cogcrawl_reply_that_does_not_parse_is_counted_then_played_by_the_delver():
    match = Match.start("cogcrawl", 7)
    first = match.command("{not json")
    assert first.ok is False and first.advanced and len(match.log) == 1
    assert match.view()["observation"]["retry"] is True
    second = match.command("{still not json")
    assert second.ok is True and len(match.log) == 2
    assert Match.replay("cogcrawl", 7, None, match.log).fingerprint() == match.fingerprint()


def test_a_query_is_answered_but_is_no_move_and_is_not_logged():
    match = Match.start("gem-swap", 4)
    result = match.command("moves")
    assert result.ok and not result.advanced and result.events[0]["type"] == "moves"
    assert match.log == [] and match.moves == 0


def test_a_view_of_some_fields_is_that_part_of_the_whole_view():
    match = Match.start("gem-swap", 4)
    match.command("moves")
    whole = match.view()
    assert match.view(("score", "legalActions")) == {
        "score": whole["score"],
        "legalActions": whole["legalActions"],
    }
    with pytest.raises(ValueError, match="no view field 'seed'"):
        match.view(("seed",))
