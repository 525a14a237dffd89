"""The engine against a plain reference written from the rules, cell by cell.

The reference below shares no code with the engine but the generator and the cell names:
it finds lines by walking rows and columns, tries every neighbour pair for the legal
swaps, and resolves a swap one step at a time (lines, matches, specials, blasts, score,
clear, fall, refill, reshuffle). The engine's swaps, events, boards, generator, legal
swaps and hints must equal it exactly, on boards from random play and on random boards
sown with specials and colour bombs.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.rng import Rng
from playbench.games.gemswap import rules
from playbench.games.gemswap.board import legal_swaps
from playbench.games.gemswap.state import GemState
from tests.games.gemswap.boards import GAME

N = 8
CELLS = 64
COLORS = 7
LETTERS = "RGBYPOW"
BOMB_COLOR = 7
PLAIN, ROW_BLAST, COLUMN_BLAST, AREA, BOMB = range(5)
SUFFIX = {PLAIN: "", ROW_BLAST: "-", COLUMN_BLAST: "|", AREA: "+"}
NAMES = [f"{'ABCDEFGH'[i % N]}{i // N + 1}" for i in range(CELLS)]
MADE = {ROW_BLAST: 50, COLUMN_BLAST: 50, AREA: 100, BOMB: 200}
FIRED = {ROW_BLAST: 50, COLUMN_BLAST: 50, AREA: 80, BOMB: 150}
PAIRS = [
    (cell, other)
    for cell in range(CELLS)
    for other in (cell + 1, cell + N)
    if other < CELLS and (other == cell + N or cell % N != N - 1)
]


def gem(color: int, kind: int) -> str:
    return "@" if kind == BOMB else LETTERS[color] + SUFFIX[kind]


def lines_of(colors: list[int]) -> list[tuple[str, list[int]]]:
    """Every line of 3+: rows top to bottom (each left to right), then columns left to
    right (each top to bottom)."""
    found = []
    for way, lanes in (
        ("row", [[r * N + c for c in range(N)] for r in range(N)]),
        ("column", [[r * N + c for r in range(N)] for c in range(N)]),
    ):
        for lane in lanes:
            i = 0
            while i < N:
                j = i
                while j + 1 < N and colors[lane[j + 1]] == colors[lane[i]]:
                    j += 1
                if j - i >= 2 and colors[lane[i]] < COLORS:
                    found.append((way, lane[i : j + 1]))
                i = j + 1
    return found


def legal_pairs(colors: list[int]) -> list[tuple[int, int]]:
    """Every neighbour pair that involves a colour bomb or lines up 3 once swapped."""
    legal = []
    for a, b in PAIRS:
        if BOMB_COLOR in (colors[a], colors[b]):
            legal.append((a, b))
            continue
        after = list(colors)
        after[a], after[b] = after[b], after[a]
        if lines_of(after):
            legal.append((a, b))
    return legal


def matches_of(lines: list[tuple[str, list[int]]]) -> list[list[tuple[str, list[int]]]]:
    """Lines sharing a gem join into one match; a match comes where its last line was
    found, its lines sorted."""
    owner = list(range(len(lines)))

    def root(i: int) -> int:
        while owner[i] != i:
            i = owner[i]
        return i

    for i, (_, first) in enumerate(lines):
        for j in range(i):
            if set(first) & set(lines[j][1]):
                owner[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(lines)):
        groups.setdefault(root(i), []).append(i)
    ordered = sorted(groups.values(), key=max)
    order = {"row": 0, "column": 1}
    return [
        sorted(((lines[i][0], lines[i][1]) for i in g), key=lambda x: (order[x[0]], x[1]))
        for g in ordered
    ]


def special_of(match: list[tuple[str, list[int]]]) -> int | None:
    longest = max(len(line) for _, line in match)
    if len(match) > 1:
        return BOMB if longest >= 5 else AREA
    if longest >= 5:
        return BOMB
    if longest == 4:
        return ROW_BLAST if match[0][0] == "row" else COLUMN_BLAST
    return None


def place_of(match: list[tuple[str, list[int]]], moved: tuple[int, ...]) -> int:
    cells = {c for _, line in match for c in line}
    for cell in moved:
        if cell in cells:
            return cell
    if len(match) == 1:
        line = match[0][1]
        return line[(len(line) - 1) // 2]
    across = {c for way, line in match if way == "row" for c in line}
    down = {c for way, line in match if way == "column" for c in line}
    return min(across & down)


def blast(colors: list[int], cell: int, kind: int, common: int) -> set[int]:
    row, col = divmod(cell, N)
    if kind == ROW_BLAST:
        return {row * N + c for c in range(N)}
    if kind == COLUMN_BLAST:
        return {r * N + col for r in range(N)}
    if kind == AREA:
        return {
            r * N + c
            for r in range(row - 1, row + 2)
            for c in range(col - 1, col + 2)
            if 0 <= r < N and 0 <= c < N
        }
    return {c for c in range(CELLS) if colors[c] == common}


class Board:
    """A board the reference resolves, as plain lists."""

    def __init__(self, colors, kinds, rng: Rng) -> None:
        self.colors = list(colors)
        self.kinds = list(kinds)
        self.rng = rng

    def step(
        self,
        number: int,
        cleared: set[int],
        made: list[tuple[int, int, int]],
        fired: list[int],
        bonus: int,
    ) -> dict:
        colors, kinds = self.colors, self.kinds
        set_off = [{"cell": NAMES[c], "gem": "@"} for c in fired]
        done = set(fired)
        queue = sorted(c for c in cleared if kinds[c] != PLAIN and c not in done)
        common = None
        while queue:
            cell = queue.pop(0)
            if cell in done:
                continue
            done.add(cell)
            bonus += FIRED[kinds[cell]]
            set_off.append({"cell": NAMES[cell], "gem": gem(colors[cell], kinds[cell])})
            if kinds[cell] == BOMB and common is None:
                counts = [colors.count(color) for color in range(COLORS)]
                common = counts.index(max(counts))
            for other in sorted(blast(colors, cell, kinds[cell], common) - cleared):
                cleared.add(other)
                if kinds[other] != PLAIN:
                    queue.append(other)
        bonus += sum(MADE[kind] for _, _, kind in made)
        points = (10 * len(cleared) + bonus) * number
        event = {
            "type": "cascade",
            "step": number,
            "cleared": [NAMES[c] for c in sorted(cleared)],
            "created": [{"cell": NAMES[c], "gem": gem(col, k)} for c, col, k in made],
            "setOff": set_off,
            "points": points,
        }
        for cell in cleared:
            colors[cell], kinds[cell] = None, PLAIN
        for cell, color, kind in made:
            colors[cell], kinds[cell] = color, kind
        dropped = []
        for col in range(N):
            column = [(colors[r * N + col], kinds[r * N + col]) for r in range(N)]
            kept = [x for x in column if x[0] is not None]
            holes = N - len(kept)
            fresh = [(self.rng.below(COLORS), PLAIN) for _ in range(holes)]
            column = list(reversed(fresh)) + kept
            for r in range(N):
                colors[r * N + col], kinds[r * N + col] = column[r]
            dropped += [(r * N + col, fresh[holes - 1 - r][0]) for r in reversed(range(holes))]
        event["dropped"] = [{"cell": NAMES[c], "gem": LETTERS[color]} for c, color in dropped]
        return event

    def matched(self, number: int, lines, moved: tuple[int, ...]) -> dict:
        cleared: set[int] = set()
        made = []
        for match in matches_of(lines):
            cleared |= {c for _, line in match for c in line}
            kind = special_of(match)
            if kind is not None:
                place = place_of(match, moved)
                made.append((place, BOMB_COLOR if kind == BOMB else self.colors[place], kind))
        return self.step(number, cleared, made, [], 0)


def makes_line_here(colors: list[int], cell: int) -> bool:
    row, col = divmod(cell, N)
    color = colors[cell]
    if color >= COLORS:
        return False
    left = col >= 2 and colors[cell - 1] == colors[cell - 2] == color
    up = row >= 2 and colors[cell - N] == colors[cell - 2 * N] == color
    return left or up


def reference_reshuffle(colors, kinds, rng: Rng) -> tuple[list[int], list[int]]:
    gems = list(zip(colors, kinds, strict=True))
    for _ in range(200):
        for i in range(CELLS - 1, 0, -1):
            j = rng.below(i + 1)
            gems[i], gems[j] = gems[j], gems[i]
        laid: list[int] = [0] * CELLS
        ok = True
        for cell in range(CELLS):
            for pick in range(cell, CELLS):
                laid[cell] = gems[pick][0]
                if not makes_line_here(laid, cell):
                    gems[cell], gems[pick] = gems[pick], gems[cell]
                    break
            else:
                ok = False
                break
        if ok and legal_pairs(laid):
            return laid, [k for _, k in gems]
    while True:
        dealt: list[int] = [0] * CELLS
        for cell in range(CELLS):
            dealt[cell] = rng.below(COLORS)
            while makes_line_here(dealt, cell):
                dealt[cell] = rng.below(COLORS)
        if legal_pairs(dealt):
            return dealt, [PLAIN] * CELLS


def reference_swap(colors, kinds, rng_state: int, moves_made: int, a: int, b: int):
    """The events, points, board, generator state and legal swaps after a legal swap."""
    board = Board(colors, kinds, Rng(rng_state))
    events = [{"type": "swap", "cells": [NAMES[a], NAMES[b]]}]
    cs = board.colors
    if BOMB_COLOR in (cs[a], cs[b]):
        if cs[a] == cs[b] == BOMB_COLOR:
            cleared, fired, bonus = set(range(CELLS)), [a, b], 500
        else:
            bomb, other = (a, b) if cs[a] == BOMB_COLOR else (b, a)
            cleared = {c for c in range(CELLS) if cs[c] == cs[other]} | {bomb}
            fired, bonus = [bomb], 150
        events.append(board.step(1, cleared, [], fired, bonus))
    else:
        cs[a], cs[b] = cs[b], cs[a]
        board.kinds[a], board.kinds[b] = board.kinds[b], board.kinds[a]
        events.append(board.matched(1, lines_of(cs), (a, b)))
    number = 1
    while lines := lines_of(board.colors):
        number += 1
        events.append(board.matched(number, lines, ()))
    points = sum(e["points"] for e in events[1:])
    legal: list[tuple[int, int]] = []
    if moves_made + 1 >= 30:
        events.append({"type": "gameOver", "score": None})
    else:
        legal = legal_pairs(board.colors)
        if not legal:
            board.colors, board.kinds = reference_reshuffle(board.colors, board.kinds, board.rng)
            legal = legal_pairs(board.colors)
            rows = [
                [gem(board.colors[r * N + c], board.kinds[r * N + c]) for c in range(N)]
                for r in range(N)
            ]
            events.append({"type": "reshuffle", "board": rows})
    return events, points, board, legal


def reference_hint(colors, legal: list[tuple[int, int]]) -> tuple[tuple[int, int], int]:
    best, most = legal[0], -1
    for a, b in legal:
        if colors[a] == colors[b] == BOMB_COLOR:
            count = CELLS
        elif BOMB_COLOR in (colors[a], colors[b]):
            other = b if colors[a] == BOMB_COLOR else a
            count = sum(1 for c in range(CELLS) if colors[c] == colors[other]) + 1
        else:
            after = list(colors)
            after[a], after[b] = after[b], after[a]
            count = len({c for _, line in lines_of(after) for c in line})
        if count > most:
            best, most = (a, b), count
    return best, most


def check_state(state: GemState) -> list[list[dict]]:
    """Every legal swap of ``state`` and its hint, the engine against the reference.
    Returns each swap's events."""
    colors, kinds = list(state.colors), list(state.kinds)
    legal = legal_pairs(colors)
    assert state.legal_swaps() == legal
    fresh = GemState(
        state.colors[:], state.kinds[:], state.rng.copy(), state.score, state.moves_made
    )
    assert legal_swaps(fresh.colors) == legal
    if not legal:
        return []
    (a, b), most = reference_hint(colors, legal)
    hint = rules.apply(fresh, rules.parse_action({"command": "hint"})).events
    assert hint == [{"type": "hint", "swap": rules.swap_text(a, b), "gems": most, "cost": 50}]
    played = []
    for a, b in legal:
        turn = rules.play_swap(fresh, a, b)
        played.append(turn.events)
        events, points, board, after_legal = reference_swap(
            colors, kinds, state.rng.state, state.moves_made, a, b
        )
        if events[-1]["type"] == "gameOver":
            events[-1]["score"] = state.score + points
        assert json.dumps(turn.events) == json.dumps(events)
        assert turn.points == points
        assert list(turn.state.colors) == board.colors
        assert list(turn.state.kinds) == board.kinds
        assert turn.state.rng.state == board.rng.state
        assert turn.state.legal_swaps() == after_legal
        assert turn.state.moves_made == state.moves_made + 1
        assert state.colors == bytearray(colors) and state.kinds == bytearray(kinds)
    return played


