"""Cogcrawl dungeon generation: shape, stairs, connectivity, hidden things, lava, the Oracle,
items and monsters, over many seeds and every level."""

from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.games.cogcrawl.dungeon import (
    CORRIDOR_B,
    DOOR_CLOSED_B,
    FLOOR_B,
    GOLD_BASE,
    GOLD_PER_DEPTH,
    LAVA_B,
    LAVA_DEPTH,
    LEVELS,
    MAX_ROOMS,
    MIN_INNER_HEIGHT,
    MIN_INNER_WIDTH,
    MIN_ROOMS,
    ORACLE_LEVELS,
    SIZE,
    WALKABLE_B,
    generate,
    goal_of,
    next_to_door,
    oracle_level,
    passable_plain,
    passable_with_hidden,
    reachable,
)
from playbench.games.cogcrawl.glyphs import HEIGHT, WIDTH
from playbench.games.cogcrawl.items import COGHEART_ITEM, GOLD_KIND, is_valid
from playbench.games.cogcrawl.monsters import HOSTILE, ORACLE, kinds_for_depth

SEEDS = range(40)
DEPTHS = range(1, LEVELS + 1)


@cache
def level(seed, depth):
    return generate(seed, depth)


def text(lvl):
    return lvl.terrain.decode("ascii")


def oracle_cells(lvl):
    return {m.y * WIDTH + m.x for m in lvl.monsters if m.kind == ORACLE}


def check_level(lvl, depth):
    terrain = text(lvl)
    assert len(lvl.terrain) == len(lvl.memory) == WIDTH * HEIGHT == 864
    assert lvl.memory == bytearray(b" " * 864)
    assert terrain.count("<") == 1 and terrain[lvl.up] == "<"
    if depth < LEVELS:
        assert terrain.count(">") == 1 and terrain[lvl.down] == ">"
    else:
        assert ">" not in terrain and lvl.down is None
        hearts = [c for c, s in lvl.items.items() if COGHEART_ITEM in s]
        assert len(hearts) == 1
    assert MIN_ROOMS <= len(lvl.rooms) <= MAX_ROOMS
    if depth < LAVA_DEPTH:
        assert "}" not in terrain
    blocked = oracle_cells(lvl)
    everything = reachable(lvl, lvl.up, passable_with_hidden(lvl, blocked))
    walkable = {
        c
        for c in range(SIZE)
        if (lvl.terrain[c] in WALKABLE_B or terrain[c] == "+" or c in lvl.hidden)
        and c not in blocked
    }
    assert walkable <= set(everything), "a walkable cell is cut off from <"
    for index in range(len(lvl.rooms)):
        assert any(lvl.owner[c] == index + 1 for c in everything), f"room {index} unreachable"
    plain = reachable(lvl, lvl.up, passable_plain(lvl, blocked))
    assert goal_of(lvl) in plain, "< is not joined to the goal without search or kick"


@pytest.mark.parametrize("depth", DEPTHS)
def test_every_level_over_many_seeds_has_the_right_shape_and_is_connected(depth):
    for seed in SEEDS:
        check_level(level(seed, depth), depth)


@given(seed=st.integers(0, 2**63 - 1), depth=st.integers(1, LEVELS))
def test_any_seed_gives_a_sound_level(seed, depth):
    check_level(generate(seed, depth), depth)


def test_generation_is_a_function_of_seed_and_depth():
    assert generate(5, 3).to_json() == level(5, 3).to_json()
    assert generate(6, 3).to_json() != level(5, 3).to_json()
    assert generate(5, 4).to_json() != level(5, 3).to_json()


def test_rooms_lie_on_the_map_and_do_not_overlap():
    for seed in SEEDS:
        lvl = level(seed, 1)
        cells = set()
        for x1, y1, x2, y2 in lvl.rooms:
            assert x1 >= 1 and x2 <= WIDTH - 2 and y1 >= 1 and y2 <= HEIGHT - 2
            assert x2 - x1 - 1 >= MIN_INNER_WIDTH and y2 - y1 - 1 >= MIN_INNER_HEIGHT
            rect = {(x, y) for x in range(x1, x2 + 1) for y in range(y1, y2 + 1)}
            assert not rect & cells
            cells |= rect


def test_hidden_things_show_as_wall_or_rock_and_locked_doors_as_closed():
    hidden_doors = hidden_corridors = locked = 0
    for seed in SEEDS:
        for depth in DEPTHS:
            lvl = level(seed, depth)
            for cell, glyph in lvl.hidden.items():
                shown = chr(lvl.terrain[cell])
                if glyph == DOOR_CLOSED_B:
                    hidden_doors += 1
                    assert shown in "|-"
                else:
                    hidden_corridors += 1
                    assert glyph == CORRIDOR_B and shown == " "
            for cell in lvl.locked:
                locked += 1
                assert chr(lvl.terrain[cell]) == "+"
    assert hidden_doors > 50 and hidden_corridors > 10 and locked > 50


def test_lava_appears_only_from_level_four_and_only_in_rooms():
    pools = {depth: 0 for depth in DEPTHS}
    for seed in SEEDS:
        for depth in DEPTHS:
            lvl = level(seed, depth)
            for cell in range(SIZE):
                if lvl.terrain[cell] == LAVA_B:
                    pools[depth] += 1
                    assert lvl.owner[cell]
    assert pools[1] == pools[2] == pools[3] == 0
    assert all(pools[d] > 0 for d in range(LAVA_DEPTH, LEVELS + 1))


def test_the_oracle_is_on_one_level_of_two_to_five_away_from_doors():
    for seed in SEEDS:
        where = [d for d in DEPTHS if oracle_cells(level(seed, d))]
        assert where == [oracle_level(seed)]
        assert where[0] in ORACLE_LEVELS
        lvl = level(seed, where[0])
        (cell,) = oracle_cells(lvl)
        assert lvl.terrain[cell] == FLOOR_B and lvl.owner[cell]
        assert not next_to_door(lvl, cell)


def test_the_oracle_level_spreads_over_seeds():
    assert {oracle_level(seed) for seed in SEEDS} == set(ORACLE_LEVELS)


def test_monsters_fit_their_depth_and_keep_away_from_the_up_room():
    for seed in SEEDS:
        for depth in DEPTHS:
            lvl = level(seed, depth)
            allowed = kinds_for_depth(depth)
            places = set()
            up_room = lvl.owner[lvl.up]
            for monster in lvl.monsters:
                cell = monster.y * WIDTH + monster.x
                assert cell not in places
                places.add(cell)
                assert lvl.terrain[cell] == FLOOR_B
                if monster.kind != ORACLE:
                    assert monster.kind in allowed and monster.hp >= 1
                    assert lvl.owner[cell] != up_room


def test_every_depth_has_hostile_kinds_and_there_are_at_least_ten():
    assert len(HOSTILE) >= 10
    for depth in DEPTHS:
        assert kinds_for_depth(depth)


def test_items_lie_on_room_floor_and_gold_grows_with_depth():
    for seed in SEEDS:
        for depth in DEPTHS:
            lvl = level(seed, depth)
            for cell, stack in lvl.items.items():
                assert lvl.terrain[cell] == FLOOR_B and lvl.owner[cell]
                for item in stack:
                    assert is_valid(item)
                    if item[0] == GOLD_KIND:
                        assert GOLD_BASE <= item[1] <= GOLD_BASE + GOLD_PER_DEPTH * depth
