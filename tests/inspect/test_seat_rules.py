"""The solver plays the seat's rules through Inspect's model API, with ``mockllm/model``
answering from a script: a refused move is retried once, then the fallback plays, and
both are counted; Inspect's message limit ends an episode ``truncated``."""

from __future__ import annotations

import random

from inspect_ai import eval as inspect_eval

from playbench.core.match import Match
from playbench.inspect.tasks import gem_swap
from playbench.runner.inspect_log import STORE_KEY
from tests.inspect.scripted import Script, first, legal_moves


def run(tmp_path, task, script, **limits):
    [log] = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": script},
        log_dir=str(tmp_path),
        display="none",
        **limits,
    )
    return log


def test_an_illegal_move_is_retried_then_the_fallback_plays_and_both_are_counted(tmp_path):
    script = Script("commands", ["swap 9 9 up"], ["swap 9 9 up"], ["swap 9 9 up"], first)
    log = run(tmp_path, gem_swap(seeds="4", max_turns=4), script)
    assert log.status == "success"
    [sample] = log.samples
    episode = sample.store[STORE_KEY]
    counts = episode["llm"]
    assert script.calls == 4
    # a third turn had no call left: nobody played it, so it is not counted
    assert (counts["turns"], counts["modelTurns"], counts["calls"]) == (2, 1, 4)
    assert (counts["retries"], counts["refused"], counts["fallbacks"]) == (2, 3, 1)
    notes = [note for line in episode["replay"][1:-1] for note in line.get("turns", ())]
    assert [note["played"] for note in notes] == ["bot", "model"]
    assert [note.get("retried", False) for note in notes] == [True, True]
    score = sample.scores["replay"]
    assert (score.metadata["turns"], score.metadata["modelTurns"]) == (2, 1)
    assert score.metadata["modelShare"] == 1 / 2
    assert log.results.scores[0].metrics["model_share"].value == 1 / 2
    actions = [line["action"] for line in episode["replay"][1:-1]]
    again = Match.replay("gem-swap", 4, None, actions)
    assert score.value == again.game.progress(again.state)
    # the retry prompt says why, in the conversation Inspect View shows
    retries = [m.text for m in sample.messages if m.role == "user" and "one retry" in m.text]
    assert len(retries) == 2
    assert retries[0].startswith("That reply was not used: the first move 'swap 9 9 up' was")


def test_the_message_limit_ends_an_episode_truncated(tmp_path):
    script = Script("commands")
    log = run(tmp_path, gem_swap(seeds="2", max_turns=50), script, message_limit=6)
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "message"
    assert sample.error is None
    score = sample.scores["replay"]
    assert score.metadata["outcome"] == "truncated"
    assert score.metadata["budget"] == "messageLimit"
    # the sample's input, the system prompt, then a message and a reply per turn
    assert len(sample.messages) == 6
    episode = sample.store[STORE_KEY]
    # the third turn began and asked for its call, which the limit stopped before the
    # model got it: a cut turn is no turn, and a call never made is no call
    assert (episode["llm"]["turns"], episode["llm"]["calls"], script.calls) == (2, 2, 2)
    assert episode["replay"][-1]["end"]["budget"] == "messageLimit"
    actions = [line["action"] for line in episode["replay"][1:-1]]
    assert len(actions) == 2
    again = Match.replay("gem-swap", 2, None, actions)
    assert score.value == again.game.progress(again.state)
    assert score.metadata["score"] == again.score


def test_the_reply_schema_and_the_picture_reach_the_model_as_the_seat_asks(tmp_path):
    script = Script("commands")
    log = run(tmp_path, gem_swap(seeds="1", max_turns=1, vision=True), script)
    assert log.status == "success"
    [(messages, config)] = script.asked
    assert config.response_schema.name == "seat_reply"
    moves = config.response_schema.json_schema.properties["commands"]
    assert moves.type == "array"
    user = messages[-1]
    assert [part.type for part in user.content] == ["text", "image"]
    assert user.content[1].image.startswith("data:image/png;base64,")

    script = Script("commands")
    run(tmp_path / "text", gem_swap(seeds="1", max_turns=1, reply_format="text"), script)
    [(messages, config)] = script.asked
    assert config.response_schema is None
    assert isinstance(messages[-1].content, str)


def test_reflection_rewrites_the_notes_the_next_turn_shows(tmp_path):
    script = Script("commands")
    log = run(tmp_path, gem_swap(seeds="1", max_turns=4, reflect=1), script)
    [sample] = log.samples
    counts = sample.store[STORE_KEY]["llm"]
    assert (counts["calls"], counts["reflections"], counts["modelTurns"]) == (4, 2, 2)
    purposes = [config.response_schema.name for _messages, config in script.asked]
    assert purposes == ["seat_reply", "notes", "seat_reply", "notes"]
    second_turn = script.asked[2][0][-1].text
    assert 'Your notes: "notes after 1 turn calls"' in second_turn


def test_a_log_the_model_never_played_imports_as_no_result_of_the_models(tmp_path, capsys):
    from playbench.cli import main

    script = Script("commands", *[["swap 9 9 up"]] * 4)
    log = run(tmp_path, gem_swap(seeds="0-1", max_turns=2), script)
    assert log.results.scores[0].metrics["model_share"].value == 0.0
    out = tmp_path / "imported"
    assert main(["import", log.location, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "gem-swap: the model played none of its 2 turns" in err
    assert "this is no result of the model's: it is not published" in err
    assert (out / "bench.json").is_file()


def test_a_hint_the_model_plays_is_on_the_board_of_its_next_turn(tmp_path):
    """``hint`` is never offered; a model that sends it anyway reads its answer on the
    next turn's board, not only in what the step did."""
    seed = random.randrange(2**31)
    script = Script("commands", ["hint"], first)
    log = run(tmp_path, gem_swap(seeds=str(seed), max_turns=2), script)
    [sample] = log.samples
    (event,) = Match.start("gem-swap", seed).command("hint").events
    turns = [messages for messages, _ in script.asked if legal_moves(messages) is not None]
    assert len(turns) == 2
    assert "hint" not in legal_moves(turns[0]) and "moves" not in legal_moves(turns[0])
    line = f"hint: {event['swap']} lines up {event['gems']} gems"
    assert line not in turns[0][-1].text and line in turns[1][-1].text, seed
    actions = [line["action"] for line in sample.store[STORE_KEY]["replay"][1:-1]]
    assert actions[0] == {"command": "hint"}
