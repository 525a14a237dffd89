"""The estimate of a model run: exact bounds for a small case, and never below what a run
against the scripted endpoint really made (its replies report the prompt's tokens
counted with the estimate's tokenizer over the request's messages)."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from playbench.agents.llm.settings import LlmSettings
from playbench.cli import main
from playbench.core.registry import get_game
from playbench.core.seat import MAX_NOTES
from playbench.runner.estimate import (
    MESSAGE_TOKENS,
    REPLY_TOKENS,
    EstimateError,
    GameEstimate,
    call_bound,
    count,
    episode_calls,
    estimate_game,
    estimate_table,
)
from playbench.runner.suite import load_suite
from tests.agents.chat_server import MODEL, Reply, legal_commands, text_of

LLM = LlmSettings(model=MODEL)
MODELS_HASH = "sha256:ead4bb005bf1617dd1155c7e7a9ec3963849a3f6c439a78e18494b8b2c9cdad6"


def test_calls_an_episode_can_make():
    # two calls a turn (the reply and its retry) and the review
    assert episode_calls(LLM, 5, None) == 11
    # a reflection every two turns
    reflecting = LlmSettings(model=MODEL, reflect=2)
    assert episode_calls(reflecting, 5, None) == 13
    assert episode_calls(LLM, 5, 4) == 4
    assert episode_calls(LLM, 5, 40) == 11


def test_a_small_case_exactly(tally):
    guide = tally.seat_guide()
    bound = call_bound(tally, guide, 0, {}, LLM, 4)
    # the retry is the largest request: the system prompt (158 tokens), the turn message
    # at its longest (166), the retry prompt with the legal moves (65), ceil(1.5 x 389) =
    # 584; the notes (400 characters), a history line's events and reason (501) and the
    # retry's reason (300); the reply sent back (512); 4 messages of 8 template tokens and
    # 8 for the reply
    assert bound.completion == 512
    assert bound.prompt == 584 + 400 + 501 + 300 + 512 + 4 * 8 + 8 == 2337
    call = 2337 + 512
    # nine calls an episode: two for each of four turns, and the review
    unbounded = estimate_game("tally", [(0, {}), (1, {})], LLM, 4, None, None)
    assert unbounded == GameEstimate("tally", 2, 18, 18 * 2337, 18 * 512, 18 * call)
    turns = estimate_game("tally", [(0, {}), (1, {})], LLM, 4, 2, 10_000)
    assert turns == GameEstimate("tally", 2, 4, 4 * 2337, 4 * 512, 4 * call)
    # 3,000 tokens and one more call: below nine calls' worth
    tokens = estimate_game("tally", [(0, {}), (1, {})], LLM, 4, None, 3000)
    assert tokens == GameEstimate("tally", 2, 18, 2 * (3000 + call), 18 * 512, 2 * (3000 + call))


def test_the_tokens_counted_are_the_tokenizers():
    assert count("hello world") == 2
    assert count('{"commands":["up"]}') == 5
    # a special token's text is counted as text
    assert count("<|endoftext|>") == 7


def test_the_cost_takes_the_dearer_tokens_first():
    estimate = GameEstimate("tally", 1, 10, 8_000_000, 2_000_000, 9_000_000)
    # the completion at $10 a million to its bound, the prompt with the 7 million left
    assert estimate.cost(2.5, 10.0) == pytest.approx(20.0 + 17.5)
    assert estimate.cost(10.0, 1.0) == pytest.approx(80.0 + 1.0)
    assert estimate.cost(None, 1.0) is None
    assert GameEstimate("tally", 1, 1, 3, 4).tokens == 7


def test_the_table_has_a_row_a_game_and_a_total():
    rows = [
        GameEstimate("delvewick", 8, 2400, 3_000_000, 1_000_000, 3_500_000),
        GameEstimate("cogcrawl", 8, 2400, 4_000_000, 1_000_000, 4_500_000),
    ]
    text = io.StringIO()
    Console(file=text, width=140).print(estimate_table(rows, 1.0, 2.0))
    lines = text.getvalue().splitlines()
    delvewick = next(line for line in lines if "delvewick" in line)
    assert delvewick.split("│")[1:-1] == [
        " delvewick ",
        "        8 ",
        " 2,400 ",
        "     3,000,000 ",
        "         1,000,000 ",
        " 3,500,000 ",
        "  $4.50 ",
    ]
    total = next(line for line in lines if "total" in line)
    assert [cell.strip() for cell in total.split("│")[1:-1]] == [
        "total",
        "16",
        "4,800",
        "7,000,000",
        "2,000,000",
        "8,000,000",
        "$10.00",
    ]
    plain = io.StringIO()
    Console(file=plain, width=140).print(estimate_table(rows, None, None))
    assert "$" not in plain.getvalue() and "cost" not in plain.getvalue()


def test_vision_is_refused():
    with pytest.raises(EstimateError, match="--vision"):
        estimate_game("delvewick", [(0, {})], LlmSettings(model=MODEL, vision=True), 5, None, None)


def test_models_v2_is_bounded():
    suite = load_suite("models-v2")
    assert suite.hash == MODELS_HASH
    total = 0
    for game in suite.games:
        assert game.max_turns is not None and game.max_turns <= 300
        episodes = [(seed, game.options_of(seed)) for seed in game.seeds]
        estimate = estimate_game(
            game.game, episodes, LLM, game.max_steps, game.max_turns, game.max_tokens
        )
        assert estimate.calls <= 300 * len(game.seeds)
        total += estimate.tokens
    assert total <= 15_000_000
    delvewick = next(game for game in suite.games if game.game == "delvewick")
    assert [delvewick.options_of(seed) for seed in delvewick.seeds] == [
        {"startLevel": level} for level in range(1, 9)
    ]


NOTES = "n" * MAX_NOTES
PROSE = "Let me think about this board carefully before I move. " * 8


def counted(body, content: str) -> Reply:
    """A reply reporting the request's prompt and its own content in the estimate's
    tokens, with the chat template's tokens a message."""
    messages = body["messages"]
    prompt = sum(count(text_of(m)) + MESSAGE_TOKENS for m in messages) + REPLY_TOKENS
    return Reply(content, prompt, count(content))


