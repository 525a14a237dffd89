"""The stateless action route's game work in process: ``step_sealed`` per game, and the
state read inside it (``from_json`` against ``from_trusted_json``), min of repeats.

    python benchmarks/sealed_step.py [--repeat 7]

Each game plays from seed 5 to a state a few moves in (Cogcrawl: 120 seat turns of its
delver, a few levels down), seals it with a fresh key, and times ``step_sealed`` with one
action (a legal action; Cogcrawl: the delver's reply): open, read, play, seal anew, observe.
"""

from __future__ import annotations

import argparse
import timeit
from typing import Any

from playbench.core import Game, Rng, all_games
from playbench.games.cogcrawl.delver import delver_reply
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
    print(f"{game.slug:<10} {route:>12.1f} {full:>10.1f} {fast}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="repeats; the minimum counts")
    args = parser.parse_args()
    sealer = Sealer([generate_key()], LIMIT, LIMIT)
    print(f"{'game':<10} {'step_sealed':>12} {'from_json':>10} {'trusted':>10}   (us)")
    for game in all_games():
        measure(game, sealer, args.repeat)


if __name__ == "__main__":
    main()
