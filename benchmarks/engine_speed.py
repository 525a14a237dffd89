"""Engine speed: each game's rules core beside Gymnasium's FrozenLake-v1, in one run.

    python benchmarks/engine_speed.py [--seconds 3] [--game SLUG ...] [--gym]
    python benchmarks/engine_speed.py --game SLUG --batches N

Every workload runs for the same CPU time (``time.process_time``, so other work on a
shared machine does not count) in this process, alternating with the FrozenLake
reference, and prints units per second and the ratio to FrozenLake's steps per second.
The default workload plays uniformly random legal actions (the choice is part of the
measured loop, as it is for FrozenLake's ``action_space.sample``) and starts a new run
when one ends; a game may name its own unit below.

``--batches N`` runs exactly N batches of each workload instead, with no reference and no
clock, and prints the units done: a fixed amount of work for an instruction counter
(``valgrind --tool=callgrind``; subtract a run of ``--batches 0`` for the start-up).

``--gym`` measures the Gymnasium door on the rules against the field instead, all in
steps per CPU second, alternating in the same run: each env through ``gymnasium.make``
with ``events=True`` (the ``dict`` observation, and again with ``obs_type="frame"`` and
``"planes"``, which play on the rules whatever ``events`` says), the engine playing the
very same actions (the :class:`Match` kernel the env plays through: ``legal_actions``, a
random pick among them and ``Match.play``), the native vector env of 64 matches
(``make_vec`` with ``events=True``, per sub-step), FrozenLake-v1 and NLE's ``NetHackScore-v0``
through ``gymnasium.make`` (random actions from ``action_space.sample``; NLE only when
``pip install nle`` has put it in the environment: it is a benchmark-only dependency).
The env side picks a uniformly random legal index from ``info["action_mask"]`` (the pick
is in its measured loop), the vector side one per row from one ``nonzero`` of the mask.
``--kernels`` measures the games' compiled kernels against the same field instead
(``benchmarks/kernel_speed.py`` says how).

Targets (issue 34): every env at least 2x NLE, the vector env at least 2x one env per
sub-step, each engine at least FrozenLake's rate, the frame and planes within 5x of the
dict observation.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from playbench.core import Game, Rng, all_games, get_game
from playbench.core.match import Match
from playbench.kernels.draws import LegalPicks

#: one batch of a workload: does a fixed amount of play and returns the units it did
Batch = Callable[[], int]


def timed(seconds: float, batch: Callable[[], int]) -> tuple[int, float]:
    """Call ``batch`` (which returns the units it did) until ``seconds`` of this process's
    CPU time have passed; returns the units and the CPU time."""
    units = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        units += batch()
    return units, time.process_time() - start


def frozenlake(seconds: float, wrapped: bool = False) -> tuple[int, float]:
    """FrozenLake-v1's steps per second: bare, or through ``gymnasium.make``'s wrappers
    (``wrapped``: TimeLimit, OrderEnforcing, PassiveEnvChecker; the playbench envs have the
    same but OrderEnforcing, as they refuse a step before reset themselves)."""
    import gymnasium as gym

    env = gym.make("FrozenLake-v1")
    if not wrapped:
        env = env.unwrapped
    env.reset(seed=0)
    env.action_space.seed(0)
    sample, step, reset = env.action_space.sample, env.step, env.reset

    def batch() -> int:
        for _ in range(1000):
            _, _, terminated, truncated, _ = step(sample())
            if terminated or truncated:
                reset()
        return 1000

    return timed(seconds, batch)


class Runs:
    """Consecutive runs of one game: a finished run is replaced by the next seed's."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seed = 0
        self.state = game.new(self.seed)
        self.finished_ticks = 0

    def current(self) -> object:
        if self.game.is_over(self.state):
            self.finished_ticks += getattr(self.state, "tick", 0)
            self.seed += 1
            self.state = self.game.new(self.seed)
        return self.state


def random_play(game: Game) -> Batch:
    """Random legal actions, counted one unit per accepted step."""
    chooser = Rng.from_seed(0)
    runs = Runs(game)

    def batch() -> int:
        for _ in range(200):
            state = runs.current()
            runs.state = game.step(state, chooser.choice(game.legal_actions(state))).state
        return 200

    return batch


CHIMESTEP_MAX_TICKS = 30