def stressing(key: str):
    """Answers that grow the prompt: the turn's first reply is prose (so it is retried
    with the prose sent back), the retry plays the last legal move with full notes."""

    def answer(body):
        last = text_of(body["messages"][-1])
        if last.startswith("That reply was not used"):
            move = legal_commands(body)[-1]
            return counted(body, json.dumps({key: [move] * 3, "notes": NOTES}))
        return counted(body, PROSE)

    return answer


def playing(body) -> Reply:
    """The last legal move three times with full notes, in the key the schema names."""
    schema = body["response_format"]["json_schema"]["schema"]
    key = next(name for name in schema["properties"] if name != "notes")
    move = legal_commands(body)[-1]
    return counted(body, json.dumps({key: [move] * 3, "notes": NOTES}))


@pytest.mark.parametrize(
    ("game", "key"),
    [
        ("delvewick", "commands"),
        ("gem-swap", "commands"),
        ("chimestep", "commands"),
        ("cogcrawl", "actions"),
    ],
)
def test_a_run_never_takes_more_than_its_estimate(chat, tmp_path, game, key):
    chat.add(*[stressing(key)] * 200)
    folder = tmp_path / "out"
    command = ["run", game, "--agent", "llm", "--model", MODEL, "--base-url", chat.base_url]
    command += ["--workers", "1", "--seeds", "0-1", "--max-steps", "12", "--max-tokens", "512"]
    assert main([*command, "--out", str(folder)]) == 0
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    made = [row["llm"] for row in rows]
    assert all(stats["retries"] > 0 and stats["calls"] > 0 for stats in made)
    estimate = estimate_game(game, [(0, {}), (1, {})], LLM, 12, None, None)
    assert sum(stats["calls"] for stats in made) <= estimate.calls
    assert sum(stats["promptTokens"] for stats in made) <= estimate.prompt_tokens
    assert sum(stats["completionTokens"] for stats in made) <= estimate.completion_tokens
    # and every single call below one call's bound
    played = get_game(game)
    bound = call_bound(played, played.seat_guide(), 0, {}, LLM, 12)
    biggest = max(
        call["promptTokens"]
        for line in (folder / "replays" / f"{game}-0.jsonl").read_text().splitlines()
        for turn in json.loads(line).get("turns", [])
        for call in turn["calls"]
    )
    assert 0 < biggest <= bound.prompt


def test_a_budgeted_bench_never_takes_more_than_its_estimate(chat, tmp_path):
    chat.add(*[playing] * 100)
    games = {
        "delvewick": {
            "seeds": "1-2",
            "options": {},
            "optionsBySeed": {"2": {"startLevel": 2}},
            "maxSteps": 50,
            "maxTurns": 7,
            "harness": {},
        },
        "cogcrawl": {
            "seeds": "0",
            "options": {},
            "maxSteps": 50,
            "maxTokens": 6000,
            "harness": {},
        },
    }
    path = tmp_path / "budgeted.json"
    path.write_text(json.dumps({"name": "budgeted", "description": "", "games": games}))
    folder = tmp_path / "bench"
    command = ["bench", "--agent", "llm", "--suite", str(path), "--model", MODEL]
    assert main([*command, "--base-url", chat.base_url, "--out", str(folder)]) == 0
    suite = load_suite(str(path))
    for game in suite.games:
        rows = [
            json.loads(line)
            for line in (folder / game.game / "runs.jsonl").read_text().splitlines()
        ]
        assert all(row["outcome"] == "truncated" for row in rows)
        episodes = [(seed, game.options_of(seed)) for seed in game.seeds]
        estimate = estimate_game(
            game.game, episodes, LLM, game.max_steps, game.max_turns, game.max_tokens
        )
        made = [row["llm"] for row in rows]
        assert sum(stats["calls"] for stats in made) <= estimate.calls
        spent = sum(stats["promptTokens"] + stats["completionTokens"] for stats in made)
        assert spent <= estimate.tokens
        assert sum(stats["promptTokens"] for stats in made) <= estimate.prompt_tokens
        assert sum(stats["completionTokens"] for stats in made) <= estimate.completion_tokens
    delvewick = [
        json.loads(line)["llm"]["calls"]
        for line in (folder / "delvewick" / "runs.jsonl").read_text().splitlines()
    ]
    assert delvewick == [7, 7]


def test_the_estimate_bounds_the_time_from_a_given_seconds_per_call(tally, chat, tmp_path, capsys):
    from playbench.cli import main
    from tests.agents.test_llm_scale import game, llm_bench, suite_file

    suite = suite_file(tmp_path, {"tally": game("0-1", maxTurns=5)})
    extra = ["--estimate", "--seconds-per-call", "12", "--concurrency", "1"]
    assert llm_bench(chat, suite, tmp_path / "out", *extra) == 0
    out = capsys.readouterr().out
    # ten calls at most (two episodes of five), one at a time, 12 s each: 2 minutes
    assert "time at 12 s a call" in out and "2 min" in out
    assert chat.requests == [] and chat.pings == []
    assert llm_bench(chat, suite, tmp_path / "out", "--estimate", "--seconds-per-call", "0") == 2
    assert "--seconds-per-call must be more than 0, got 0" in capsys.readouterr().err
    assert main(["run", "tally", "--agent", "random", "--estimate"]) == 2
