"""The seat protocol: reading replies, every cap and drop rule, travel expansion."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.games.cogcrawl.glyphs import DIRECTIONS, HEIGHT, WALKABLE, WIDTH
from playbench.games.cogcrawl.protocol import (
    MACRO_PRIMITIVE_CAP,
    MAX_ACTIONS,
    MAX_NOTES,
    MAX_REPLY_BYTES,
    MAX_SAY,
    PRIMITIVE_VERBS,
    QUEUE_CAP,
    ParseFailure,
    Plan,
    Primitive,
    parse_raw,
    plan_turn,
    read_reply,
    travel_path,
)

# A small remembered level. Room A (x 0..6, y 0..4) with a closed door at (6, 2) onto a
# corridor and an open door at (3, 4) onto a corridor going south; a corridor bend at
# y 7..8; room B (x 0..4, y 10..14) with lava at (2, 12); a long corridor on y 16.
ROWS = {
    0: "-------",
    1: "|.....|",
    2: "|.....+##",
    3: "|.....|",
    4: "---'---",
    5: "   #",
    7: "##",
    8: " ##",
    10: "-----",
    11: "|...|",
    12: "|.}.|",
    13: "|...|",
    14: "-----",
    16: "#" * WIDTH,
}
MEMORY = [ROWS.get(y, "").ljust(WIDTH) for y in range(HEIGHT)]
PACK = {"a", "b", "c"}


def plan(reply, position=(1, 1), monsters=frozenset(), pack=PACK, memory=MEMORY):
    return plan_turn(reply, memory, position, set(monsters), set(pack))


def moves(*dirs):
    return [Primitive("move", dir=d) for d in dirs]


def only_dropped(action, **kwargs):
    """The reason the single ``action`` was dropped (asserting it was)."""
    result = plan({"actions": [action]}, **kwargs)
    assert result.primitives == []
    assert len(result.dropped) == 1
    assert result.dropped[0]["index"] == 0
    return result.dropped[0]


def test_memory_fixture_is_48_by_18():
    assert len(MEMORY) == HEIGHT and {len(row) for row in MEMORY} == {WIDTH}


# -- reading ---------------------------------------------------------------------------


def test_reply_object_is_taken_as_it_is():
    reply = {"actions": [{"do": "wait"}], "say": "hm"}
    assert read_reply(reply) is reply


def test_raw_reply_is_parsed():
    assert read_reply({"reply": '{"actions":[{"do":"wait"}]}'}) == {"actions": [{"do": "wait"}]}


def test_reply_key_beside_others_is_a_reply_object_with_an_unknown_key():
    reply = {"reply": "not json", "actions": []}
    assert read_reply(reply) is reply


def test_reply_key_must_hold_a_string():
    with pytest.raises(ParseFailure, match='"reply" must hold the raw reply text as a string'):
        read_reply({"reply": 5})


@pytest.mark.parametrize(
    ("action", "kind"),
    [([], "an array"), ("{}", "a string"), (3, "a number"), (None, "null"), (True, "a boolean")],
)
def test_action_that_is_not_an_object_fails_to_parse(action, kind):
    with pytest.raises(ParseFailure, match=f"a reply must be a JSON object, got {kind}"):
        read_reply(action)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (' {"actions":[]}', "must begin with '{'"),
        ('{"actions":[]}\n', "must end with '}'"),
        ('```json\n{"actions":[]}\n```', "must begin with '{'"),
        ('I will wait. {"actions":[]}', "must begin with '{'"),
        ("[1]", "must begin with '{'"),
        ("", "is empty"),
        ('{"a":1}{"b":2}', "more than one JSON value"),
        ('{"a":1} {"b":2}', "more than one JSON value"),
        ('{"a":NaN}', "NaN is not a JSON value"),
        ('{"a":1,}', "not one JSON object"),
        ("{'a':1}", "not one JSON object"),
    ],
)
def test_raw_text_that_is_not_exactly_one_object_fails(raw, reason):
    with pytest.raises(ParseFailure, match=reason.replace("{", r"\{").replace("}", r"\}")):
        read_reply({"reply": raw})


def padded(size, tail="}"):
    """A valid reply object of exactly ``size`` bytes (ASCII), optionally different at the end."""
    head = '{"say":"'
    body = "a" * (size - len(head) - 2)
    return head + body + '"' + tail


def test_reply_of_exactly_4096_bytes_is_read_whole():
    raw = padded(MAX_REPLY_BYTES)
    assert len(raw.encode()) == MAX_REPLY_BYTES
    assert read_reply({"reply": raw}) == {"say": "a" * (MAX_REPLY_BYTES - 10)}


def test_reply_longer_than_4096_bytes_is_cut_and_fails():
    raw = padded(MAX_REPLY_BYTES + 1)
    with pytest.raises(ParseFailure, match="first 4096 bytes read must end with"):
        read_reply({"reply": raw})


def test_bytes_past_4096_are_never_read():
    raw = padded(MAX_REPLY_BYTES) + " and then some prose"
    assert read_reply({"reply": raw}) == {"say": "a" * (MAX_REPLY_BYTES - 10)}


def test_multibyte_rune_split_by_the_4096_byte_cut_fails():
    # "é" is 2 bytes; its first byte is the 4096th
    raw = '{"say":"' + "a" * (MAX_REPLY_BYTES - 9) + "é" + '"}'
    assert len(raw.encode()) == MAX_REPLY_BYTES + 3
    with pytest.raises(ParseFailure, match="4096-byte cut splits a character"):
        read_reply({"reply": raw})


def test_multibyte_runes_count_as_bytes_toward_the_cap():
    inside = '{"say":"' + "é" * ((MAX_REPLY_BYTES - 10) // 2) + '"}'
    assert len(inside.encode()) == MAX_REPLY_BYTES
    assert read_reply({"reply": inside})["say"] == "é" * ((MAX_REPLY_BYTES - 10) // 2)
    over = '{"say":"' + "é" * ((MAX_REPLY_BYTES - 8) // 2) + '"}'
    assert len(over) < MAX_REPLY_BYTES < len(over.encode())
    with pytest.raises(ParseFailure):
        read_reply({"reply": over})


def test_bytes_that_are_not_utf8_fail():
    with pytest.raises(ParseFailure, match="the bytes are not UTF-8"):
        parse_raw(b'{"say":"\xff"}')


def test_lone_surrogate_fails():
    with pytest.raises(ParseFailure, match="lone surrogate"):
        read_reply({"reply": '{"say":"\ud800"}'})


def test_deep_nesting_fails_without_crashing():
    depth = (MAX_REPLY_BYTES - 8) // 2
    raw = '{"a":' + "[" * depth + "]" * depth + "}"
    assert len(raw.encode()) <= MAX_REPLY_BYTES
    with pytest.raises(ParseFailure):
        read_reply({"reply": raw})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.text(max_size=5000))
def test_read_reply_raises_only_parse_failure_on_any_text(text):
    try:
        assert isinstance(read_reply({"reply": text}), dict)
    except ParseFailure as failure:
        assert str(failure)


@given(st.binary(max_size=5000))
def test_parse_raw_raises_only_parse_failure_on_any_bytes(data):
    try:
        assert isinstance(parse_raw(data), dict)
    except ParseFailure as failure:
        assert str(failure)


@given(st.text(alphabet='{}[]":,0123456789truefalsn \\é', max_size=300).map(lambda t: "{" + t))
def test_read_reply_raises_only_parse_failure_on_near_json(text):
    for raw in (text, text + "}"):
        with contextlib.suppress(ParseFailure):
            assert isinstance(read_reply({"reply": raw}), dict)


@given(json_values)
def test_read_reply_raises_only_parse_failure_on_any_json_value(value):
    try:
        assert read_reply(value) is value or isinstance(value, dict)
    except ParseFailure:
        assert not isinstance(value, dict) or set(value) == {"reply"}


def test_parsed_raw_reply_round_trips_through_json():
    reply = {"actions": [{"do": "travel", "x": 5, "y": 6}], "say": "ünïcode ✓", "notes": ""}
    assert read_reply({"reply": json.dumps(reply, ensure_ascii=False)}) == reply


# -- caps and drops --------------------------------------------------------------------


def test_absent_actions_is_a_usable_empty_reply():
    assert plan({}) == Plan()


def test_empty_and_null_actions_are_usable():
    assert plan({"actions": []}) == Plan()
    assert plan({"actions": None}) == Plan()


def test_actions_that_is_not_an_array_is_reported():
    result = plan({"actions": {"do": "wait"}})
    assert result.primitives == []
    assert result.dropped == [
        {"index": None, "do": None, "reason": "actions must be an array, got an object"}
    ]


def test_entries_past_ten_are_dropped_and_counted():
    result = plan({"actions": [{"do": "wait"}] * MAX_ACTIONS + [{"do": "search"}] * 3})
    assert result.primitives == [Primitive("wait")] * MAX_ACTIONS
    assert result.over_cap == 3
    assert result.dropped == []


def test_ten_entries_are_all_kept():
    result = plan({"actions": [{"do": "search"}] * MAX_ACTIONS})
    assert len(result.primitives) == MAX_ACTIONS and result.over_cap == 0


def test_entries_past_ten_are_not_validated():
    result = plan({"actions": [{"do": "wait"}] * MAX_ACTIONS + ["junk"]})
    assert result.dropped == [] and result.over_cap == 1


def test_entry_that_is_not_an_object_is_dropped():
    assert only_dropped("wait") == {
        "index": 0,
        "do": None,
        "reason": "an action must be an object, got a string",
    }


def test_missing_do_is_dropped():
    assert only_dropped({"dir": "n"})["reason"] == "missing do"


def test_non_string_do_is_dropped():
    assert only_dropped({"do": 7})["reason"] == "do must be a string, got a number"


def test_do_longer_than_eight_runes_is_dropped():
    dropped = only_dropped({"do": "searching"})
    assert dropped["reason"] == "do is 9 runes, more than 8"
    assert dropped["do"] == "searchin"


def test_do_of_eight_runes_passes_the_length_check():
    assert only_dropped({"do": "moveMOVE"})["reason"] == "unknown verb 'moveMOVE'"


def test_do_length_counts_runes_not_bytes():
    # 5 runes, 10 bytes: within the 8-rune cap, so it fails as an unknown verb
    assert only_dropped({"do": "ééééé"})["reason"] == "unknown verb 'ééééé'"


def test_do_is_lower_cased_before_matching():
    result = plan({"actions": [{"do": "SeArCh"}, {"do": "MOVE", "dir": "e"}]})
    assert result.primitives == [Primitive("search"), Primitive("move", dir="e")]


def test_unknown_verb_is_dropped():
    assert only_dropped({"do": "fly"}) == {"index": 0, "do": "fly", "reason": "unknown verb 'fly'"}


@pytest.mark.parametrize("verb", ["move", "kick", "chat"])
def test_dir_is_required(verb):
    assert only_dropped({"do": verb})["reason"] == f"{verb} needs dir"


def test_non_string_dir_is_dropped():
    assert only_dropped({"do": "move", "dir": 1})["reason"] == "dir must be a string, got a number"


def test_dir_longer_than_two_runes_is_dropped():
    assert only_dropped({"do": "move", "dir": "nne"})["reason"] == "dir is 3 runes, more than 2"


@pytest.mark.parametrize("direction", ["x", "up", "N ", "", "nn", "é"])
def test_dir_outside_the_eight_is_dropped(direction):
    reason = only_dropped({"do": "kick", "dir": direction})["reason"]
    assert reason == f"dir {direction!r} is not one of n s e w ne nw se sw"


@pytest.mark.parametrize(("given", "kept"), [("NE", "ne"), ("Sw", "sw"), ("N", "n")])
def test_dir_is_case_insensitive(given, kept):
    result = plan({"actions": [{"do": "chat", "dir": given}]})
    assert result.primitives == [Primitive("chat", dir=kept)]


def test_dir_on_a_verb_without_one_is_ignored():
    assert plan({"actions": [{"do": "search", "dir": "zz"}]}).primitives == [Primitive("search")]


@pytest.mark.parametrize("axis", ["x", "y"])
def test_travel_needs_both_coordinates(axis):
    action = {"do": "travel", "x": 3, "y": 3}
    del action[axis]
    assert only_dropped(action)["reason"] == f"travel needs {axis}"


@pytest.mark.parametrize(
    ("value", "kind"),
    [(3.0, "a number"), (True, "a boolean"), ("3", "a string"), (None, "null"), ([3], "an array")],
)
def test_travel_coordinate_must_be_an_integer(value, kind):
    reason = only_dropped({"do": "travel", "x": value, "y": 3})["reason"]
    assert reason == f"x must be an integer, got {kind}"


def test_travel_coordinates_are_clamped():
    # x 999 clamps to 47 on the long corridor; y -3 clamps to 0, where (5, 0) is a wall
    result = plan({"actions": [{"do": "travel", "x": 999, "y": 16}]}, position=(40, 16))
    assert result.primitives == moves(*["e"] * 7)
    result = plan({"actions": [{"do": "travel", "x": -9, "y": 16}]}, position=(20, 16))
    assert result.primitives == moves(*["w"] * 20)
    result = plan({"actions": [{"do": "travel", "x": 5, "y": -3}]}, position=(5, 3))
    assert result.primitives == moves("n", "n")


def test_unreachable_reports_clamped_coordinates():
    result = plan({"actions": [{"do": "wait"}, {"do": "travel", "x": 60, "y": -1}]})
    assert result.unreachable == [{"index": 1, "x": 47, "y": 0}]
    assert result.primitives == [Primitive("wait")]
    assert result.dropped == []


@pytest.mark.parametrize("verb", ["eat", "quaff", "wield", "wear"])
def test_item_is_required(verb):
    assert only_dropped({"do": verb})["reason"] == f"{verb} needs item"


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (1, "item must be a string, got a number"),
        ("ab", "item must be exactly one rune, got 2"),
        ("", "item must be exactly one rune, got 0"),
        ("A", "item 'A' is not a letter a..z"),
        ("é", "item 'é' is not a letter a..z"),
        ("1", "item '1' is not a letter a..z"),
        ("z", "no item 'z' in the pack"),
    ],
)
def test_bad_item_is_dropped(item, reason):
    assert only_dropped({"do": "eat", "item": item})["reason"] == reason


def test_item_in_the_pack_is_kept():
    result = plan({"actions": [{"do": "quaff", "item": "b"}, {"do": "WEAR", "item": "c"}]})
    assert result.primitives == [Primitive("quaff", item="b"), Primitive("wear", item="c")]


def test_item_on_a_verb_without_one_is_ignored():
    assert plan({"actions": [{"do": "pickup", "item": "q"}]}).primitives == [Primitive("pickup")]


def test_unknown_keys_are_ignored():
    reply = {"actions": [{"do": "move", "dir": "e", "speed": 9}], "mood": "bold", "say": "go"}
    result = plan(reply)
    assert result.primitives == [Primitive("move", dir="e")]
    assert result.dropped == [] and result.say == "go"


def test_invalid_entries_are_dropped_never_rewritten():
    reply = {
        "actions": [
            {"do": "move", "dir": "e"},
            {"do": "travel", "x": 4.5, "y": 3},
            {"do": "move", "dir": "north"},
            {"do": "eat", "item": "q"},
            {"do": "search"},
        ]
    }
    result = plan(reply)
    assert result.primitives == [Primitive("move", dir="e"), Primitive("search")]
    assert [d["index"] for d in result.dropped] == [1, 2, 3]
    assert [d["do"] for d in result.dropped] == ["travel", "move", "eat"]


def test_every_verb_makes_its_primitive():
    reply = {
        "actions": [
            {"do": "down"},
            {"do": "up"},
            {"do": "pickup"},
            {"do": "wield", "item": "a"},
            {"do": "kick", "dir": "w"},
            {"do": "search"},
            {"do": "wait"},
        ]
    }
    assert [p.to_json() for p in plan(reply).primitives] == [
        {"do": "down"},
        {"do": "up"},
        {"do": "pickup"},
        {"do": "wield", "item": "a"},
        {"do": "kick", "dir": "w"},
        {"do": "search"},
        {"do": "wait"},
    ]


# -- say and notes ---------------------------------------------------------------------


def test_say_is_cut_to_140_runes():
    assert plan({"say": "x" * 200}).say == "x" * MAX_SAY
    assert plan({"say": "x" * MAX_SAY}).say == "x" * MAX_SAY


def test_notes_are_cut_to_400_runes():
    assert plan({"notes": "n" * 401}).notes == "n" * MAX_NOTES


def test_say_and_notes_are_cut_on_rune_boundaries():
    # 2-byte, 3-byte and 4-byte runes each count as one
    assert plan({"say": "é" * 150}).say == "é" * MAX_SAY
    assert plan({"say": "a" * 139 + "✓✓"}).say == "a" * 139 + "✓"
    assert plan({"notes": "🗝" * 500}).notes == "🗝" * MAX_NOTES


@pytest.mark.parametrize("value", [5, None, ["a"], {"t": 1}, True])
def test_non_string_say_and_notes_count_as_absent(value):
    result = plan({"say": value, "notes": value})
    assert result.say == "" and result.notes == ""


# -- travel ----------------------------------------------------------------------------


def test_travel_in_a_lit_room_takes_a_shortest_path():
    assert travel_path(MEMORY, (1, 1), (3, 1), set()) == ["e", "e"]
    assert travel_path(MEMORY, (1, 1), (3, 3), set()) == ["se", "se"]


def test_travel_to_where_the_cog_stands_is_empty_not_unreachable():
    result = plan({"actions": [{"do": "travel", "x": 2, "y": 2}]}, position=(2, 2))
    assert result.primitives == [] and result.unreachable == []


def test_travel_to_an_unseen_cell_is_unreachable():
    assert travel_path(MEMORY, (1, 1), (20, 5), set()) is None


def test_travel_never_paths_through_unseen_cells():
    # the corridor bend (0..2, 7..8) is cut off from room A by unseen cells
    assert travel_path(MEMORY, (3, 5), (0, 7), set()) is None


def test_travel_never_paths_through_a_closed_door():
    assert travel_path(MEMORY, (1, 2), (8, 2), set()) is None


def test_travel_to_a_closed_door_stops_orthogonally_next_to_it():
    assert travel_path(MEMORY, (1, 2), (6, 2), set()) == ["e"] * 4
    # diagonally next to the door is not next enough: one more step to face it
    assert travel_path(MEMORY, (5, 1), (6, 2), set()) == ["s"]
    assert travel_path(MEMORY, (5, 2), (6, 2), set()) == []


def test_travel_to_a_wall_stops_next_to_it():
    assert travel_path(MEMORY, (3, 2), (0, 2), set()) == ["w", "w"]


def test_travel_passes_open_doors_orthogonally_only():
    # into the doorway at (3, 4) from (2, 3) would be one diagonal step; it takes two
    assert travel_path(MEMORY, (2, 3), (3, 5), set()) == ["e", "s", "s"]
    assert travel_path(MEMORY, (3, 5), (2, 3), set()) == ["n", "n", "w"]


def test_travel_never_cuts_a_corridor_corner():
    assert travel_path(MEMORY, (0, 7), (2, 8), set()) == ["e", "s", "e"]


def test_travel_never_enters_lava():
    # the lava at (2, 12) also forbids the diagonals beside it
    assert travel_path(MEMORY, (1, 12), (3, 12), set()) == ["n", "e", "e", "s"]


def test_travel_to_lava_stops_next_to_it():
    assert travel_path(MEMORY, (1, 11), (2, 12), set()) == []
    assert travel_path(MEMORY, (3, 13), (2, 12), set()) == []
    assert travel_path(MEMORY, (1, 12), (3, 12), {(1, 11)}) == ["s", "e", "e", "n"]


def test_travel_avoids_visible_monsters():
    assert travel_path(MEMORY, (1, 12), (3, 12), {(2, 11)}) == ["s", "e", "e", "n"]
    assert travel_path(MEMORY, (0, 16), (5, 16), {(3, 16)}) is None


def test_travel_to_a_monster_stops_next_to_it():
    assert travel_path(MEMORY, (1, 13), (3, 13), {(3, 13)}) == ["e"]


def test_travel_path_is_the_whole_path_and_the_plan_keeps_forty_moves():
    assert travel_path(MEMORY, (0, 16), (47, 16), set()) == ["e"] * 47
    assert travel_path(MEMORY, (7, 16), (47, 16), set()) == ["e"] * 40
    result = plan({"actions": [{"do": "travel", "x": 47, "y": 16}]}, position=(0, 16))
    assert len(result.primitives) == MACRO_PRIMITIVE_CAP == 40


def test_travel_off_the_map_is_unreachable():
    assert travel_path(MEMORY, (0, 16), (48, 16), set()) is None


def test_queue_is_cut_at_forty_and_the_surplus_counted():
    result = plan(
        {"actions": [{"do": "travel", "x": 47, "y": 16}, {"do": "travel", "x": 0, "y": 16}]},
        position=(0, 16),
    )
    # the first travel keeps 40 of its 47 moves (7 cut); the second's 40 are all past the
    # queue's 40
    assert result.primitives == moves(*["e"] * QUEUE_CAP)
    assert QUEUE_CAP == 40 and result.truncated == 7 + 40
    result = plan(
        {"actions": [{"do": "travel", "x": 47, "y": 16}, {"do": "wait"}]}, position=(0, 16)
    )
    assert len(result.primitives) == QUEUE_CAP and result.truncated == 7 + 1


def test_travel_starts_where_the_moves_before_it_leave_the_cog():
    reply = {"actions": [{"do": "move", "dir": "e"}, {"do": "travel", "x": 5, "y": 16}]}
    assert plan(reply, position=(0, 16)).primitives == moves("e", "e", "e", "e", "e")
    travel_twice = {
        "actions": [{"do": "travel", "x": 3, "y": 16}, {"do": "travel", "x": 1, "y": 16}]
    }
    assert plan(travel_twice, position=(0, 16)).primitives == moves("e", "e", "e", "w", "w")


def test_moves_that_would_not_move_do_not_shift_the_next_travel():
    # into the wall, into the closed door, into a visible monster: the cog stays put
    reply = {
        "actions": [
            {"do": "move", "dir": "n"},
            {"do": "move", "dir": "e"},
            {"do": "move", "dir": "s"},
            {"do": "travel", "x": 3, "y": 2},
        ]
    }
    result = plan(reply, position=(5, 2), monsters={(5, 3)})
    assert result.primitives == moves("n", "e", "s", "w", "w")


def test_each_travel_move_carries_the_cell_it_leaves_from():
    reply = {"actions": [{"do": "move", "dir": "e"}, {"do": "travel", "x": 4, "y": 16}]}
    primitives = plan(reply, position=(0, 16)).primitives
    assert [p.origin for p in primitives] == [None, (1, 16), (2, 16), (3, 16)]


def test_travel_after_a_move_into_the_dark_starts_there():
    reply = {"actions": [{"do": "move", "dir": "s"}, {"do": "travel", "x": 3, "y": 4}]}
    assert plan(reply, position=(3, 5)).primitives == moves("s", "n", "n")


def test_travel_after_a_level_change_is_unreachable():
    reply = {"actions": [{"do": "down"}, {"do": "travel", "x": 3, "y": 1}]}
    result = plan(reply)
    assert result.primitives == [Primitive("down")]
    assert result.unreachable == [{"index": 1, "x": 3, "y": 1}]


# -- properties ------------------------------------------------------------------------

action_entries = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"do": st.sampled_from([*PRIMITIVE_VERBS, "travel", "TRAVEL", "Move", "x", ""])},
        optional={
            "dir": st.sampled_from([*DIRECTIONS, "NE", "x", "", 3, None]),
            "x": st.one_of(st.integers(-5, 60), st.floats(), st.booleans()),
            "y": st.one_of(st.integers(-5, 30), st.floats(), st.booleans()),
            "item": st.sampled_from(["a", "b", "c", "d", "A", "", "ab", 1]),
        },
    ),
)
replies = st.fixed_dictionaries(
    {},
    optional={
        "actions": st.one_of(st.lists(action_entries, max_size=14), json_values),
        "say": json_values,
        "notes": json_values,
    },
)
cells = st.tuples(st.integers(0, WIDTH - 1), st.integers(0, HEIGHT - 1))


@given(replies, cells, st.sets(cells, max_size=6))
def test_plan_turn_never_raises_and_keeps_every_cap(reply, position, monsters):
    result = plan_turn(reply, MEMORY, position, monsters, PACK)
    assert len(result.primitives) <= QUEUE_CAP
    assert len(result.say) <= MAX_SAY and len(result.notes) <= MAX_NOTES
    for primitive in result.primitives:
        assert primitive.verb in PRIMITIVE_VERBS
        assert primitive.dir is None or primitive.dir in DIRECTIONS
        assert primitive.item is None or primitive.item in PACK
    actions = reply.get("actions")
    if isinstance(actions, list):
        assert result.over_cap == max(0, len(actions) - MAX_ACTIONS)


@given(json_values.filter(lambda v: isinstance(v, dict)), cells)
def test_plan_turn_never_raises_on_any_object(reply, position):
    plan_turn(reply, MEMORY, position, set(), PACK)


random_maps = st.lists(
    st.text(alphabet=" .#|-+'<>}$%", min_size=WIDTH, max_size=WIDTH),
    min_size=HEIGHT,
    max_size=HEIGHT,
)


@given(random_maps, cells, cells, st.sets(cells, max_size=10))
def test_travel_paths_follow_the_rules(memory, start, target, monsters):
    path = travel_path(memory, start, target, monsters)
    if path is None:
        return
    assert len(path) <= MACRO_PRIMITIVE_CAP
    x, y = start
    for direction in path:
        dx, dy = DIRECTIONS[direction]
        if dx and dy:
            assert memory[y][x] not in "'+" and memory[y + dy][x + dx] not in "'+"
            assert memory[y][x + dx] in WALKABLE and memory[y + dy][x] in WALKABLE
        x, y = x + dx, y + dy
        assert memory[y][x] in WALKABLE and (x, y) not in monsters
    if len(path) < MACRO_PRIMITIVE_CAP:
        tx, ty = target
        assert (x, y) == target or max(abs(x - tx), abs(y - ty)) == 1


# -- seed fidelity: object replies are capped too, a travel cut is reported --------------


def compact_size(reply):
    return len(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode())


def object_of(size, rune="a"):
    """A reply object whose compact JSON is exactly ``size`` bytes (``rune`` of 1 or 2 bytes)."""
    reply = {"actions": [{"do": "search"}], "notes": ""}
    room = size - compact_size(reply)
    width = len(rune.encode())
    reply["notes"] = rune * (room // width) + "a" * (room % width)
    assert compact_size(reply) == size
    return reply


def test_an_object_reply_of_4096_bytes_of_compact_json_is_read():
    reply = object_of(4096)
    assert read_reply(reply) is reply
    assert read_reply(object_of(4096, "é")) is not None


@pytest.mark.parametrize("rune", ["a", "é"])
def test_an_object_reply_over_4096_bytes_of_compact_json_is_a_parse_failure(rune):
    with pytest.raises(ParseFailure, match="4097 bytes as compact JSON, more than 4096"):
        read_reply(object_of(4097, rune))


def test_a_reply_that_is_no_json_object_is_a_parse_failure():
    for value in ([{"do": "search"}], "search", 5, None, True):
        with pytest.raises(ParseFailure, match="a reply must be a JSON object"):
            read_reply(value)


def test_a_travel_cut_at_forty_moves_reports_the_cut_in_truncated():
    # 47 moves east along the corridor on y 16: 40 are queued and 7 reported cut
    result = plan({"actions": [{"do": "travel", "x": 47, "y": 16}]}, position=(0, 16))
    assert result.primitives == moves(*["e"] * 40)
    assert result.truncated == 7
    assert plan({"actions": [{"do": "travel", "x": 40, "y": 16}]}, position=(0, 16)).truncated == 0
