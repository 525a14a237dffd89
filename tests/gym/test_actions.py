"""The fixed action enumerations and their masks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.core.palette import palette_of
from playbench.core.registry import get_game
from playbench.games.cogcrawl.glyphs import DIRECTIONS, ITEMS, TERRAIN_WALKABLE
from playbench.games.delvewick.levels import BOARD_GLYPHS
from playbench.gym import env_ids

TABLES = {slug: learning_of(get_game(slug)).actions for slug in env_ids().values()}


def palette(slug: str) -> dict:
    return palette_of(get_game(slug))


def test_sizes_and_first_entries() -> None:
    assert {slug: table.size for slug, table in TABLES.items()} == {
        "delvewick": 5,
        "chimestep": 12,
        "gem-swap": 113,
        "cogcrawl": 133,
    }
    game = get_game("gem-swap")
    texts = [game.command_text(a) for a in TABLES["gem-swap"].actions]
    assert texts[:3] == ["swap A1 right", "swap A1 down", "swap B1 right"]
    assert texts[-2:] == ["swap G8 right", "hint"]
    chime = get_game("chimestep")
    assert [chime.command_text(a) for a in TABLES["chimestep"].actions] == [
        "start",
        "hop upLeft",
        "hop upRight",
        "hop downLeft",
        "hop downRight",
        "toll",
        "tick 1",
        "tick 2",
        "tick 4",
        "tick 8",
        "tick 16",
        "tick 30",
    ]
    cog = get_game("cogcrawl")
    texts = [cog.command_text(a) for a in TABLES["cogcrawl"].actions]
    assert texts[:2] == ["move n", "move s"]
    assert texts[24:29] == ["search", "wait", "pickup", "down", "up"]
    assert texts[-1] == "wear z"


def test_every_enumerated_action_is_unique() -> None:
    for slug, table in TABLES.items():
        texts = [get_game(slug).command_text(action) for action in table.actions]
        assert len(set(texts)) == len(texts), slug


@settings(max_examples=40, deadline=None)
@given(
    slug=st.sampled_from(sorted(TABLES)),
    seed=st.integers(0, 10_000),
    picks=st.lists(st.integers(0, 10_000), max_size=60),
)
def test_every_masked_action_is_accepted_and_every_legal_action_is_masked(
    slug: str, seed: int, picks: list[int]
) -> None:
    table = TABLES[slug]
    learning = learning_of(get_game(slug))
    match = Match.start(slug, seed)
    for pick in picks:
        legal = match.game.legal_actions(match.state)
        assert list(learning.legal_indices(match.game, match.state)) == table.legal(legal)
        mask = [0] * table.size
        for index in table.legal(legal):
            mask[index] = 1
        chosen = [i for i, flag in enumerate(mask) if flag]
        keys = {table.key(action) for action in legal}
        assert {table.key(table.actions[i]) for i in chosen} == keys - _left_out(slug)
        if not chosen:
            break
        result = match.play(table.actions[chosen[pick % len(chosen)]])
        assert result.ok and result.advanced, result.reason


def _left_out(slug: str) -> set:
    """Legal actions the enumeration leaves out: Gem Swap's ``moves`` query."""
    return {"moves"} if slug == "gem-swap" else set()


def test_palettes_colour_every_glyph() -> None:
    assert set(palette("delvewick")["cells"]) == set(BOARD_GLYPHS)
    cells = set(palette("cogcrawl")["cells"])
    assert cells >= TERRAIN_WALKABLE | ITEMS
    assert len(palette("chimestep")["levels"]) == 3
    assert set(palette("gem-swap")["gems"]) == set("RGBYPOW@")
    assert len(DIRECTIONS) == 8
