"""The stateless action route's game work in process: ``step_sealed`` per game, and the
state read inside it (``from_json`` against ``from_trusted_json``), min of repeats.

    python benchmarks/sealed_step.py [--repeat 7]

Each game plays from seed 5 to a state a few moves in (Cogcrawl: 120 seat turns of its
delver, a few levels down), seals it with a fresh key, and times ``step_sealed`` with one
action (a legal action; Cogcrawl: the delver's reply): open, read, play, seal anew, observe.

Beside it, what a compiled kernel (``playbench.kernels``) would change in that route: the
rules' ``step`` of the same action from the same state (``step``), against the kernel's
way to the same state after it (``kernel``: the state into a batch of one, the action's
index stepped, the state read back out), where the game has a kernel and the action is in
its table. The route answers with the step's events and the state's view, which only the
rules give, so the kernel could replace the step alone.
"""

from __future__ import annotations

import argparse
import timeit
from typing import Any

from playbench.core import Game, Rng, all_games
from playbench.core.learning import learning_of
from playbench.games.cogcrawl.delver import delver_reply
from playbench.kernels import batched
from playbench.server.routes.games import step_sealed
from playbench.server.sealing import Sealer, generate_key

SEED = 5
COGCRAWL_TURNS = 120
OTHER_MOVES = 12
#: limits far above any state here: the sealer's own checks are not what is measured
LIMIT = 10_000_000


def reply(game: Game, state: Any, chooser: Rng) -> Any:
    if game.slug == "cogcrawl":
        return delver_reply(game.observe(state))
    return chooser.choice(game.legal_actions(state))


def mid_game(game: Game) -> Any:
    """The state a few moves in, short of the end of the game."""
    chooser = Rng.from_seed(SEED)
    state = game.new(SEED)
    for _ in range(COGCRAWL_TURNS if game.slug == "cogcrawl" else OTHER_MOVES):
        after = game.step(state, reply(game, state, chooser)).state
        if game.is_over(after):
            break
        state = after
    return state


def best(call: Any, number: int, repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, in microseconds a call."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def measure(game: Game, sealer: Sealer, repeat: int) -> None:
    state = mid_game(game)
    data = game.to_json(state)
    sealed = sealer.seal(game.slug, data)
    action = reply(game, state, Rng.from_seed(SEED))
    number = 200 if game.slug == "cogcrawl" else 1000
    route = best(lambda: step_sealed(sealer, game, sealed, action), number, repeat)
    full = best(lambda: game.from_json(data), number, repeat)
    trusted = getattr(game, "from_trusted_json", None)
    fast = f"{best(lambda: trusted(data), number, repeat):>10.1f}" if trusted else f"{'-':>10}"
    step = best(lambda: game.step(state, action), number, repeat)
    print(
        f"{game.slug:<10} {route:>12.1f} {full:>10.1f} {fast} {step:>8.1f} "
        f"{kernel_step(game, state, action, number, repeat)}"
    )


def kernel_step(game: Game, state: Any, action: Any, number: int, repeat: int) -> str:
    """The kernel's way from ``state`` to the state after ``action``, in microseconds, or
    what stops it; checked to reach the rules' state first."""
    runs = batched(game, 1)
    table = learning_of(game).actions
    found = table.indices.get(table.key(action)) if runs is not None else None
    if not found:
        return f"{'-':>8}  (no kernel here)" if runs is None else f"{'-':>8}  (not in its table)"
    index = found[0]

    def play() -> Any:
        runs.set(0, state)
        runs.step((index,))
        return runs.get(0)

    if game.to_json(play()) != game.to_json(game.step(state, action).state):
        raise AssertionError(f"{game.slug}: the kernel's state differs from the rules'")
    return f"{best(play, number, repeat):>8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="repeats; the minimum counts")
    args = parser.parse_args()
    sealer = Sealer([generate_key()], LIMIT, LIMIT)
    print(
        f"{'game':<10} {'step_sealed':>12} {'from_json':>10} {'trusted':>10} {'step':>8} "
        f"{'kernel':>8}   (us)"
    )
    for game in all_games():
        measure(game, sealer, args.repeat)


if __name__ == "__main__":
    main()
