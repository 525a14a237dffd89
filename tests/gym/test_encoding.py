"""The arrays each game's learning module reads straight off its state (byte tables, one
gather) are exactly what its JSON observation shows, in the shapes and dtypes it
describes, step after step of random play; a batch encoded at once has the rows encoded
one by one; and the env hands out the module's encoding, new memory every step."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.games.cogcrawl.learning import MAP_GLYPHS, OTHER
from playbench.games.delvewick.levels import LEVELS
from playbench.gym import env_ids
from playbench.gym.masks import mask_of_row, rows_of

SLUGS = sorted(env_ids().values())
DELVEWICK_GLYPHS = " #%.Oo*vGgXEM"
CHIMESTEP_STATUSES = ["waiting", "stageIntro", "playing", "recovering", "stageClear", "done"]
CHIMESTEP_DIRECTIONS = ["upLeft", "upRight", "downLeft", "downRight"]
CHIMESTEP_KINDS = ["tumble", "stalker", "muffle"]


def delvewick_arrays(view: dict[str, Any]) -> dict[str, Any]:
    rows = view["board"]
    board = np.zeros((12, 28), dtype=np.uint8)
    for r, text in enumerate(rows):
        board[r, : len(text)] = [DELVEWICK_GLYPHS.index(glyph) for glyph in text]
    moles = [[r, text.index("M")] for r, text in enumerate(rows) if "M" in text]
    level = LEVELS[view["level"] - 1]
    quota = view["quota"]
    stats = [
        view["level"] / 8,
        min(view["gemsCollected"] / quota, 1) if quota else 1,
        float(view["exitOpen"]),
        view["oil"] / level.oil if level.oil else 0,
        min(view["chain"], 3) / 3,
        min(view["score"] / 5000, 1),
    ]
    return {"board": board.tolist(), "mole": (moles or [[-1, -1]])[0], "stats": stats}


def chimestep_arrays(view: dict[str, Any]) -> dict[str, Any]:
    tiles = np.zeros((7, 7), dtype=np.uint8)
    for r, levels in enumerate(view["tiles"]):
        tiles[r, : len(levels)] = [level + 1 for level in levels]
    hush: dict[tuple[int, int], set[int]] = {}
    for entries, dormant in ((view["hushCells"], 0), (view["dormantHush"], 3)):
        for entry in entries:
            code = CHIMESTEP_KINDS.index(entry["kind"]) + 1 + dormant
            hush.setdefault((entry["row"], entry["col"]), set()).add(code)
    teeter, buffered = view["teeter"], view["bufferedHop"]
    stats = [
        CHIMESTEP_STATUSES.index(view["status"]) / 5,
        min(view["stage"], 30) / 30,
        view["target"] - 1,
        view["remaining"] / 28,
        view["hopCooldown"] / 4,
        0 if buffered is None else (CHIMESTEP_DIRECTIONS.index(buffered) + 1) / 4,
        0 if teeter is None else (CHIMESTEP_DIRECTIONS.index(teeter["dir"]) + 1) / 4,
        0 if teeter is None else teeter["ticks"] / 12,
        min(view["lives"], 5) / 5,
        min(view["chain"], 10) / 10,
        view["tollCharges"] / 2,
        view["tollCooldown"] / 24,
        view["shimmerTicks"] / 36,
        min(view["stageHops"] / view["par"], 1),
    ]
    position = view["position"]
    return {
        "tiles": tiles.tolist(),
        "hush": hush,
        "chick": [position["row"], position["col"]],
        "stats": stats,
    }


def cogcrawl_map(view: dict[str, Any]) -> list[list[int]]:
    return [
        [MAP_GLYPHS.index(glyph) if glyph in MAP_GLYPHS else OTHER for glyph in row]
        for row in view["map"]
    ]


def as_float32(values: list[float]) -> list[float]:
    return np.array(values, dtype=np.float32).tolist()


def check_against_the_view(slug: str, arrays: dict[str, np.ndarray], view: dict) -> None:
    """The arrays of ``slug`` hold what its JSON view ``view`` says."""
    if slug == "delvewick":
        expected = delvewick_arrays(view)
        assert arrays["board"].tolist() == expected["board"]
        assert arrays["mole"].tolist() == expected["mole"]
        assert arrays["stats"].tolist() == as_float32(expected["stats"])
    elif slug == "chimestep":
        expected = chimestep_arrays(view)
        assert arrays["tiles"].tolist() == expected["tiles"]
        assert arrays["chick"].tolist() == expected["chick"]
        assert arrays["stats"].tolist() == as_float32(expected["stats"])
        for (row, col), code in np.ndenumerate(arrays["hush"]):
            assert code in expected["hush"].get((row, col), {0})
    elif slug == "cogcrawl":
        assert arrays["map"].tolist() == cogcrawl_map(view)
        assert arrays["position"].tolist() == [view["position"]["x"], view["position"]["y"]]


def filled(learning: Any, batch: int) -> dict[str, np.ndarray]:
    """A batch of the module's arrays holding a value no encoding leaves (all must be set)."""
    return {
        name: np.full((batch, *array.shape), 111, dtype=array.dtype)
        for name, array in learning.arrays(None).items()
    }


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 1000), min_size=60, max_size=150))
def test_arrays_read_off_the_state_are_what_the_view_shows(
    slug: str, seed: int, picks: list[int]
) -> None:
    game = get_game(slug)
    learning = learning_of(game)
    match = Match.start(game, seed)
    states = [match.state]
    described = learning.arrays(None)
    for pick in picks:
        arrays = learning.encode(match.state, described)
        assert {name: (a.shape, a.dtype.name) for name, a in arrays.items()} == {
            name: (a.shape, a.dtype) for name, a in described.items()
        }
        check_against_the_view(slug, arrays, game.observe(match.state))
        legal = learning.legal_indices(game, match.state)
        if not legal:
            break
        match.play(learning.actions.actions[legal[pick % len(legal)]])
        states.append(match.state)
    batch = filled(learning, len(states))
    learning.encode_each(states, batch, described)
    for i, state in enumerate(states):
        for name, array in learning.encode(state, described).items():
            assert batch[name][i].tolist() == array.tolist(), name


