"""Cogcrawl rules on small hand-drawn levels: doors, kicks, searching, the Oracle, hunger,
combat, potions, stairs, lava, turn limits, regeneration and how a turn's queue runs."""

import pytest

from playbench.core import get_game
from playbench.games.cogcrawl import combat
from playbench.games.cogcrawl.actions import compass
from playbench.games.cogcrawl.clock import regen_period
from playbench.games.cogcrawl.dungeon import SIZE, WIDTH, Level, generate, xy_of
from playbench.games.cogcrawl.items import (
    APPEARANCES,
    ARMOUR_KIND,
    COGHEART_ITEM,
    DAGGER,
    FOOD_KIND,
    FOOD_RATION,
    FOODS,
    GOLD_KIND,
    HEALING,
    MAGIC_MAPPING,
    OBJECT_DETECTION,
    POTION_KIND,
    SLEEPING,
    WEAPON_KIND,
    WEAPONS,
)
from playbench.games.cogcrawl.monsters import KINDS, ORACLE, Monster
from playbench.games.cogcrawl.sight import see, visible_monsters
from playbench.games.cogcrawl.start import new_state
from playbench.games.cogcrawl.state import DEAD, LEFT, OUT_OF_TURNS, PLAYING, WON, hunger_of

GAME = get_game("cogcrawl")

ROOM = [
    "-------",
    "|.....|",
    "|.....+",
    "|.....|",
    "-------",
]


def kind(name):
    return next(i for i, k in enumerate(KINDS) if k.name == name)


def build(rows, cog, *, rooms=None, monsters=(), items=None, hidden=None, locked=(), seed=0):
    """A state on a one-level dungeon drawn by ``rows``; the cog stands at ``cog``."""
    state = new_state(seed)
    terrain = bytearray(b" " * SIZE)
    for y, row in enumerate(rows):
        for x, glyph in enumerate(row):
            terrain[y * WIDTH + x] = ord(glyph)
    text = terrain.decode()
    up = text.find("<")
    down = text.find(">")
    if rooms is None:
        rooms = ((0, 0, max(len(r) for r in rows) - 1, len(rows) - 1),)
    level = Level(
        1,
        terrain,
        bytearray(b" " * SIZE),
        tuple(rooms),
        up if up >= 0 else cog[1] * WIDTH + cog[0],
        down if down >= 0 else None,
        {y * WIDTH + x: ord(g) for (x, y), g in (hidden or {}).items()},
        {},
        {y * WIDTH + x for x, y in locked},
        {y * WIDTH + x: stack for (x, y), stack in (items or {}).items()},
        [Monster(i, k, x, y, hp) for i, (k, x, y, hp) in enumerate(monsters)],
    )
    state.levels = {1: level}
    state.x, state.y = cog
    see(state)
    return state


def act(state, *actions):
    outcome = GAME.step(state, {"actions": list(actions)})
    assert outcome.ok, outcome.reason
    return outcome.state


def move(direction):
    return {"do": "move", "dir": direction}


def glyph_at(state, x, y):
    return chr(state.level.terrain[y * WIDTH + x])


# -- doors -------------------------------------------------------------------------------


def test_moving_into_a_closed_door_opens_it_and_spends_the_turn_in_place():
    state = act(build(ROOM, (5, 2)), move("e"))
    assert glyph_at(state, 6, 2) == "'"
    assert (state.x, state.y) == (5, 2)
    assert state.dungeon_turn == 1
    assert state.messages == ["The door opens."]


def test_a_locked_door_refuses_the_move_at_no_cost():
    state = act(build(ROOM, (5, 2), locked=[(6, 2)]), move("e"), {"do": "wait"})
    assert glyph_at(state, 6, 2) == "+"
    assert state.dungeon_turn == 0
    assert state.last_plan["executed"] == []
    assert state.last_plan["interrupted"] == "move e failed: this door is locked"


