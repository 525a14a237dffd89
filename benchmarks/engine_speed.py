"""Engine speed: each game's rules core beside Gymnasium's FrozenLake-v1, in one run.

    python benchmarks/engine_speed.py [--seconds 3] [--game SLUG ...]

Every workload runs for the same wall time in this process, alternating with the
FrozenLake reference, and prints units per second and the ratio to FrozenLake's steps
per second. The default workload plays uniformly random legal actions (the choice is
part of the measured loop, as it is for FrozenLake's ``action_space.sample``) and starts
a new run when one ends; a game may name its own unit below.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from playbench.core import Game, Rng, all_games, get_game

Workload = Callable[[float], tuple[int, float]]


def frozenlake(seconds: float) -> tuple[int, float]:
    import gymnasium as gym

    env = gym.make("FrozenLake-v1").unwrapped
    env.reset(seed=0)
    env.action_space.seed(0)
    sample, step, reset = env.action_space.sample, env.step, env.reset
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(1000):
            _, _, terminated, truncated, _ = step(sample())
            if terminated or truncated:
                reset()
        steps += 1000
        if time.perf_counter() >= deadline:
            return steps, time.perf_counter() - start


def random_play(game: Game) -> Workload:
    """Random legal actions, counted one unit per accepted step."""

    def run(seconds: float) -> tuple[int, float]:
        chooser = Rng.from_seed(0)
        seed = 0
        state = game.new(seed)
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(200):
                if game.is_over(state):
                    seed += 1
                    state = game.new(seed)
                state = game.step(state, chooser.choice(game.legal_actions(state))).state
            steps += 200
            if time.perf_counter() >= deadline:
                return steps, time.perf_counter() - start

    return run


CHIMESTEP_MAX_TICKS = 30


def chimestep_ticks(game: Game) -> Workload:
    """Random legal play of Chimestep, counted in game ticks.

    Each step picks uniformly among the legal actions (start while waiting, the four hops,
    the toll when it can ring, tick); a chosen tick gets a uniform count in 1..30. The unit
    is one game tick, read from the state's own tick counter, so a ``tick`` of count n
    counts n and a hop or toll counts nothing.
    """

    def run(seconds: float) -> tuple[int, float]:
        chooser = Rng.from_seed(0)
        seed = 0
        state = game.new(seed)
        done_ticks = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(200):
                if game.is_over(state):
                    done_ticks += state.tick
                    seed += 1
                    state = game.new(seed)
                action = chooser.choice(game.legal_actions(state))
                if action["type"] == "tick":
                    action["count"] = chooser.randint(1, CHIMESTEP_MAX_TICKS)
                state = game.step(state, action).state
            if time.perf_counter() >= deadline:
                return done_ticks + state.tick, time.perf_counter() - start

    return run


def gem_swap_swaps(game: Game) -> Workload:
    """Random legal swaps of Gem Swap, counted one unit per swap.

    Each step picks uniformly among the legal swap actions only (``hint`` and ``moves``
    are free look-ups, not play); every swap resolves its cascades, specials, refills and
    any reshuffle. A finished game is replaced by a new one with the next seed.
    """

    def run(seconds: float) -> tuple[int, float]:
        chooser = Rng.from_seed(0)
        seed = 0
        state = game.new(seed)
        swaps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(200):
                if game.is_over(state):
                    seed += 1
                    state = game.new(seed)
                legal = [a for a in game.legal_actions(state) if a["command"].startswith("swap")]
                state = game.step(state, chooser.choice(legal)).state
            swaps += 200
            if time.perf_counter() >= deadline:
                return swaps, time.perf_counter() - start

    return run


def cogcrawl_primitives(game: Game) -> Workload:
    """Cogcrawl played by its delver, counted in dungeon primitives.

    Each seat turn the delver reads the observation and replies; the rules validate the
    reply, expand its travel and run the queue. The unit is one dungeon primitive that
    ran (``last_plan.executed``), so the delver's thinking, the protocol and the
    observation are all inside the measured loop. A finished run is replaced by a new one
    with the next seed.
    """
    from playbench.bots.cogcrawl import delver_reply

    def run(seconds: float) -> tuple[int, float]:
        seed = 0
        state = game.new(seed)
        observation = game.observe(state)
        primitives = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(20):
                if game.is_over(state):
                    seed += 1
                    state = game.new(seed)
                    observation = game.observe(state)
                state = game.step(state, delver_reply(observation)).state
                observation = game.observe(state)
                primitives += len(observation["last_plan"]["executed"])
            if time.perf_counter() >= deadline:
                return primitives, time.perf_counter() - start

    return run


#: games whose natural unit is not one random step: slug -> (unit name, workload factory)
SPECIAL_WORKLOADS: dict[str, tuple[str, Callable[[Game], Workload]]] = {
    "gem-swap": ("swaps", gem_swap_swaps),
    "chimestep": ("ticks", chimestep_ticks),
    "cogcrawl": ("primitives", cogcrawl_primitives),
}


def measure(slug: str, seconds: float, rounds: int) -> None:
    game = get_game(slug)
    unit, factory = SPECIAL_WORKLOADS.get(slug, ("steps", random_play))
    workload = factory(game)
    ours = ref = 0.0
    our_units = ref_steps = 0
    for _ in range(rounds):
        n, t = workload(seconds / rounds)
        our_units, ours = our_units + n, ours + t
        n, t = frozenlake(seconds / rounds)
        ref_steps, ref = ref_steps + n, ref + t
    our_rate, ref_rate = our_units / ours, ref_steps / ref
    print(
        f"{slug:<10} {our_rate:>12,.0f} {unit}/s   FrozenLake-v1 {ref_rate:>12,.0f} steps/s"
        f"   ratio {our_rate / ref_rate:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="wall time per side")
    parser.add_argument("--rounds", type=int, default=4, help="alternations per game")
    parser.add_argument("--game", action="append", help="only these slugs")
    args = parser.parse_args()
    for slug in args.game or [game.slug for game in all_games()]:
        measure(slug, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
