"""A short GRPO run through the TRL door, for its reward curve: a one-layer Qwen3 made on
the spot (random weights, a tokenizer learnt from the game's prompts: nothing downloaded)
trained ``--steps`` steps on CPU on one game, every rollout written as a replay.

Prints each step's mean reward as TRL logged it beside the mean of the same rollouts'
rewards re-read from their replay files (:func:`~playbench.train.episode.replay_check`),
which must agree: the rewards a training run saw are the replayed ones. The tiny model
learns nothing; the curve shows the door, not learning::

    python benchmarks/grpo_curve.py --game gem-swap --steps 6
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


def main() -> int:
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from playbench.core.match import Match
    from playbench.core.registry import get_game
    from playbench.train.episode import replay_check
    from playbench.train.trl import GameEnvironment, game_dataset
    from tests.train.tiny_model import tiny_model, tiny_tokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gem-swap")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--max-turns", type=int, default=4)
    args = parser.parse_args()
    game = get_game(args.game)
    seeds = random.sample(range(2**31), args.steps)
    torch.manual_seed(seeds[0])
    corpus = [GameEnvironment(game=game.slug).reset(seed=seed) for seed in seeds]
    tokenizer = tiny_tokenizer(corpus)
    with tempfile.TemporaryDirectory(prefix="playbench-grpo-") as folder:
        replays = Path(folder) / "replays"
        trainer = GRPOTrainer(
            model=tiny_model(tokenizer),
            processing_class=tokenizer,
            train_dataset=game_dataset(game.slug, seeds),
            environment_factory=lambda: GameEnvironment(max_turns=args.max_turns, replays=replays),
            args=GRPOConfig(
                output_dir=str(Path(folder) / "out"),
                per_device_train_batch_size=args.generations,
                num_generations=args.generations,
                max_steps=args.steps,
                max_completion_length=48,
                max_tool_calling_iterations=args.max_turns,
                temperature=1.0,
                learning_rate=1e-3,
                logging_steps=1,
                report_to="none",
                save_strategy="no",
                use_cpu=True,
                bf16=False,
                seed=seeds[0],
                shuffle_dataset=False,
            ),
        )
        started = time.process_time()
        trainer.train()
        cpu = time.process_time() - started
        files = sorted(replays.glob("*.jsonl"), key=lambda path: path.stat().st_mtime_ns)
        replayed, played = [], []
        for path in files:
            lines = [json.loads(text) for text in path.read_text().splitlines()]
            start = game.progress(Match.start(game, lines[0]["seed"]).state)
            replayed.append(replay_check(lines).progress - start)
            played.append(lines[0]["seed"])
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    print(f"{game.name}: GRPO, {args.steps} steps of {args.generations} rollouts, CPU {cpu:.1f} s")
    print(f"{'step':>4}{'seed(s)':>12}{'TRL reward':>12}{'replayed':>10}{'reward std':>12}")
    size = args.generations
    ok = len(replayed) == size * len(logged)
    for index, entry in enumerate(logged):
        group = replayed[index * size : (index + 1) * size]
        group_seeds = sorted(set(played[index * size : (index + 1) * size]))
        mean = sum(group) / len(group) if group else float("nan")
        ok = ok and abs(mean - entry["reward"]) < 1e-6
        print(
            f"{entry['step']:>4}{','.join(map(str, group_seeds)):>12}"
            f"{entry['reward']:>12.4f}{mean:>10.4f}{entry.get('reward_std', 0.0):>12.4f}"
        )
    print(f"rollouts replayed: {len(replayed)}; TRL's rewards are the replayed ones: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
