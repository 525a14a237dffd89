"""Invariants of Gem Swap under random play and random boards."""

import json
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from playbench.core import Rng, canonical_json
from playbench.games.gemswap import board as gems
from playbench.games.gemswap import rules
from tests.games.gemswap.boards import GAME

seeds = st.integers(min_value=0, max_value=2**63 - 1)
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=35)
ADJACENT_PAIRS = [
    (cell, other)
    for cell in range(gems.CELLS)
    for other in (cell + 1, cell + gems.SIZE)
    if other < gems.CELLS and (other == cell + gems.SIZE or cell % gems.SIZE < gems.SIZE - 1)
]


def run(seed: int, picks: list[int]):
    """States of a game that plays ``picks`` as indexes into the legal actions."""
    state = GAME.new(seed)
    states = [state]
    for pick in picks:
        actions = GAME.legal_actions(state)
        if not actions:
            break
        outcome = GAME.step(state, actions[pick % len(actions)])
        assert outcome.ok, outcome.reason
        state = outcome.state
        states.append(state)
    return states


def lines(state) -> list:
    return gems.find_runs(state.colors)


@given(seeds, choices)
def test_same_seed_and_actions_give_the_same_states(seed, picks):
    first = [GAME.fingerprint(s) for s in run(seed, picks)]
    second = [GAME.fingerprint(s) for s in run(seed, picks)]
    assert first == second


@given(seeds, choices)
def test_the_board_is_8x8_still_and_playable_between_moves(seed, picks):
    for state in run(seed, picks):
        board = GAME.observe(state)["board"]
        assert len(board) == 8 and all(len(row) == 8 for row in board)
        assert all(gems.parse_token(gem) is not None for row in board for gem in row)
        assert lines(state) == []
        if not GAME.is_over(state):
            assert gems.has_legal_swap(state.colors)


@given(seeds, choices)
def test_legal_actions_agree_with_step(seed, picks):
    state = run(seed, picks)[-1]
    legal = GAME.legal_actions(state)
    if GAME.is_over(state):
        assert legal == []
        assert not any(
            GAME.step(state, {"command": f"swap {gems.CELL_NAMES[a]} {gems.CELL_NAMES[b]}"}).ok
            for a, b in ADJACENT_PAIRS
        )
        return
    assert legal[-2:] == [{"command": "hint"}, {"command": "moves"}]
    legal_swaps = [a["command"] for a in legal[:-2]]
    accepted = []
    for a, b in ADJACENT_PAIRS:
        outcome = GAME.step(state, {"command": f"swap {gems.CELL_NAMES[a]} {gems.CELL_NAMES[b]}"})
        if outcome.ok:
            accepted.append(outcome.events[0]["cells"])
            assert GAME.observe(outcome.state)["movesMade"] == state.moves_made + 1
        else:
            assert outcome.state is state and outcome.reason
    assert [GAME.parse_command(f"swap {a} {b}")["command"] for a, b in accepted] == legal_swaps
    assert GAME.step(state, {"command": "moves"}).events[0]["count"] == len(legal_swaps)


@given(seeds, choices)
def test_json_round_trip_through_text(seed, picks):
    for state in run(seed, picks):
        data = GAME.to_json(state)
        again = GAME.from_json(json.loads(json.dumps(data)))
        assert canonical_json(GAME.to_json(again)) == canonical_json(data)
        assert GAME.observe(again) == GAME.observe(state)
        assert GAME.legal_actions(again) == GAME.legal_actions(state)


@given(seeds, choices)
def test_score_is_the_sum_of_rewards_and_each_hint_costs_50(seed, picks):
    state = GAME.new(seed)
    total = 0
    chooser = Rng.from_seed(seed, 1)
    for pick in picks:
        if GAME.is_over(state):
            break
        actions = GAME.legal_actions(state)
        action = actions[pick % len(actions)] if chooser.chance(3, 4) else {"command": "hint"}
        outcome = GAME.step(state, action)
        total += outcome.reward
        state = outcome.state
        assert GAME.score(state) == total
        cascade_points = sum(e["points"] for e in outcome.events if e["type"] == "cascade")
        hints = [e for e in outcome.events if e["type"] == "hint"]
        assert all(e["cost"] == 50 for e in hints)
        assert outcome.reward == cascade_points - 50 * len(hints)


@given(seeds, st.integers(min_value=4, max_value=7), st.integers(min_value=0, max_value=8))
def test_a_reshuffle_keeps_the_gems_and_leaves_a_legal_swap(seed, colors, specials):
    draw = Rng.from_seed(seed, 2)
    color_array = bytearray(draw.below(colors) for _ in range(gems.CELLS))
    kind_array = bytearray(gems.CELLS)
    for cell in range(specials):
        kind_array[cell] = draw.choice([gems.ROW_BLASTER, gems.COLUMN_BLASTER, gems.AREA_BOMB])
    before = Counter(zip(color_array, kind_array, strict=True))
    new_colors, new_kinds = gems.reshuffle(color_array, kind_array, Rng.from_seed(seed))
    assert Counter(zip(new_colors, new_kinds, strict=True)) == before
    assert gems.find_runs(new_colors) == []
    assert gems.has_legal_swap(new_colors)


def test_gems_that_cannot_be_laid_out_are_dealt_anew():
    one_color = bytearray(gems.CELLS)
    new_colors, new_kinds = gems.reshuffle(one_color, bytearray(gems.CELLS), Rng.from_seed(5))
    assert gems.find_runs(new_colors) == []
    assert gems.has_legal_swap(new_colors)
    assert new_kinds == bytearray(gems.CELLS)