def chimestep_ticks(game: Game) -> Batch:
    """Random legal play of Chimestep, counted in game ticks.

    Each step picks uniformly among the legal actions (start while waiting, the four hops,
    the toll when it can ring, tick); a chosen tick gets a uniform count in 1..30. The unit
    is one game tick, read from the state's own tick counter, so a ``tick`` of count n
    counts n and a hop or toll counts nothing.
    """
    chooser = Rng.from_seed(0)
    runs = Runs(game)

    def batch() -> int:
        before = runs.finished_ticks + runs.state.tick
        for _ in range(200):
            state = runs.current()
            action = chooser.choice(game.legal_actions(state))
            if action["type"] == "tick":
                action["count"] = chooser.randint(1, CHIMESTEP_MAX_TICKS)
            runs.state = game.step(state, action).state
        return runs.finished_ticks + runs.state.tick - before

    return batch


def gem_swap_swaps(game: Game) -> Batch:
    """Random legal swaps of Gem Swap, counted one unit per swap.

    Each step picks uniformly among the legal swap actions only (``hint`` and ``moves``
    are free look-ups, not play); every swap resolves its cascades, specials, refills and
    any reshuffle. A finished game is replaced by a new one with the next seed.
    """
    chooser = Rng.from_seed(0)
    runs = Runs(game)

    def batch() -> int:
        for _ in range(200):
            state = runs.current()
            legal = [a for a in game.legal_actions(state) if a["command"].startswith("swap")]
            runs.state = game.step(state, chooser.choice(legal)).state
        return 200

    return batch


def cogcrawl_primitives(game: Game) -> Batch:
    """Cogcrawl played by its delver, counted in dungeon primitives.

    Each seat turn the delver reads the observation and replies; the rules validate the
    reply, expand its travel and run the queue. The unit is one dungeon primitive that
    ran (``last_plan.executed``), so the delver's thinking, the protocol and the
    observation are all inside the measured loop. A finished run is replaced by a new one
    with the next seed.
    """
    from playbench.games.cogcrawl.delver import delver_reply

    runs = Runs(game)

    def batch() -> int:
        primitives = 0
        observation = game.observe(runs.current())
        for _ in range(20):
            runs.state = game.step(runs.state, delver_reply(observation)).state
            observation = game.observe(runs.state)
            primitives += len(observation["last_plan"]["executed"])
            if game.is_over(runs.state):
                observation = game.observe(runs.current())
        return primitives

    return batch


#: games whose natural unit is not one random step: slug -> (unit name, workload factory)
SPECIAL_WORKLOADS: dict[str, tuple[str, Callable[[Game], Batch]]] = {
    "gem-swap": ("swaps", gem_swap_swaps),
    "chimestep": ("ticks", chimestep_ticks),
    "cogcrawl": ("primitives", cogcrawl_primitives),
}


def measure(slug: str, seconds: float, rounds: int) -> None:
    game = get_game(slug)
    unit, factory = SPECIAL_WORKLOADS.get(slug, ("steps", random_play))
    batch = factory(game)
    ours = ref = 0.0
    our_units = ref_steps = 0
    for _ in range(rounds):
        n, t = timed(seconds / rounds, batch)
        our_units, ours = our_units + n, ours + t
        n, t = frozenlake(seconds / rounds)
        ref_steps, ref = ref_steps + n, ref + t
    our_rate, ref_rate = our_units / ours, ref_steps / ref
    print(
        f"{slug:<10} {our_rate:>12,.0f} {unit + '/s':<13} FrozenLake-v1 {ref_rate:>12,.0f} steps/s"
        f"   ratio {our_rate / ref_rate:.3f}"
    )


def count(slug: str, batches: int) -> None:
    """Run exactly ``batches`` batches of the game's workload and print the units done."""
    unit, factory = SPECIAL_WORKLOADS.get(slug, ("steps", random_play))
    batch = factory(get_game(slug))
    print(f"{slug:<10} {sum(batch() for _ in range(batches)):>12,} {unit}")


NEW_GAME = "new"