def test_no_diagonal_step_into_a_doorway():
    rows = [*ROOM[:2], "|.....'", *ROOM[3:]]
    state = act(build(rows, (5, 1)), move("se"))
    assert (state.x, state.y) == (5, 1)
    assert "doorway" in state.last_plan["interrupted"]


def test_kicks_break_a_locked_door_open_within_a_few_tries():
    state = build(ROOM, (5, 2), locked=[(6, 2)])
    kicks = 0
    while glyph_at(state, 6, 2) == "+":
        state = act(state, {"do": "kick", "dir": "e"})
        kicks += 1
        assert kicks < 60
    assert glyph_at(state, 6, 2) == "'"
    assert state.level.locked == set()
    assert state.dungeon_turn == kicks
    assert state.messages[-1] == "WHAMM! The door crashes open!"


@pytest.mark.parametrize("nutrition", [50, 1, 0, -50])
def test_kicking_is_impossible_while_weak_or_fainting(nutrition):
    state = build(ROOM, (5, 2), locked=[(6, 2)])
    state.nutrition = nutrition
    after = act(state, {"do": "kick", "dir": "e"})
    assert after.dungeon_turn == 0
    assert after.last_plan["interrupted"] == "kick e failed: you are too weak to kick"
    assert glyph_at(after, 6, 2) == "+"
    assert {"actions": [{"do": "kick", "dir": "e"}]} not in GAME.legal_actions(state)


def test_kick_is_offered_toward_an_adjacent_door_when_not_weak():
    state = build(ROOM, (5, 2), locked=[(6, 2)])
    state.nutrition = 50 + 1
    assert {"actions": [{"do": "kick", "dir": "e"}]} in GAME.legal_actions(state)


def test_kicking_a_wall_fails_without_time():
    state = act(build(ROOM, (5, 2)), {"do": "kick", "dir": "n"})
    assert state.dungeon_turn == 0
    assert state.last_plan["interrupted"] == "kick n failed: there is no closed door there to kick"


# -- searching ---------------------------------------------------------------------------


def test_a_hidden_door_is_found_on_the_third_search_next_to_it():
    rows = [*ROOM[:2], "|.....|", *ROOM[3:]]
    state = build(rows, (5, 2), hidden={(6, 2): "+"})
    for count in (1, 2):
        state = act(state, {"do": "search"})
        assert glyph_at(state, 6, 2) == "|"
        assert state.level.searches == {2 * WIDTH + 6: count}
    state = act(state, {"do": "search"})
    assert glyph_at(state, 6, 2) == "+"
    assert state.level.hidden == {}
    assert state.messages == ["You find a hidden door."]
    assert GAME.observe(state)["map"][2][6] == "+"


def test_searches_count_per_hidden_thing():
    rows = ["---------", "|.......|", "|.......|", "|.......|", "---------"]
    hidden = {(8, 1): "+", (8, 3): "+"}
    state = build(rows, (7, 1), hidden=hidden)
    state = act(state, {"do": "search"}, {"do": "search"})
    assert state.level.searches == {1 * WIDTH + 8: 2}
    state = act(state, move("s"), {"do": "search"})
    assert glyph_at(state, 8, 1) == "+" and glyph_at(state, 8, 3) == "|"
    assert state.level.searches == {3 * WIDTH + 8: 1}
    state = act(state, {"do": "search"}, {"do": "search"})
    assert glyph_at(state, 8, 3) == "+"


def test_a_hidden_corridor_cell_shows_as_rock_until_found():
    rows = ["-----", "|...|", "|...'# #", "-----"]
    state = build(rows, (5, 2), rooms=((0, 0, 4, 3),), hidden={(6, 2): "#"})
    state.x = 5
    see(state)
    assert GAME.observe(state)["map"][2][6] == " "
    state = act(state, move("e"))
    assert state.last_plan["interrupted"] == "move e failed: solid rock is in the way"
    state = act(state, *[{"do": "search"}] * 3)
    assert state.messages[-1] == "You find a hidden passage."
    assert GAME.observe(state)["map"][2][5:8] == "@# "
    state = act(state, move("e"))
    assert GAME.observe(state)["map"][2][5:8] == "#@#"