@given(seeds)
def test_a_new_board_has_no_line_and_a_legal_swap(seed):
    state = GAME.new(seed)
    assert lines(state) == []
    assert any(a["command"].startswith("swap") for a in GAME.legal_actions(state))
    assert GAME.score(state) == 0 and GAME.observe(state)["movesLeft"] == 30


def brute_force_swaps(colors: bytearray) -> list[tuple[int, int]]:
    """Legal swaps by trying every neighbour pair on a copy of the board."""
    return [
        (a, b)
        for a, b in ADJACENT_PAIRS
        if gems.NO_COLOR in (colors[a], colors[b]) or gems.swap_makes_line(colors, a, b)
    ]


@given(seeds, st.integers(min_value=3, max_value=7), st.integers(min_value=0, max_value=3))
def test_legal_swaps_equal_trying_every_pair(seed, colors, bombs):
    draw = Rng.from_seed(seed, 3)
    board = bytearray(gems.CELLS)
    for cell in range(gems.CELLS):
        board[cell] = draw.below(colors)
        while gems.makes_line(board, cell):
            board[cell] = draw.below(colors)
    for _ in range(bombs):
        board[draw.below(gems.CELLS)] = gems.NO_COLOR
    assert gems.legal_swaps(board) == brute_force_swaps(board)
    assert gems.has_legal_swap(board) == bool(brute_force_swaps(board))


def rebuild(before: list[list[str]], events: list[dict]) -> list[list[str]]:
    """The board a client draws from the board before a swap and the swap's events alone:
    swap the two gems, then for each step clear, place the new specials, let the gems
    fall straight down and put the dropped gems in; take a reshuffle's layout as given."""
    grid = [list(row) for row in before]

    def at(name: str) -> tuple[int, int]:
        return int(name[1:]) - 1, "ABCDEFGH".index(name[0])

    (r1, c1), (r2, c2) = (at(name) for name in events[0]["cells"])
    grid[r1][c1], grid[r2][c2] = grid[r2][c2], grid[r1][c1]
    for event in events[1:]:
        if event["type"] == "reshuffle":
            grid = [list(row) for row in event["board"]]
        if event["type"] != "cascade":
            continue
        for name in event["cleared"]:
            r, c = at(name)
            grid[r][c] = None
        for made in event["created"]:
            r, c = at(made["cell"])
            grid[r][c] = made["gem"]
        for c in range(8):
            kept = [grid[r][c] for r in range(8) if grid[r][c] is not None]
            column = [None] * (8 - len(kept)) + kept
            for r in range(8):
                grid[r][c] = column[r]
        for drop in event["dropped"]:
            r, c = at(drop["cell"])
            assert grid[r][c] is None
            grid[r][c] = drop["gem"]
        assert all(gem is not None for row in grid for gem in row)
    return grid


@given(seeds, choices)
def test_the_events_are_enough_to_redraw_every_swap(seed, picks):
    state = GAME.new(seed)
    for pick in picks:
        if GAME.is_over(state):
            break
        swaps = rules.swap_actions(state)
        outcome = GAME.step(state, swaps[pick % len(swaps)])
        after = GAME.observe(outcome.state)["board"]
        assert rebuild(GAME.observe(state)["board"], outcome.events) == after
        state = outcome.state


CREATE_POINTS = {"-": 50, "|": 50, "+": 100, "@": 200}
SET_OFF_POINTS = {"-": 50, "|": 50, "+": 80, "@": 150}


def special_kind(gem: str) -> str:
    return gem[-1]


@given(seeds, choices)
def test_each_step_scores_its_gems_and_specials_times_its_number(seed, picks):
    state = GAME.new(seed)
    for pick in picks:
        if GAME.is_over(state):
            break
        swaps = rules.swap_actions(state)
        outcome = GAME.step(state, swaps[pick % len(swaps)])
        swapped = outcome.events[0]["cells"]
        for event in outcome.events[1:]:
            if event["type"] != "cascade":
                continue
            off = event["setOff"]
            both_bombs = [x["gem"] for x in off[:2]] == ["@", "@"]
            if event["step"] == 1 and both_bombs and [x["cell"] for x in off[:2]] == swapped:
                bonus = 500 + sum(SET_OFF_POINTS[special_kind(x["gem"])] for x in off[2:])
            else:
                bonus = sum(SET_OFF_POINTS[special_kind(x["gem"])] for x in off)
            bonus += sum(CREATE_POINTS[special_kind(x["gem"])] for x in event["created"])
            assert event["points"] == (10 * len(event["cleared"]) + bonus) * event["step"]
        state = outcome.state


def naive_runs(colors) -> list:
    """Lines of 3+ found cell by cell: rows first, then columns."""
    found = []
    for orientation, lines in ((gems.HORIZONTAL, gems.ROWS), (gems.VERTICAL, gems.COLUMNS)):
        for line in lines:
            start = 0
            while start < gems.SIZE:
                end = start
                while end < gems.SIZE and colors[line[end]] == colors[line[start]]:
                    end += 1
                if end - start >= 3 and colors[line[start]] < gems.NUM_COLORS:
                    found.append((orientation, line[start:end]))
                start = end
    return found


@given(
    st.lists(
        st.sampled_from([0, 1, 2, gems.NO_COLOR, gems.EMPTY]), min_size=gems.CELLS, max_size=64
    )
)
def test_find_runs_equals_a_cell_by_cell_scan(cells):
    colors = bytearray(cells)
    assert gems.find_runs(colors) == naive_runs(colors)