class GymDoor:
    """One env through ``gymnasium.make`` and the record of what it played."""

    def __init__(self, slug: str, obs_type: str = "dict", **keywords: object) -> None:
        import gymnasium as gym

        from playbench.gym import env_ids

        env_id = next(env_id for env_id, game in env_ids().items() if game == slug)
        # games="any": a seed is the game itself, as the replay below starts it
        self.env = gym.make(env_id, obs_type=obs_type, games="any", **keywords)
        self.chooser = Rng.from_seed(0)
        self.record: list[object] = []
        self.info = self._reset(seed=0)

    def _reset(self, seed: int | None = None) -> dict:
        _, info = self.env.reset(seed=seed)
        self.record.append((NEW_GAME, self.env.unwrapped.match.seed))
        return info

    def play(self, seconds: float) -> tuple[int, float, object, list[object]]:
        """Play for ``seconds``: the steps, the time, the state it started from (states are
        never changed in place) and the record of what it played."""
        start = self.env.unwrapped.match.state
        self.record = []
        env, chooser, actions = self.env, self.chooser, self.env.unwrapped.learning.actions.actions
        below, record = chooser.below, self.record

        def batch() -> int:
            info = self.info
            for _ in range(100):
                legal = info["action_mask"].nonzero()[0]
                index = int(legal[below(len(legal))])
                _, _, terminated, truncated, info = env.step(index)
                record.append(actions[index])
                if terminated or truncated:
                    info = self._reset()
            self.info = info
            return 100

        steps, elapsed = timed(seconds, batch)
        return steps, elapsed, start, record


def replay(game: Game, state: object, record: list[object], looks: bool) -> tuple[int, float]:
    """The engine alone playing ``record`` from ``state`` through a :class:`Match` (the
    kernel the env plays through): for each action a random pick among ``legal_actions``
    (an agent's cost, as on the env side; the record's action is played all the same) and
    ``Match.play`` (and ``observe``, the JSON observation, when ``looks``); a new match for
    each new game."""
    steps = 0
    legal_actions, observe = game.legal_actions, game.observe
    pick = Rng.from_seed(0).choice
    begin = time.process_time()
    match = Match(game, state)
    for entry in record:
        if type(entry) is tuple:
            match = Match.start(game, entry[1])
            continue
        if looks:
            observe(match.state)
        pick(legal_actions(match.state))
        match.play(entry)
        steps += 1
    return steps, time.process_time() - begin


class VectorDoor:
    """The native vector env of N matches (``make_vec``'s vector entry point), a random legal
    index for each env from its mask row each call (the picks are in the measured loop):
    drawn one env at a time in Python (``picks="loop"``), or for all N at once in NumPy as
    ``kernel_speed``'s batch draws them (``picks="array"``: ``playbench.kernels.draws``'s
    :class:`LegalPicks`, one uniform double a row)."""

    def __init__(self, slug: str, num_envs: int, picks: str = "loop", **keywords: object) -> None:
        import gymnasium as gym

        from playbench.gym import env_ids

        env_id = next(env_id for env_id, game in env_ids().items() if game == slug)
        self.envs = gym.make_vec(
            env_id,
            num_envs=num_envs,
            vectorization_mode="vector_entry_point",
            **{"games": "any", **keywords},
        )
        self.num_envs = num_envs
        self.picks = picks
        self.generator = np.random.default_rng(0)
        self.chooser = Rng.from_seed(0)
        _, self.info = self.envs.reset(seed=0)

    def play(self, seconds: float) -> tuple[int, float]:
        if self.picks == "array":
            return timed(seconds, self._array_batch(self.generator))
        step, below = self.envs.step, self.chooser.below
        count = self.num_envs

        def batch() -> int:
            info = self.info
            for _ in range(10):
                mask = info["action_mask"]
                rows, columns = mask.nonzero()
                ends = rows.searchsorted(range(1, count + 1)).tolist()
                columns, start, picks = columns.tolist(), 0, []
                for end in ends:
                    # a row of zeros (game over: the env resets whatever it gets) picks 0
                    picks.append(columns[start + below(end - start)] if end > start else 0)
                    start = end
                _, _, _, _, info = step(picks)
            self.info = info
            return 10 * count

        return timed(seconds, batch)

    def _array_batch(self, generator: np.random.Generator) -> Callable[[], int]:
        step, count = self.envs.step, self.num_envs
        pick = LegalPicks(generator)

        def batch() -> int:
            info = self.info
            for _ in range(10):
                _, _, _, _, info = step(pick(info["action_mask"]))
            self.info = info
            return 10 * count

        return batch