def test_searching_uses_no_chance():
    state = build(ROOM, (3, 2), hidden={(6, 2): "+"})
    after = act(state, *[{"do": "search"}] * 5)
    assert after.rng == state.rng


# -- the Oracle ----------------------------------------------------------------------------


def oracle_room(gold):
    rows = ["---------", "|.......|", "|.......|", "|.......|", "|......>|", "---------"]
    state = build(rows, (2, 1), monsters=[(ORACLE, 3, 1, 1)])
    state.gold = gold
    return state


def test_the_oracle_refuses_at_no_cost_with_less_than_fifty_gold():
    state = act(oracle_room(50 - 1), {"do": "chat", "dir": "e"})
    assert state.gold == 50 - 1
    assert state.dungeon_turn == 0
    assert (
        state.last_plan["interrupted"] == "chat e failed: the Oracle wants 50 gold and you have 49"
    )


def test_the_oracle_takes_fifty_gold_and_names_the_direction_of_the_stairs():
    state = oracle_room(120)
    after = act(state, {"do": "chat", "dir": "e"})
    assert after.gold == 70
    assert after.score == state.score
    assert after.dungeon_turn == 1
    assert after.messages == [
        "The Oracle takes 50 gold and says: The stairs down lie to the south-east."
    ]


def test_chat_toward_nobody_fails():
    state = act(oracle_room(100), {"do": "chat", "dir": "s"})
    assert state.gold == 100
    assert state.last_plan["interrupted"] == "chat s failed: there is nobody there to talk to"


def test_the_oracle_blocks_a_move_and_never_acts():
    state = act(oracle_room(0), move("e"), {"do": "wait"})
    assert (state.x, state.y) == (2, 1)
    assert state.last_plan["interrupted"] == "move e failed: the Oracle is in the way"


@pytest.mark.parametrize(
    ("dx", "dy", "expected"),
    [
        (5, 0, "e"),
        (5, 2, "e"),
        (4, 2, "se"),
        (1, -5, "n"),
        (-3, -3, "nw"),
        (-7, 3, "w"),
        (-2, 5, "s"),
        (-2, 4, "sw"),
        (3, -1, "e"),
        (2, -1, "ne"),
    ],
)
def test_compass_sectors(dx, dy, expected):
    assert compass(dx, dy) == expected


def test_legal_actions_offer_chat_not_move_toward_the_oracle():
    legal = GAME.legal_actions(oracle_room(0))
    assert {"actions": [{"do": "chat", "dir": "e"}]} in legal
    assert {"actions": [move("e")]} not in legal


# -- hunger --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nutrition", "state"),
    [
        (900, "Not hungry"),
        (151, "Not hungry"),
        (150, "Hungry"),
        (51, "Hungry"),
        (50, "Weak"),
        (1, "Weak"),
        (0, "Fainting"),
        (-200, "Fainting"),
    ],
)
def test_hunger_thresholds(nutrition, state):
    assert hunger_of(nutrition) == state


@pytest.mark.parametrize(
    ("start", "message"),
    [(151, "You are beginning to feel hungry."), (51, "You are beginning to feel weak.")],
)
def test_hunger_changes_are_announced(start, message):
    state = build(ROOM, (3, 2))
    state.nutrition = start
    after = act(state, {"do": "wait"})
    assert after.nutrition == start - 1
    assert after.messages == [message]


def test_starving_below_minus_two_hundred_kills():
    state = build(ROOM, (3, 2))
    state.nutrition = -200
    after = act(state, {"do": "wait"})
    assert after.run == DEAD
    assert after.messages == ["You die from starvation.", "You die..."]
    assert GAME.is_over(after)


