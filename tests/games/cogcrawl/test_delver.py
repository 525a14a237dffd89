"""The delver: its rules of thumb on built observations, and its play over seeds 0-49."""

import statistics
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.bots.cogcrawl import run_delver
from playbench.core import get_game
from playbench.games.cogcrawl.delver import (
    ATTACK_MOVES,
    DOOR_MOVES_PAST,
    KICKS_PER_TURN,
    MAX_NOTES,
    REST_SEARCHES,
    Notes,
    delver_reply,
)
from playbench.games.cogcrawl.glyphs import HEIGHT, WIDTH
from playbench.games.cogcrawl.protocol import plan_turn

# A lit room (x 0..9, y 0..4) with an open door at (9, 2) onto unseen ground.
ROOM = {
    0: "----------",
    1: "|........|",
    2: "|........'",
    3: "|........|",
    4: "----------",
}
# The same room closed on every side, with > at (5, 3).
CLOSED_ROOM = {**ROOM, 2: "|........|", 3: "|....>...|"}

PACK = [
    {"letter": "a", "name": "dagger", "kind": "weapon", "wielded": True},
    {"letter": "b", "name": "leather armour", "kind": "armour", "worn": True},
    {"letter": "c", "name": "food ration", "kind": "food"},
]


def observation(rows=ROOM, at=(2, 2), monsters=(), pack=PACK, notes="", **status):
    """An observation as the game builds it: the cog and visible monsters drawn on."""
    grid = [list(rows.get(y, "").ljust(WIDTH)) for y in range(HEIGHT)]
    underfoot = grid[at[1]][at[0]]
    grid[at[1]][at[0]] = "@"
    for monster in monsters:
        grid[monster["y"]][monster["x"]] = monster["glyph"]
    base = {
        "dl": 1,
        "hp": 16,
        "max_hp": 16,
        "xl": 1,
        "ac": 8,
        "gold": 0,
        "hunger": "Not hungry",
        "wielded": "dagger",
        "worn": "leather armour",
    }
    return {
        "turn": 5,
        "dungeon_turn": 40,
        "status": {**base, **status},
        "position": {"x": at[0], "y": at[1]},
        "map": ["".join(row) for row in grid],
        "monsters": list(monsters),
        "items": [],
        "underfoot": [],
        "terrain_underfoot": underfoot,
        "pack": list(pack),
        "messages": [],
        "last_plan": {
            "executed": [],
            "truncated": 0,
            "dropped": [],
            "over_cap": 0,
            "unreachable": [],
            "interrupted": None,
        },
        "notes": notes,
        "say": "",
        "fallback": False,
        "retry": False,
        "run": {
            "state": "playing",
            "score": 0,
            "progress": (status.get("dl", 1) - 1) / 10,
            "deepest": status.get("dl", 1),
        },
    }


def rat(x, y):
    return {"x": x, "y": y, "glyph": "r", "name": "sewer rat", "peaceful": False}


def moves(direction, count):
    return [{"do": "move", "dir": direction}] * count


# -- rules of thumb --------------------------------------------------------------------


def test_attacks_an_adjacent_monster():
    reply = delver_reply(observation(monsters=[rat(3, 2)]))
    assert reply["actions"] == moves("e", ATTACK_MOVES)


def test_attacks_orthogonally_from_a_doorway():
    # the rat to the north-west cannot be hit out of the doorway; the one to the west can
    obs = observation(at=(9, 2), monsters=[rat(8, 1), rat(8, 2)])
    assert delver_reply(obs)["actions"] == moves("w", ATTACK_MOVES)


def test_steps_round_a_monster_it_cannot_hit_from_a_doorway():
    obs = observation(at=(9, 2), monsters=[rat(8, 1)])
    assert delver_reply(obs)["actions"] == [{"do": "move", "dir": "w"}]


def test_learns_a_doorway_hidden_under_a_monster():
    # the rat stands in a doorway the map cannot show; last turn's diagonal attack failed
    obs = observation(monsters=[rat(1, 3)])
    assert delver_reply(obs)["actions"] == moves("sw", ATTACK_MOVES)
    obs["last_plan"]["interrupted"] = "move sw failed: no diagonal step into or out of a doorway"
    assert delver_reply(obs)["actions"] == [{"do": "move", "dir": "s"}]


def test_eats_when_hungry():
    assert delver_reply(observation(hunger="Hungry"))["actions"] == [{"do": "eat", "item": "c"}]