@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 1000), max_size=30))
@settings(max_examples=10, deadline=None)
def test_every_observation_is_new_and_the_env_reads_what_the_module_encodes(
    seed: int, picks: list[int]
) -> None:
    """Each observation's arrays and mask are new (none shares memory with an earlier one),
    the arrays are the module's encoding of the match's state, and each mask is read-only
    for good and still holds, at the end, what it held when it was handed out."""
    for env_id, slug in env_ids().items():
        env = gymnasium.make(env_id)
        learning = env.unwrapped.learning
        described = learning.arrays(None)
        observation, info = env.reset(seed=seed)
        seen: list[np.ndarray] = []
        masks: list[tuple[np.ndarray, list[int]]] = []
        for pick in picks:
            expected = learning.encode(env.unwrapped.match.state, described)
            for name, array in observation.items():
                assert array.tolist() == expected[name].tolist(), (slug, name)
                assert not any(np.shares_memory(array, old) for old in seen)
            mask = info["action_mask"]
            with pytest.raises(ValueError, match="WRITEABLE"):
                mask.flags.writeable = True
            assert not any(np.shares_memory(mask, old) for old in seen)
            seen += [*observation.values(), mask]
            masks.append((mask, mask.tolist()))
            legal = mask.nonzero()[0]
            if not len(legal):
                break
            observation, _, _, _, info = env.step(int(legal[pick % len(legal)]))
        assert [mask.tolist() for mask, _ in masks] == [held for _, held in masks]


def test_masks_are_new_bytes_of_each_legal_set_whether_it_comes_again_or_not() -> None:
    """A tuple of indices that comes again has its kept row (made again past ``kept``
    sets), a list has a new row each time; each mask handed out is new bytes and a
    read-only array, sharing no memory with any other."""
    handed = iter([(0, 2), (0, 2), [0, 2], (3,), (1,), (0, 2), []])
    row_of = rows_of(4, lambda state: next(handed), kept=2)
    kept = [row_of(None) for _ in range(7)]
    assert kept[1] is kept[0] and kept[2] is not kept[0] and kept[5] is not kept[0]
    pairs = [mask_of_row(row) for row in kept]
    assert [row for row, _ in pairs] == [
        b"\1\0\1\0",
        b"\1\0\1\0",
        b"\1\0\1\0",
        b"\0\0\0\1",
        b"\0\1\0\0",
        b"\1\0\1\0",
        bytes(4),
    ]
    assert [array.tolist() for _, array in pairs] == [list(row) for row, _ in pairs]
    assert len({id(row) for row, _ in pairs}) == len(pairs)
    for i, (_, array) in enumerate(pairs):
        assert array.dtype == np.int8 and not array.flags.writeable
        assert not any(np.shares_memory(array, other) for _, other in pairs[:i])
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.flags.writeable = True