def test_eating_a_ration_takes_five_turns_and_frees_its_letter():
    state = build(ROOM, (3, 2))
    state.nutrition = 100
    after = act(state, {"do": "eat", "item": "c"})
    assert after.dungeon_turn == FOODS[FOOD_RATION].turns == 5
    assert after.nutrition == 100 + 800 - 5
    assert "c" not in after.pack and "d" in after.pack
    assert GAME.observe(after)["status"]["hunger"] == "Not hungry"


def test_eating_what_is_not_food_fails():
    state = act(build(ROOM, (3, 2)), {"do": "eat", "item": "a"})
    assert state.last_plan["interrupted"] == "eat a failed: you cannot eat the dagger"
    assert "a" in state.pack


# -- potions, arms and armour ---------------------------------------------------------------


def test_quaffing_identifies_the_kind_for_the_rest_of_the_run():
    state = build(ROOM, (3, 2))
    state.pack["e"] = (POTION_KIND, HEALING)
    state.pack["f"] = (POTION_KIND, HEALING)
    state.hp, state.max_hp = 3, 40
    looks = APPEARANCES[state.appearances[HEALING]]
    names = {p["letter"]: p["name"] for p in GAME.observe(state)["pack"]}
    assert names["e"] == names["f"] == f"{looks} potion"
    copy = state.rng.copy()
    heal = sum(copy.randint(1, 4) for _ in range(6))
    after = act(state, {"do": "quaff", "item": "e"})
    assert after.hp == 3 + heal
    names = {p["letter"]: p["name"] for p in GAME.observe(after)["pack"]}
    assert names["f"] == "potion of healing" and "e" not in names
    assert after.messages[0] == f"You drink the {looks} potion. It was a potion of healing."


def test_healing_past_full_raises_max_hp_by_one():
    state = build(ROOM, (3, 2))
    state.pack["e"] = (POTION_KIND, HEALING)
    after = act(state, {"do": "quaff", "item": "e"})
    assert after.max_hp == after.hp == 16 + 1


def test_sleeping_potion_costs_its_sleep_turns():
    state = build(ROOM, (3, 2))
    state.pack["e"] = (POTION_KIND, SLEEPING)
    copy = state.rng.copy()
    sleep = copy.randint(5, 14)
    after = act(state, {"do": "quaff", "item": "e"})
    assert after.dungeon_turn == 1 + sleep


def test_magic_mapping_remembers_every_cell_of_the_level():
    rows = ["-----    -----", "|...|####|...|", "-----    -----"]
    state = build(rows, (1, 1), rooms=((0, 0, 4, 2), (9, 0, 13, 2)))
    state.pack["e"] = (POTION_KIND, MAGIC_MAPPING)
    assert GAME.observe(state)["map"][1][5:14] == " " * 9
    after = act(state, {"do": "quaff", "item": "e"})
    assert GAME.observe(after)["map"][1].rstrip() == "|@..|####|...|"


def test_object_detection_shows_far_items():
    rows = ["-----    -----", "|...|    |...|", "-----    -----"]
    state = build(
        rows, (1, 1), rooms=((0, 0, 4, 2), (9, 0, 13, 2)), items={(11, 1): ((GOLD_KIND, 7),)}
    )
    state.pack["e"] = (POTION_KIND, OBJECT_DETECTION)
    assert GAME.observe(state)["items"] == []
    after = act(state, {"do": "quaff", "item": "e"})
    assert GAME.observe(after)["items"] == [
        {"x": 11, "y": 1, "glyph": "$", "name": "7 gold pieces"}
    ]


def test_wield_and_wear_take_a_turn_and_change_the_status():
    state = build(ROOM, (3, 2))
    state.pack["e"] = (WEAPON_KIND, 5)
    state.pack["f"] = (ARMOUR_KIND, 2)
    after = act(state, {"do": "wield", "item": "e"}, {"do": "wear", "item": "f"})
    status = GAME.observe(after)["status"]
    assert status["wielded"] == "long sword" and status["worn"] == "ring mail"
    assert status["ac"] == 10 - 3
    assert after.dungeon_turn == 2