VECTOR_ENVS = 64
GYM_HEADER = (
    f"{'game':<10} {'env':>8} {'engine':>8} {'vec64':>8} {'frame':>8} {'planes':>8} "
    f"{'NLE':>8} {'FrozenLake':>10} {'env/NLE':>7} {'vec/env':>7} {'eng/FL':>6} "
    f"{'dict/frame':>10} {'dict/planes':>11}\n"
    "(steps per CPU-second; vec64 per sub-step of its 64 matches; targets: env/NLE >= 2,\n"
    " vec/env >= 2, eng/FL >= 1, dict/frame and dict/planes <= 5)"
)


def nethack(seconds: float) -> tuple[int, float] | None:
    """NLE's NetHackScore-v0 through ``gymnasium.make``, random actions; None without nle."""
    try:
        import nle  # noqa: F401  (registers NetHackScore-v0)
    except ImportError:
        return None
    import gymnasium as gym

    env = gym.make("NetHackScore-v0")
    env.reset(seed=0)
    sample, step = env.action_space.sample, env.step
    env.action_space.seed(0)

    def batch() -> int:
        for _ in range(100):
            _, _, terminated, truncated, _ = step(sample())
            if terminated or truncated:
                env.reset()
        return 100

    try:
        return timed(seconds, batch)
    finally:
        env.close()


def measure_gym(slug: str, seconds: float, rounds: int) -> None:
    """The env (dict, frame, planes), the engine on the dict env's actions, the native
    vector env of 64, NLE and FrozenLake-v1, alternating ``rounds`` times."""
    game = get_game(slug)
    door = GymDoor(slug, events=True)
    pictures = {obs_type: GymDoor(slug, obs_type) for obs_type in ("frame", "planes")}
    vector = VectorDoor(slug, VECTOR_ENVS, events=True)
    sides = ("env", "engine", "vector", "frame", "planes", "nle", "frozenlake")
    totals = {side: [0, 0.0] for side in sides}

    def add(side: str, steps: int, elapsed: float) -> None:
        totals[side][0] += steps
        totals[side][1] += elapsed

    part = seconds / rounds
    for _ in range(rounds):
        steps, elapsed, start, record = door.play(part)
        add("env", steps, elapsed)
        add("engine", *replay(game, start, record, looks=False))
        add("vector", *vector.play(part))
        for obs_type, picture in pictures.items():
            add(obs_type, *picture.play(part)[:2])
        found = nethack(part)
        if found is not None:
            add("nle", *found)
        add("frozenlake", *frozenlake(part, wrapped=True))
    rate = {side: steps / elapsed if elapsed else 0.0 for side, (steps, elapsed) in totals.items()}
    env, lake, nle = rate["env"], rate["frozenlake"], rate["nle"]
    versus_nle = f"{env / nle:>7.2f}" if nle else f"{'-':>7}"
    nle_cell = f"{nle:>8,.0f}" if nle else f"{'-':>8}"
    print(
        f"{slug:<10} {env:>8,.0f} {rate['engine']:>8,.0f} {rate['vector']:>8,.0f} "
        f"{rate['frame']:>8,.0f} {rate['planes']:>8,.0f} {nle_cell} {lake:>10,.0f} "
        f"{versus_nle} {rate['vector'] / env:>7.2f} {rate['engine'] / lake:>6.3f} "
        f"{env / rate['frame']:>10.2f} {env / rate['planes']:>11.2f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU time per side")
    parser.add_argument("--rounds", type=int, default=4, help="alternations per game")
    parser.add_argument("--game", action="append", help="only these slugs")
    parser.add_argument("--gym", action="store_true", help="the Gymnasium door against the engine")
    parser.add_argument(
        "--batches", type=int, help="run this many batches of each workload, untimed"
    )
    parser.add_argument(
        "--kernels", action="store_true", help="the compiled kernels (benchmarks/kernel_speed.py)"
    )
    args = parser.parse_args()
    slugs = args.game or [game.slug for game in all_games()]
    if args.kernels:
        from kernel_speed import measure_kernels

        measure_kernels(slugs, args.seconds, args.rounds)
        return
    if args.batches is not None:
        for slug in slugs:
            count(slug, args.batches)
        return
    if args.gym:
        print(GYM_HEADER)
        for slug in slugs:
            measure_gym(slug, args.seconds, args.rounds)
        print("the engines' own workloads (Gem Swap's target: 0.25 of FrozenLake):")
    for slug in slugs:
        measure(slug, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
