"""A new Cogcrawl run: the first level, the starting kit and the run's potion looks."""

from __future__ import annotations

from playbench.core import OptionsError, Rng, check_seed
from playbench.core.fields import options_object
from playbench.games.cogcrawl.constants import APPEARANCE_STREAM
from playbench.games.cogcrawl.dungeon import generate, xy_of
from playbench.games.cogcrawl.items import (
    APPEARANCES,
    ARMOUR_KIND,
    DAGGER,
    FOOD_KIND,
    FOOD_RATION,
    LEATHER_ARMOUR,
    POTIONS,
    WEAPON_KIND,
)
from playbench.games.cogcrawl.sight import see
from playbench.games.cogcrawl.state import CogState

WELCOME = "You enter the dungeon. The Cogheart lies on level 10."


def new_state(seed: object, options: object = None) -> CogState:
    seed = check_seed(seed)
    options_object(options, OptionsError, "cogcrawl", ())
    state = CogState()
    state.seed = seed
    state.rng = Rng.from_seed(seed)
    looks = list(range(len(APPEARANCES)))
    Rng.from_seed(seed, APPEARANCE_STREAM).shuffle(looks)
    state.appearances = looks[: len(POTIONS)]
    state.identified = [False] * len(POTIONS)
    level = generate(seed, 1)
    state.levels = {1: level}
    state.x, state.y = xy_of(level.up)
    state.pack = {
        "a": (WEAPON_KIND, DAGGER),
        "b": (ARMOUR_KIND, LEATHER_ARMOUR),
        "c": (FOOD_KIND, FOOD_RATION),
        "d": (FOOD_KIND, FOOD_RATION),
    }
    state.wielded, state.worn = "a", "b"
    state.messages = [WELCOME]
    see(state)
    return state