seeds = st.integers(min_value=0, max_value=2**63 - 1)


def played(seed: int, moves: int) -> GemState:
    chooser = Rng.from_seed(seed, 7)
    state = GAME.new(seed)
    for _ in range(moves):
        state = GAME.step(state, chooser.choice(rules.swap_actions(state))).state
    return state


@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(min_value=0, max_value=29))
def test_every_swap_of_a_played_board_equals_the_reference(seed, moves):
    check_state(played(seed, moves))


@pytest.mark.parametrize(("seed", "moves"), [(1, 16), (5, 14), (8, 7), (9, 26)])
def test_swaps_that_leave_no_legal_swap_reshuffle_as_the_reference_does(seed, moves):
    events = check_state(played(seed, moves))
    assert any(swap[-1]["type"] == "reshuffle" for swap in events)


def sown_board(draw: Rng, palette: int, specials: int, bombs: int):
    """A random board of ``palette`` colours with no line, then specials and colour bombs
    put on random cells (each keeps the colour of the gem it replaces)."""
    colors = [0] * CELLS
    for cell in range(CELLS):
        colors[cell] = draw.below(palette)
        while makes_line_here(colors, cell):
            colors[cell] = draw.below(palette)
    kinds = [PLAIN] * CELLS
    for _ in range(specials):
        kinds[draw.below(CELLS)] = draw.choice([ROW_BLAST, COLUMN_BLAST, AREA])
    for _ in range(bombs):
        cell = draw.below(CELLS)
        colors[cell], kinds[cell] = BOMB_COLOR, BOMB
    return colors, kinds


@settings(max_examples=40, deadline=None)
@given(
    seeds,
    st.integers(min_value=3, max_value=7),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=29),
)
def test_every_swap_of_a_sown_board_equals_the_reference(seed, palette, specials, bombs, moves):
    draw = Rng.from_seed(seed, 8)
    colors, kinds = sown_board(draw, palette, specials, bombs)
    state = GemState(bytearray(colors), bytearray(kinds), Rng(draw.next_u64()), 120, moves)
    check_state(state)


@settings(max_examples=200, deadline=None)
@given(seeds, st.integers(min_value=3, max_value=7), st.integers(min_value=0, max_value=4))
def test_legal_swaps_equal_every_pair_tried(seed, palette, bombs):
    draw = Rng.from_seed(seed, 9)
    colors, _ = sown_board(draw, palette, 0, bombs)
    assert legal_swaps(bytearray(colors)) == legal_pairs(colors)
