"""The contract, the seeded generator, the registry and the errors shared by all games."""

from playbench.core.errors import (
    CommandError,
    OptionsError,
    PlaybenchError,
    StateError,
    UnknownGameError,
)
from playbench.core.game import JSON, Action, Command, Game, Outcome, Spec, canonical_json
from playbench.core.registry import all_games, get_game, register
from playbench.core.rng import DRAWN_SEED_LIMIT, Rng, check_seed, draw_seed

__all__ = [
    "DRAWN_SEED_LIMIT",
    "JSON",
    "Action",
    "Command",
    "CommandError",
    "Game",
    "OptionsError",
    "Outcome",
    "PlaybenchError",
    "Rng",
    "Spec",
    "StateError",
    "UnknownGameError",
    "all_games",
    "canonical_json",
    "check_seed",
    "draw_seed",
    "get_game",
    "register",
]
