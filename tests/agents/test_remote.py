import pytest

from playbench.agents.remote import ServerError, command_for, solve_puzzle
from playbench.core import get_game
from playbench.core.errors import CommandError


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is 12 + 34 * 56?", 12 + 34 * 56),
        ("What is 2 + 2 * 2?", 6),
        ("what is (3 + 4) * 5", 35),
        ("What is 99 - 98 * 2?", -97),
    ],
)
def test_the_agent_check_is_answered(question, answer):
    assert solve_puzzle(question) == answer


@pytest.mark.parametrize(
    "question",
    ["Who are you?", "What is 2 ** 10?", "What is __import__('os')?", "What is 1 / 2?"],
)
def test_a_question_that_is_no_sum_is_a_clear_error(question):
    with pytest.raises(ServerError, match="cannot read the agent-check question"):
        solve_puzzle(question)


def test_an_action_becomes_its_command_text():
    assert command_for(get_game("delvewick"), {"type": "move", "dir": "left"}) == "left"
    assert command_for(get_game("gem-swap"), {"command": "swap C4 right"}) == "swap C4 right"


def test_a_seat_reply_with_say_and_notes_is_sent_as_raw_json():
    reply = {"actions": [{"do": "search"}], "say": "hm", "notes": "n"}
    text = command_for(get_game("cogcrawl"), reply)
    assert text == '{"actions":[{"do":"search"}],"notes":"n","say":"hm"}'
    assert get_game("cogcrawl").parse_command(text) == {"reply": text}


def test_an_action_without_text_is_refused():
    with pytest.raises(CommandError):
        command_for(get_game("delvewick"), {"type": "fly"})