def test_does_not_eat_when_not_hungry():
    actions = delver_reply(observation())["actions"]
    assert {"do": "eat", "item": "c"} not in actions


def test_picks_up_gold_underfoot():
    obs = observation()
    obs["underfoot"] = [{"glyph": "$", "name": "7 gold pieces"}]
    assert delver_reply(obs)["actions"] == [{"do": "pickup"}]


def test_leaves_a_worse_weapon_underfoot():
    obs = observation(wielded="long sword")
    obs["underfoot"] = [{"glyph": ")", "name": "dagger"}]
    assert {"do": "pickup"} not in delver_reply(obs)["actions"]


def test_wields_a_better_weapon_once():
    pack = [*PACK, {"letter": "d", "name": "long sword", "kind": "weapon"}]
    reply = delver_reply(observation(pack=pack))
    assert reply["actions"] == [{"do": "wield", "item": "d"}]
    # the letter is remembered as tried, so a refused wield is not repeated forever
    again = delver_reply(observation(pack=pack, notes=reply["notes"]))
    assert again["actions"] != [{"do": "wield", "item": "d"}]


def test_wears_better_armour():
    pack = [*PACK, {"letter": "d", "name": "ring mail", "kind": "armour"}]
    assert delver_reply(observation(pack=pack))["actions"] == [{"do": "wear", "item": "d"}]


def test_explores_through_the_doorway_to_the_unseen():
    reply = delver_reply(observation())
    assert reply["actions"] == [{"do": "travel", "x": 9, "y": 2}, *moves("e", DOOR_MOVES_PAST)]


@pytest.mark.parametrize(("dl", "blind"), [(1, 6), (3, 6), (4, 2), (9, 2)])
def test_follows_a_dark_corridor_with_fewer_blind_moves_where_lava_may_be(dl, blind):
    # from DL4 down two blind moves can reach a doorway and the cell inside, no further
    rows = {**ROOM, 2: "|........'##"}
    reply = delver_reply(observation(rows=rows, at=(10, 2), dl=dl))
    assert reply["actions"] == [{"do": "travel", "x": 11, "y": 2}, *moves("e", blind)]


def test_searches_a_closed_level_spot_by_spot():
    rows = {**ROOM, 2: "|........|"}
    reply = delver_reply(observation(rows=rows))
    assert reply["actions"] == [{"do": "travel", "x": 1, "y": 1}, *[{"do": "search"}] * 5]
    assert Notes.read(reply["notes"]).sweep == 1
    # the next spot is the same wherever the cog stands: (3, 1) searches walls x 2..4
    for at in [(2, 2), (7, 3)]:
        notes = Notes(level=1, sweep=1).write()
        again = delver_reply(observation(rows=rows, at=at, notes=notes))
        assert again["actions"][0] == {"do": "travel", "x": 3, "y": 1}


def test_goes_for_the_cogheart():
    rows = {**CLOSED_ROOM, 3: '|......".|'}
    obs = observation(rows=rows, dl=10)
    obs["items"] = [{"x": 7, "y": 3, "glyph": '"', "name": "the Cogheart"}]
    assert delver_reply(obs)["actions"] == [{"do": "travel", "x": 7, "y": 3}, {"do": "pickup"}]


def test_descends_once_the_level_is_seen():
    reply = delver_reply(observation(rows=CLOSED_ROOM))
    assert reply["actions"] == [{"do": "travel", "x": 5, "y": 3}, {"do": "down"}]


@pytest.mark.parametrize("hp", [11, 15])
def test_rests_on_the_stairs_before_taking_them(hp):
    # 11 of 16 is below the resting line; 15 of 16 is above it but short of taking >
    reply = delver_reply(observation(rows=CLOSED_ROOM, hp=hp))
    assert reply["actions"] == [
        {"do": "travel", "x": 5, "y": 3},
        *[{"do": "search"}] * (REST_SEARCHES - 1),
    ]


def test_rests_when_badly_hurt_and_alone():
    assert delver_reply(observation(hp=6))["actions"] == [{"do": "search"}] * REST_SEARCHES


