"""The TRL door: a game as GRPOTrainer's environment_factory, its tools the seat's moves,
its reward the episode's replayed progress; and two optimisation steps of a tiny model
made here (random weights, nothing downloaded) through it on CPU."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
import torch

from playbench.core import all_games, get_game
from playbench.core.match import Match
from playbench.runner.replay import verify_path
from playbench.train.episode import replay_check
from playbench.train.trl import GameEnvironment, game_dataset
from tests.train.helpers import drawn_seeds, moves_of

SLUGS = [game.slug for game in all_games()]


def _as_tool_moves(moves: list) -> list[str]:
    return [move if isinstance(move, str) else json.dumps(move) for move in moves]


@pytest.mark.parametrize("slug", SLUGS)
def test_the_tools_play_the_seats_turns_and_the_reward_is_the_replayed_progress(slug, tmp_path):
    game = get_game(slug)
    (seed,) = drawn_seeds(1)
    pick = random.Random(seed)
    env = GameEnvironment(max_turns=6, replays=tmp_path)
    prompt = env.reset(game=slug, seed=seed, options="{}")
    assert "play(commands)" in prompt and "Turn 1" in prompt
    assert env.rules() == env.episode.system
    while not env.episode.done:
        legal = env.legal_moves()
        assert legal == _as_tool_moves(game.seat_guide().moves(env.episode.view()))
        told = env.play(_as_tool_moves(moves_of(game, env.episode.view(), pick)))
        assert told.startswith("Progress gained: ")
    reward = env.get_reward()
    replay = env.episode.replay()
    replayed = Match.replay(game, seed, None, [line["action"] for line in replay[1:-1]])
    start = game.progress(Match.start(game, seed).state)
    assert reward == game.progress(replayed.state) - start
    assert replay_check(replay).fingerprint == replayed.fingerprint()
    (written,) = tmp_path.glob("*.jsonl")
    assert all(verdict.ok for verdict in verify_path(written))


def test_a_malformed_call_is_the_seats_refusal() -> None:
    (seed,) = drawn_seeds(1)
    env = GameEnvironment(game="gem-swap")
    env.reset(seed=seed)
    told = env.play(["swap Z9 sideways"])
    assert "not used" in told and "refused" in told
    assert env.episode.match.log == []
    # the turn's second refusal hands it to the seat's fallback, a random move here
    told = env.play("left")  # type: ignore[arg-type]
    assert "Turn 2" in told and "the random played" in told
    assert len(env.episode.match.log) == 1
    checked = replay_check(env.episode.replay())
    assert env.get_reward() == checked.progress - env.episode.start_progress


def test_one_seed_gives_a_group_one_episode_and_two_seeds_two() -> None:
    for slug in SLUGS:
        one, other = drawn_seeds(2)
        rows = game_dataset(slug, [one, one, other])
        prompts, prints = [], []
        for row in rows:
            env = GameEnvironment()
            prompts.append(env.reset(**row))
            prints.append(env.episode.match.fingerprint())
        assert prompts[0] == prompts[1] and prints[0] == prints[1]
        assert prints[2] == Match.start(slug, other).fingerprint()
        assert prints[0] == Match.start(slug, one).fingerprint()


def test_grpo_trains_two_steps_on_a_game_with_its_replayed_reward(tmp_path: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    from trl import GRPOConfig, GRPOTrainer

    from tests.train.tiny_model import tiny_model, tiny_tokenizer

    torch.manual_seed(drawn_seeds(1)[0])
    slug = "gem-swap"
    seeds = drawn_seeds(2)
    corpus = [GameEnvironment(game=slug).reset(seed=seed) for seed in seeds]
    tokenizer = tiny_tokenizer(corpus)
    replays = tmp_path / "replays"
    trainer = GRPOTrainer(
        model=tiny_model(tokenizer),
        processing_class=tokenizer,
        train_dataset=game_dataset(slug, seeds),
        environment_factory=lambda: GameEnvironment(max_turns=4, replays=replays),
        args=GRPOConfig(
            output_dir=str(tmp_path / "out"),
            per_device_train_batch_size=2,
            num_generations=2,
            max_steps=2,
            max_completion_length=24,
            max_tool_calling_iterations=2,
            learning_rate=1e-3,
            logging_steps=1,
            report_to="none",
            save_strategy="no",
            use_cpu=True,
            bf16=False,
            seed=seeds[0] % 2**31,
        ),
    )
    trainer.train()
    steps = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert [entry["step"] for entry in steps] == [1, 2]
    written = sorted(replays.glob("*.jsonl"))
    assert len(written) == 4  # two steps of one group of two rollouts
    rewards = []
    for path in written:
        assert all(verdict.ok for verdict in verify_path(path))
        lines = [json.loads(text) for text in path.read_text().splitlines()]
        checked = replay_check(lines)
        start = get_game(slug).progress(Match.start(slug, lines[0]["seed"]).state)
        rewards.append(checked.progress - start)
    logged = [entry["reward"] for entry in steps]
    assert sum(logged) * 2 == pytest.approx(sum(rewards), abs=1e-6)