def test_wielding_the_wielded_weapon_fails():
    state = act(build(ROOM, (3, 2)), {"do": "wield", "item": "a"})
    assert state.last_plan["interrupted"] == "wield a failed: you are already wielding the dagger"


# -- combat ---------------------------------------------------------------------------------


def expected_blow(state, monster, weak):
    copy = state.rng.copy()
    to_hit = 5 + state.xl + monster.ac + WEAPONS[DAGGER].to_hit
    if to_hit <= copy.randint(1, 20):
        return 0
    damage = copy.randint(1, 4)
    return max(1, damage // 2) if weak else damage


@pytest.mark.parametrize("weak", [False, True])
def test_blows_follow_the_to_hit_and_damage_rules(weak):
    for seed in range(12):
        state = build(ROOM, (3, 2), monsters=[(kind("troll"), 4, 2, 100)], seed=seed)
        state.hp = 500
        state.nutrition = 50 if weak else 900
        damage = expected_blow(state, KINDS[kind("troll")], weak)
        after = act(state, move("e"))
        assert after.level.monsters[0].hp == 100 - damage


def test_killing_gives_experience_to_xp_and_score_and_raises_the_level():
    state = build(ROOM, (3, 2), monsters=[(kind("sewer rat"), 4, 2, 1)])
    state.xp = 10 - 1
    state.hp = state.max_hp = 100
    for _ in range(40):
        state = act(state, move("e"))
        if not state.level.monsters:
            break
    assert state.level.monsters == []
    gained = KINDS[kind("sewer rat")].experience
    assert gained == 1 + 0 + 2 * 1
    assert state.xp == 10 - 1 + gained and state.score == gained
    assert state.xl == 2 and 100 < state.max_hp <= 100 + 8
    assert "Welcome to experience level 2." in state.messages


def test_being_hit_interrupts_the_queue():
    state = build(ROOM, (3, 2), monsters=[(kind("troll"), 4, 2, 100)])
    state.hp = 200
    after = act(state, {"do": "wait"}, {"do": "wait"}, {"do": "wait"})
    assert after.last_plan["executed"] == [{"do": "wait"}]
    assert after.last_plan["interrupted"] == "the cog was hit"
    assert 200 - 12 <= after.hp <= 200 - 2


def test_a_monster_coming_into_view_interrupts_the_queue():
    rows = ["       ", "-----  ", "|...|  ", "|...'##", "-----  "]
    state = build(rows, (6, 3), rooms=((0, 1, 4, 4),), monsters=[(kind("lichen"), 1, 2, 1)])
    assert GAME.observe(state)["monsters"] == []
    after = act(state, move("w"), move("w"), move("w"))
    assert after.last_plan["executed"] == [move("w"), move("w")]
    assert after.last_plan["interrupted"] == "a lichen came into view"
    assert GAME.observe(after)["monsters"] == [
        {"x": 1, "y": 2, "glyph": "F", "name": "lichen", "peaceful": False}
    ]


def test_a_failed_primitive_stops_the_queue_without_time():
    state = act(build(ROOM, (1, 2)), move("w"), {"do": "search"})
    assert state.last_plan["executed"] == []
    assert state.last_plan["interrupted"] == "move w failed: a wall is in the way"
    assert state.dungeon_turn == 0


def test_a_monster_chases_the_cog_it_sees():
    rows = ["---------", "|.......|", "---------"]
    state = build(rows, (1, 1), monsters=[(kind("jackal"), 6, 1, 3)])
    after = act(state, {"do": "wait"})
    assert (after.level.monsters[0].x, after.level.monsters[0].y) == (5, 1)


# -- messages, regeneration, limits -----------------------------------------------------------


def test_messages_overflow_keeps_the_newest_seven_and_counts_the_rest():
    state = oracle_room(500)
    after = act(state, *[{"do": "chat", "dir": "e"}] * 10)
    assert after.gold == 0
    assert len(after.messages) == 8
    assert after.messages[0] == "(3 older messages dropped)"
    assert all(m.startswith("The Oracle takes 50 gold") for m in after.messages[1:])


def test_hit_points_regenerate_on_the_xl_period():
    state = build(ROOM, (3, 2))
    state.hp = 10
    period = regen_period(1)
    assert period == 15
    state.dungeon_turn = period - 2
    after = act(state, {"do": "wait"})
    assert after.hp == 10
    after = act(after, {"do": "wait"})
    assert after.hp == 11


def test_the_turn_limit_ends_the_run():
    state = build(ROOM, (3, 2))
    state.dungeon_turn = 50000 - 1
    after = act(state, {"do": "wait"}, {"do": "wait"})
    assert after.run == OUT_OF_TURNS
    assert after.dungeon_turn == 50000
    assert after.last_plan["executed"] == [{"do": "wait"}]


def test_an_empty_reply_waits_one_turn():
    state = act(build(ROOM, (3, 2)))
    assert state.dungeon_turn == 1
    assert state.last_plan["executed"] == [{"do": "wait"}]


# -- lava, items, stairs, the Cogheart -------------------------------------------------------


def test_stepping_into_lava_kills():
    rows = ["------", "|.}..|", "------"]
    state = act(build(rows, (1, 1)), move("e"), {"do": "wait"})
    assert state.run == DEAD and state.hp == 0
    assert state.last_plan["executed"] == [move("e")]
    assert GAME.observe(state)["run"]["state"] == "dead"
    assert GAME.legal_actions(state) == []
    assert not GAME.step(state, {"actions": []}).ok


def test_legal_actions_never_step_into_lava():
    rows = ["------", "|.}..|", "------"]
    assert {"actions": [move("e")]} not in GAME.legal_actions(build(rows, (1, 1)))


def test_gold_adds_to_purse_and_score():
    state = build(ROOM, (3, 2), items={(3, 2): ((GOLD_KIND, 37),)})
    after = act(state, {"do": "pickup"}, {"do": "pickup"})
    assert after.gold == after.score == 37
    assert after.last_plan["interrupted"] == "pickup failed: there is nothing here to pick up"
    assert GAME.observe(after)["underfoot"] == []


def test_items_take_the_lowest_free_letter():
    state = build(ROOM, (3, 2), items={(3, 2): ((WEAPON_KIND, 1), (FOOD_KIND, 3))})
    del state.pack["c"]
    after = act(state, {"do": "pickup"})
    assert after.pack["c"] == (WEAPON_KIND, 1) and after.pack["e"] == (FOOD_KIND, 3)


def test_the_cogheart_wins_with_a_thousand_points():
    state = build(ROOM, (3, 2), items={(3, 2): (COGHEART_ITEM,)})
    state.deepest = 10
    after = act(state, {"do": "pickup"})
    assert after.run == WON and after.score == 1000
    assert GAME.observe(after)["run"]["progress"] == 1.0


def test_up_on_level_one_leaves_the_dungeon():
    state = GAME.new(4)
    state.score = 12
    after = act(state, {"do": "up"})
    assert after.run == LEFT and after.score == 12
    assert GAME.is_over(after)


def test_stairs_bonus_is_paid_once_per_new_level():
    state = GAME.new(8)
    first = state.level
    state.x, state.y = xy_of(first.down)
    state = act(state, {"do": "down"})
    assert (state.dl, state.deepest, state.score) == (2, 2, 50)
    assert (state.x, state.y) == xy_of(state.level.up)
    state = act(state, {"do": "up"})
    assert state.dl == 1 and (state.x, state.y) == xy_of(first.down)
    state = act(state, {"do": "down"})
    assert state.score == 50 and state.deepest == 2
    assert GAME.observe(state)["run"]["progress"] == 0.1


def test_stairs_need_the_right_glyph():
    state = act(build(ROOM, (3, 2)), {"do": "down"})
    assert state.last_plan["interrupted"] == "down failed: you can't go down here"


def test_travel_walks_a_remembered_path():
    rows = ["-------", "|.....|", "|.....|", "|.....|", "-------"]
    state = act(build(rows, (1, 1)), {"do": "travel", "x": 5, "y": 3})
    assert (state.x, state.y) == (5, 3)
    assert state.dungeon_turn == 4
    assert len(state.last_plan["executed"]) == 4


def test_travel_never_attacks_a_monster_that_steps_into_its_path():
    # the jackal runs down the one-row room into the path; a travel step never turns
    # into an attack (which would leave the cog behind its path for every later step)
    rows = ["------------", "|..........|", "------------"]
    blocked = 0
    for seed in range(40):
        state = build(rows, (1, 1), monsters=[(kind("jackal"), 10, 1, 3)], seed=seed)
        state.hp = state.max_hp = 100
        after = act(state, {"do": "travel", "x": 8, "y": 1})
        assert after.level.monsters[0].hp == 3
        assert not any("the jackal" in m and m.startswith("You") for m in after.messages)
        if after.last_plan["interrupted"] == "move e failed: the jackal is in the way":
            blocked += 1
            jackal = after.level.monsters[0]
            assert (jackal.x - after.x, jackal.y - after.y) == (1, 0)
    assert blocked > 0


def test_a_travel_is_never_walked_from_a_cell_off_its_path(monkeypatch):
    # the travel is planned from (3, 2), where the third move would leave the cog if the
    # jackal stayed put; it comes closer instead, so that move is an attack from (2, 2)
    monkeypatch.setattr(combat, "MONSTER_TO_HIT_BASE", -20)
    rows = ["------------", "|..........|", "|..........|", "|..........|", "------------"]
    state = build(rows, (1, 2), monsters=[(kind("jackal"), 4, 2, 50)])
    after = act(state, move("e"), move("e"), move("e"), {"do": "travel", "x": 6, "y": 3})
    assert after.last_plan["executed"] == [move("e")] * 3
    assert after.last_plan["interrupted"] == (
        "move ne failed: the cog is not where this travel was planned from"
    )
    assert (after.x, after.y) == (2, 2)


def test_a_confused_stagger_never_leads_a_travel_off_its_path():
    # after a stagger the rest of the travel does not walk on from the wrong cell: the
    # cog ends at most one stagger away from the cell its last move was planned from
    rows = ["------------", "|..........|", "|..........|", "|..........|", "------------"]
    stopped = 0
    for seed in range(40):
        state = build(rows, (1, 2), seed=seed)
        state.confused = 1000
        after = act(state, {"do": "travel", "x": 9, "y": 2})
        interrupted = after.last_plan["interrupted"]
        if interrupted is not None:
            assert "failed" in interrupted
            stopped += "not where this travel was planned from" in interrupted
        last_origin = (len(after.last_plan["executed"]), 2)
        assert max(abs(after.x - last_origin[0]), abs(after.y - last_origin[1])) <= 1
    assert stopped > 0


def test_fainting_makes_the_cog_lose_turns():
    for seed in range(60):
        state = build(ROOM, (3, 2), seed=seed)
        state.nutrition = 0 + 1
        copy = state.rng.copy()
        if copy.below(10) != 0:
            continue
        lost = copy.randint(*(2, 5))
        after = act(state, {"do": "wait"})
        assert after.dungeon_turn == 1 + lost
        assert after.messages[:2] == [
            "You are fainting from lack of food.",
            "You faint from lack of food.",
        ]
        return
    pytest.fail("no seed fainted")


def test_a_confused_cog_never_staggers_into_lava():
    rows = ["-----", "|}.}|", "|}.}|", "|}}}|", "-----"]
    balked = 0
    for seed in range(60):
        state = build(rows, (2, 2), seed=seed)
        state.confused = 1000
        after = act(state, move("n"))
        assert after.run == PLAYING
        if after.last_plan["interrupted"]:
            balked += 1
            assert after.last_plan["interrupted"] == (
                "move n failed: you stagger to the edge of the lava and stop"
            )
    assert balked > 0


def test_legal_actions_in_a_fixed_order():
    offered = [a["actions"] for a in GAME.legal_actions(build(ROOM, (5, 2)))]
    assert offered == [
        [move("n")],
        [move("s")],
        [move("e")],
        [move("w")],
        [move("nw")],
        [move("sw")],
        [{"do": "kick", "dir": "e"}],
        [{"do": "search"}],
        [{"do": "wait"}],
        [{"do": "eat", "item": "c"}],
        [{"do": "eat", "item": "d"}],
    ]


def test_legal_actions_offer_pickup_stairs_and_pack_uses_when_they_apply():
    rows = ["-------", "|.<...|", "-------"]
    state = build(rows, (2, 1), items={(2, 1): ((GOLD_KIND, 3),)})
    state.pack["e"] = (POTION_KIND, HEALING)
    state.pack["f"] = (WEAPON_KIND, 1)
    state.pack["g"] = (ARMOUR_KIND, 1)
    offered = [a["actions"][0] for a in GAME.legal_actions(state)]
    assert offered[offered.index({"do": "wait"}) + 1 :] == [
        {"do": "pickup"},
        {"do": "up"},
        {"do": "eat", "item": "c"},
        {"do": "eat", "item": "d"},
        {"do": "quaff", "item": "e"},
        {"do": "wield", "item": "f"},
        {"do": "wear", "item": "g"},
    ]


def test_no_diagonal_attack_into_a_doorway_either_way():
    rows = ["-------", "|.....|", "|.....'..", "-------"]
    state = build(rows, (5, 1), monsters=[(kind("troll"), 6, 2, 50)])
    state.hp = 100
    after = act(state, move("se"), {"do": "wait"}, {"do": "wait"})
    assert after.level.monsters[0].hp == 50
    assert (
        after.last_plan["interrupted"]
        == "move se failed: no diagonal step into or out of a doorway"
    )
    after = act(state, {"do": "wait"})
    assert after.hp == 100 and after.last_plan["interrupted"] is None


def far_floor_in_room(level, cell):
    """A free floor cell in the room of ``cell``, not next to it."""
    x, y = xy_of(cell)
    return next(
        (
            c
            for c in range(SIZE)
            if level.owner[c] == level.owner[cell]
            and level.terrain[c] == ord(".")
            and c not in level.items
            and max(abs(c % WIDTH - x), abs(c // WIDTH - y)) > 1
        ),
        None,
    )


def test_a_monster_in_view_on_arrival_interrupts_the_queue():
    lichen = kind("lichen")
    for seed in range(40):
        state = GAME.new(seed)
        above, below = state.level, generate(seed, 2)
        there, here = far_floor_in_room(above, above.down), far_floor_in_room(below, below.up)
        if there is not None and here is not None:
            break
    above.monsters = [Monster(0, lichen, *xy_of(there), 1)]
    state.x, state.y = xy_of(above.down)
    assert [m.ident for m in visible_monsters(state)] == [0]
    below.monsters = [Monster(0, lichen, *xy_of(here), 1)]
    state.levels[2] = below
    after = act(state, {"do": "down"}, {"do": "search"})
    assert after.dl == 2
    assert after.last_plan["executed"] == [{"do": "down"}]
    assert after.last_plan["interrupted"] == "a lichen came into view"


def test_a_travel_cut_at_forty_moves_runs_forty_and_reports_the_rest_in_truncated():
    # a hall 45 cells wide: 44 moves from one end to the other, 40 run and 4 are cut
    rows = ["-" * 47, "|" + "." * 45 + "|", "-" * 47]
    state = act(build(rows, (1, 1)), {"do": "travel", "x": 45, "y": 1})
    assert state.last_plan["executed"] == [move("e")] * 40
    assert state.last_plan["truncated"] == 4
    assert (state.x, state.y) == (41, 1)