def test_flees_up_the_stairs_when_losing():
    # on the stairs the cog fights while it can take the rat's hardest bite (1d3: 3)
    rows = {**ROOM, 2: "|.<......'"}
    obs = observation(rows=rows, at=(2, 2), monsters=[rat(3, 2)], hp=3, dl=3)
    assert delver_reply(obs)["actions"] == [{"do": "up"}]
    obs = observation(rows=rows, at=(2, 2), monsters=[rat(3, 2)], hp=4, dl=3)
    assert delver_reply(obs)["actions"] == moves("e", 2)


def test_never_leaves_the_dungeon_from_level_one():
    rows = {**ROOM, 2: "|.<......'"}
    obs = observation(rows=rows, at=(2, 2), monsters=[rat(3, 2)], hp=4, dl=1)
    assert {"do": "up"} not in delver_reply(obs)["actions"]


def test_quaffs_healing_when_wounded_in_a_fight():
    pack = [*PACK, {"letter": "e", "name": "potion of healing", "kind": "potion"}]
    reply = delver_reply(observation(monsters=[rat(3, 2)], pack=pack, hp=5))
    assert reply["actions"][0] == {"do": "quaff", "item": "e"}


def test_tastes_unknown_potions_only_when_hurt_alone_and_unable_to_rest():
    # hungry with no food it cannot rest: below half its hit points it tries the potion
    pack = [*PACK[:2], {"letter": "e", "name": "murky potion", "kind": "potion"}]
    hurt = observation(pack=pack, hp=7, hunger="Hungry")
    assert delver_reply(hurt)["actions"] == [{"do": "quaff", "item": "e"}]
    healthy = delver_reply(observation(pack=pack, hp=8, hunger="Hungry"))
    assert {"do": "quaff", "item": "e"} not in healthy["actions"]
    fighting = delver_reply(observation(pack=pack, monsters=[rat(3, 2)], hp=7))
    assert {"do": "quaff", "item": "e"} not in fighting["actions"]


def test_gambles_on_an_unknown_potion_with_one_blow_left_and_no_way_out():
    pack = [*PACK, {"letter": "e", "name": "murky potion", "kind": "potion"}]
    closed = {**ROOM, 2: "|........|"}
    obs = observation(rows=closed, pack=pack, monsters=[rat(3, 2)], hp=3)
    assert delver_reply(obs)["actions"] == [{"do": "quaff", "item": "e"}]


def oracle(x, y):
    return {"x": x, "y": y, "glyph": "@", "name": "Oracle", "peaceful": True}


def test_asks_the_oracle_with_the_gold_and_no_stairs_known():
    obs = observation(monsters=[oracle(5, 2)], gold=60, dl=3)
    actions = delver_reply(obs)["actions"]
    assert actions == [{"do": "travel", "x": 4, "y": 2}, {"do": "chat", "dir": "e"}]


def test_does_not_ask_the_oracle_without_the_gold():
    obs = observation(monsters=[oracle(5, 2)], gold=49, dl=3)
    assert {"do": "chat", "dir": "e"} not in delver_reply(obs)["actions"]


def test_remembers_the_oracles_answer():
    obs = observation(dl=3)
    obs["messages"] = ["The Oracle takes 50 gold and says: The stairs down lie to the south-east."]
    assert Notes.read(delver_reply(obs)["notes"]).answer == "se"


def test_kicks_a_door_that_proved_locked():
    rows = {**ROOM, 2: "|........+"}
    bumped = Notes(level=1, bumped=(9, 2)).write()
    obs = observation(rows=rows, at=(8, 2), notes=bumped)
    obs["last_plan"]["interrupted"] = "move e failed: this door is locked"
    assert delver_reply(obs)["actions"] == [{"do": "kick", "dir": "e"}] * KICKS_PER_TURN


def test_gives_up_a_locked_door_while_weak():
    rows = {**ROOM, 2: "|........+"}
    bumped = Notes(level=1, bumped=(9, 2)).write()
    obs = observation(rows=rows, at=(8, 2), notes=bumped, hunger="Weak", pack=PACK[:2])
    obs["last_plan"]["interrupted"] = "move e failed: this door is locked"
    reply = delver_reply(obs)
    assert {"do": "kick", "dir": "e"} not in reply["actions"]
    assert Notes.read(reply["notes"]).given_up == [(9, 2)]


def test_waits_when_the_run_is_over():
    obs = observation()
    obs["run"]["state"] = "dead"
    assert delver_reply(obs)["actions"] == [{"do": "wait"}]


# -- notes -----------------------------------------------------------------------------


