"""A recorded game replays to the same final state: seed + actions reproduce a run."""

import json
from pathlib import Path

from playbench.games.gemswap.board import read_rows
from tests.games.gemswap.boards import GAME

GOLDEN = json.loads((Path(__file__).parent / "golden_replay.json").read_text())


def replay():
    state = GAME.new(GOLDEN["seed"], GOLDEN["options"])
    for command in GOLDEN["actions"]:
        outcome = GAME.step(state, GAME.parse_command(command))
        assert outcome.ok, f"{command!r} refused: {outcome.reason}"
        state = outcome.state
    return state


def test_the_recorded_game_replays_exactly():
    state = replay()
    assert GAME.is_over(state)
    assert GAME.score(state) == GOLDEN["score"]
    colors, kinds = read_rows(GOLDEN["board"])
    assert (state.colors, state.kinds) == (colors, kinds)
    assert GAME.fingerprint(state) == GOLDEN["fingerprint"]


def test_the_recorded_game_has_30_swaps_and_some_free_commands():
    swaps = [c for c in GOLDEN["actions"] if c.startswith("swap")]
    assert len(swaps) == 30
    assert {"hint", "moves"} <= set(GOLDEN["actions"])
