"""Every step of a few hundred random games hashes to the value recorded before the engine
was made faster: the legal actions, the outcome (reward, events, reason) and the state's
JSON of every step, byte for byte (the ``hinted`` mark, added since, left out of the hash
and checked on its own: there after a hint, until the next swap)."""

import hashlib
import json

from playbench.core.rng import Rng
from tests.games.gemswap.boards import GAME

GAMES = 300
#: SHA-256 of every step of seeds 0-299, recorded with the engine before its speed-up
STEPS_SHA256 = "6e52cbc5b3fd37a0455f5c65377866b597e49a648d65d90c8da561ff784e362c"


def steps_digest(games: int) -> str:
    digest = hashlib.sha256()
    for seed in range(games):
        chooser = Rng.from_seed(seed, 1)
        state = GAME.new(seed)
        standing = False
        while not GAME.is_over(state):
            legal = GAME.legal_actions(state)
            outcome = GAME.step(state, chooser.choice(legal))
            kinds = {event["type"] for event in outcome.events}
            standing = (standing and "swap" not in kinds) or "hint" in kinds
            record = [legal, outcome.ok, outcome.reward, outcome.events, outcome.reason]
            data = GAME.to_json(outcome.state)
            assert data.pop("hinted", False) is standing
            record.append(data)
            digest.update(json.dumps(record, sort_keys=True).encode())
            state = outcome.state
    return digest.hexdigest()


def test_random_games_step_exactly_as_recorded():
    assert steps_digest(GAMES) == STEPS_SHA256