def test_notes_round_trip():
    notes = Notes(level=4, arrived=120, at=(3, 5), oracle=(7, 8), answer="sw", asked=1, sweep=2)
    notes.stand((10, 11))
    notes.given_up.append((9, 2))
    back = Notes.read(notes.write())
    assert back == notes and back.has_stood((10, 11)) and not back.has_stood((11, 10))


@pytest.mark.parametrize("text", [None, 5, "", "garbage", "L@ Vxx== Bq,1 Knan P1 Oup S- @9"])
def test_notes_that_do_not_read_are_forgotten_not_fatal(text):
    notes = Notes.read(text)
    assert notes.level == 0 and notes.given_up == []


@given(st.text(max_size=MAX_NOTES))
def test_any_echoed_notes_give_a_valid_reply(text):
    # after a fallback turn the notes are whatever the seat wrote
    reply = delver_reply(observation(notes=text, monsters=[rat(6, 3)]))
    assert 1 <= len(reply["actions"]) <= 10 and len(reply["notes"]) <= MAX_NOTES


@given(
    st.lists(
        st.sampled_from(
            [
                "L1",
                "A5",
                "@40,17",
                "@-3,99",
                "B9,2",
                "K3",
                "G47,0/0,17",
                "P60,60",
                "Oup",
                "Ose",
                "Q1",
                "S9",
                "Eabc",
                "Vxyz",
                "D1,1",
            ]
        ),
        max_size=12,
    )
)
def test_notes_tokens_in_any_order_give_a_valid_reply(tokens):
    reply = delver_reply(observation(notes=" ".join(tokens)))
    assert 1 <= len(reply["actions"]) <= 10


def test_notes_stay_within_400_runes():
    notes = Notes(level=9, given_up=[(x, y) for x in range(40, 48) for y in range(10, 18)])
    assert len(notes.write()) <= MAX_NOTES


def test_notes_of_another_level_are_dropped():
    old = Notes(level=2, oracle=(1, 1), answer="n").write()
    reply = delver_reply(observation(dl=3, notes=old))
    notes = Notes.read(reply["notes"])
    assert notes.level == 3 and notes.answer == "" and notes.oracle is None


def test_every_reply_is_valid_under_the_protocol():
    obs = observation()
    reply = delver_reply(obs)
    plan = plan_turn(reply, [row.replace("@", ".") for row in obs["map"]], (2, 2), set(), {"c"})
    assert plan.dropped == [] and plan.unreachable == [] and plan.over_cap == 0


# -- whole runs ------------------------------------------------------------------------


def test_run_delver_counts_the_primitives_that_ran():
    game = get_game("cogcrawl")
    state = game.new(3)
    executed = 0
    for _ in range(25):
        state = game.step(state, delver_reply(game.observe(state))).state
        executed += len(game.observe(state)["last_plan"]["executed"])
    run = run_delver(3, 25, game)
    assert (run.turns, run.primitives) == (25, executed)


def test_run_delver_is_deterministic():
    first, second = run_delver(7, 300), run_delver(7, 300)
    assert replace(first, seconds=0) == replace(second, seconds=0)


#: seat turns per run; every run over seeds 0-49 ends well inside this
SEAT_TURNS = 3000


@pytest.fixture(scope="module")
def fifty_runs():
    return [run_delver(seed, SEAT_TURNS) for seed in range(50)]


def test_delver_over_seeds_0_to_49(fifty_runs):
    # measured (benchmarks/strength_cogcrawl.py): 14 runs take the Cogheart, median
    # deepest level 10 (mean 8.92), 26 runs reach DL10; the rest die (8 of them starve)
    deepest = [run.deepest for run in fifty_runs]
    assert sum(run.cogheart for run in fifty_runs) >= 13
    assert statistics.median(deepest) >= 9
    assert sum(depth == 10 for depth in deepest) >= 24
    assert all(run.state != "playing" for run in fifty_runs)


def test_delver_replies_are_never_dropped():
    game = get_game("cogcrawl")
    for seed in range(5):
        state = game.new(seed)
        for _ in range(150):
            if game.is_over(state):
                break
            observation_ = game.observe(state)
            reply = delver_reply(observation_)
            assert len(reply["notes"]) <= MAX_NOTES and len(reply["actions"]) <= 10
            state = game.step(state, reply).state
            last_plan = game.observe(state)["last_plan"]
            assert last_plan["dropped"] == [] and last_plan["over_cap"] == 0
