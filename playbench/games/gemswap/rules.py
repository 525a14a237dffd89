"""Gem Swap rules: a new game, the legal actions, and a step as a chain of small steps.

A swap is: check it, move the gems (or fire the colour bomb), then repeat until the
board is still: find the lines, group them into matches, decide the specials they make,
set off every special caught in the clear (and every special those blasts hit), score
the step times its cascade number, clear, place the new specials, let gems fall and
refill from the state's generator. Then count the move, end the game after the last
one, and reshuffle a board with no legal swap.

A command the rules turn down raises a :class:`Refusal` (never a string in a union);
:func:`step` turns it into a refused :class:`Outcome` that costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playbench.core.errors import CommandError, OptionsError, PlaybenchError
from playbench.core.fields import options_object
from playbench.core.game import JSON, Action, Outcome
from playbench.core.rng import Rng, check_seed
from playbench.games.gemswap.board import (
    AREA_BOMB,
    CELL_NAMES,
    CELLS,
    COLOR_BOMB,
    COLOR_BOMB_TOKEN,
    COLOR_LETTERS,
    COLUMN_BLASTER,
    COLUMNS,
    HORIZONTAL,
    NEIGHBORS,
    NO_COLOR,
    PLAIN,
    ROW_BLASTER,
    ROWS,
    SIZE,
    SWAP_OF_NUMBER,
    collapse,
    color_counts,
    deal,
    find_runs,
    has_legal_swap,
    legal_swap_numbers,
    read_rows,
    reshuffle,
    rows_of,
    runs_through,
    swap_makes_line,
    swap_number,
    token,
)
from playbench.games.gemswap.commands import (
    HINT,
    MOVES,
    SELECT,
    SWAP,
    SWAP_TEXTS,
    Parsed,
    parse_action,
    swap_text,
)
from playbench.games.gemswap.state import MOVES_PER_GAME, GemState

OPTION_KEYS = ("board",)
POINTS_PER_GEM = 10
HINT_COST = 50
#: points for creating a special, by kind
CREATE_POINTS = {ROW_BLASTER: 50, COLUMN_BLASTER: 50, AREA_BOMB: 100, COLOR_BOMB: 200}
#: points for setting a special off, by kind
SET_OFF_POINTS = {ROW_BLASTER: 50, COLUMN_BLASTER: 50, AREA_BOMB: 80, COLOR_BOMB: 150}
#: points for two colour bombs swapped together (instead of 150 each)
DOUBLE_BOMB_POINTS = 500
#: a match of this many gems in one straight line makes a colour bomb
COLOR_BOMB_LINE = 5
#: a match of this many gems in one straight line makes a line blaster
BLASTER_LINE = 4
AREA_RADIUS = 1
#: the normal-form text of each swap by its number
_TEXT_OF_NUMBER = tuple(None if pair is None else SWAP_TEXTS[pair] for pair in SWAP_OF_NUMBER)


class Refusal(PlaybenchError):
    """A well-formed command the rules turn down now; it costs nothing."""


class GameOverError(Refusal):
    """Every command is refused once the 30th swap is played."""


class NoLineError(Refusal):
    """A swap that lines up no 3 gems and involves no colour bomb."""


class NothingSelectedError(Refusal):
    """``deselect`` with no cell selected."""


@dataclass(slots=True)
class Turn:
    """What one accepted command did: the new state, points and events."""

    state: GemState
    points: int = 0
    events: list[JSON] = field(default_factory=list)


# -- a new game ----------------------------------------------------------------------------
def new(seed: int, options: Mapping[str, Any] | None = None) -> GemState:
    """A fresh game: the seed's board, or the ``board`` option (reshuffled when it has no
    legal swap). Raises :class:`OptionsError` for a bad seed or options."""
    check_seed(seed)
    board = board_option(options)
    rng = Rng.from_seed(seed)
    if board is None:
        colors, kinds = deal(rng)
        return GemState(colors, kinds, rng)
    colors, kinds = board
    if not has_legal_swap(colors):
        colors, kinds = reshuffle(colors, kinds, rng)
    return GemState(colors, kinds, rng)


def board_option(options: Mapping[str, Any] | None) -> tuple[bytearray, bytearray] | None:
    """The gems of the ``board`` option, None without one. Raises :class:`OptionsError`
    for options the rules do not take."""
    options = options_object(options, OptionsError, "Gem Swap", OPTION_KEYS)
    if "board" not in options:
        return None
    try:
        return read_rows(options["board"])
    except ValueError as error:
        raise OptionsError(f"Gem Swap options: {error}") from None


# -- actions -------------------------------------------------------------------------------
def legal_actions(state: GemState) -> list[Action]:
    """Every legal swap in normal form and board order, then ``hint`` and ``moves``; none
    once the game is over."""
    if state.over:
        return []
    return [*swap_actions(state), {"command": HINT}, {"command": MOVES}]


def swap_actions(state: GemState) -> list[Action]:
    """Only the swap actions of :func:`legal_actions`, in the same order."""
    return [{"command": text} for text in map(_TEXT_OF_NUMBER.__getitem__, state.swap_numbers())]


def step(state: GemState, action: Action) -> Outcome[GemState]:
    """The outcome of a JSON action: a refusal (with its reason) for an action that does
    not parse or that the rules turn down; ``moves`` is a query, answered in its events."""
    try:
        command = parse_action(action)
        turn = apply(state, command)
    except (CommandError, Refusal) as error:
        return Outcome.refused(state, str(error))
    if command.verb == MOVES:
        return Outcome.answered(turn.state, turn.events)
    return Outcome(turn.state, True, turn.points, turn.events)


def score(state: GemState) -> int:
    return state.score


def is_over(state: GemState) -> bool:
    return state.over


def apply(state: GemState, command: Parsed) -> Turn:
    """The turn a parsed command makes. Raises a :class:`Refusal` saying why not."""
    if state.over:
        raise GameOverError(f"the game is over after {MOVES_PER_GAME} moves")
    verb = command.verb
    if verb == SWAP:
        return checked_swap(state, command.a, command.b)
    if verb == HINT:
        return _hint(state)
    if verb == MOVES:
        return Turn(state, 0, [{"type": "moves", "count": len(state.legal_swaps())}])
    if verb == SELECT:
        return _select(state, command.a)
    if state.selected is None:
        raise NothingSelectedError("nothing is selected")
    return Turn(state.but(selected=None), 0, [{"type": "deselect"}])


# -- checks ------------------------------------------------------------------------------
def check_swap(state: GemState, a: int, b: int) -> None:
    """Raise :class:`NoLineError` unless the swap of neighbours ``a < b`` is legal."""
    colors = state.colors
    if state.numbers is not None:
        legal = swap_number(a, b) in state.numbers
    else:
        legal = colors[a] == NO_COLOR or colors[b] == NO_COLOR or swap_makes_line(colors, a, b)
    if not legal:
        raise NoLineError(f"swapping {CELL_NAMES[a]} and {CELL_NAMES[b]} lines up no 3 gems")


def checked_swap(state: GemState, a: int, b: int) -> Turn:
    """The turn of the swap of neighbours ``a < b``, checked first."""
    check_swap(state, a, b)
    return play_swap(state, a, b)


# -- the swap ------------------------------------------------------------------------------
def play_swap(state: GemState, a: int, b: int) -> Turn:
    """Resolve an accepted swap (see :func:`check_swap`) into a new state."""
    colors = state.colors[:]
    kinds = state.kinds[:]
    rng = state.rng.copy()
    events: list[JSON] = [{"type": "swap", "cells": [CELL_NAMES[a], CELL_NAMES[b]]}]
    if colors[a] == NO_COLOR or colors[b] == NO_COLOR:
        cleared, fired, bonus = _color_bomb_swap(colors, a, b)
        points = _resolve_step(colors, kinds, rng, 1, cleared, [], fired, bonus, events)
    else:
        colors[a], colors[b] = colors[b], colors[a]
        kinds[a], kinds[b] = kinds[b], kinds[a]
        runs = runs_through(colors, (a, b))
        points = _resolve_matches(colors, kinds, rng, 1, runs, (a, b), events)
    points += _cascade(colors, kinds, rng, events)
    return _finish_move(state, colors, kinds, rng, points, events)


def _color_bomb_swap(colors: bytearray, a: int, b: int) -> tuple[set[int], list[int], int]:
    """Cells a colour bomb swap clears directly, the bombs it fires and their bonus."""
    if colors[a] == NO_COLOR and colors[b] == NO_COLOR:
        return set(range(CELLS)), [a, b], DOUBLE_BOMB_POINTS
    bomb, partner = (a, b) if colors[a] == NO_COLOR else (b, a)
    color = colors[partner]
    cleared = {cell for cell in range(CELLS) if colors[cell] == color}
    cleared.add(bomb)
    return cleared, [bomb], SET_OFF_POINTS[COLOR_BOMB]


def _cascade(colors: bytearray, kinds: bytearray, rng: Rng, events: list[JSON]) -> int:
    """Clear the lines the falling gems made, step after step, until the board is still.

    The board before the swap held no line, so every line found is one the move made.
    """
    points = 0
    step = 1
    runs = find_runs(colors)
    while runs:
        step += 1
        points += _resolve_matches(colors, kinds, rng, step, runs, (), events)
        runs = find_runs(colors)
    return points


def _resolve_matches(
    colors: bytearray,
    kinds: bytearray,
    rng: Rng,
    step: int,
    runs: list[tuple[int, tuple[int, ...]]],
    moved: tuple[int, ...],
    events: list[JSON],
) -> int:
    """Group the lines into matches, decide their specials, and resolve the step."""
    if len(runs) == 1 and len(runs[0][1]) < BLASTER_LINE:
        # the most common step by far: one line of 3, no special
        return _resolve_step(colors, kinds, rng, step, set(runs[0][1]), [], [], 0, events)
    cleared: set[int] = set()
    created: list[tuple[int, int, int]] = []
    for group in _group_runs(runs):
        cells = {cell for _, line in group for cell in line}
        cleared |= cells
        kind = _special_for(group)
        if kind is None:
            continue
        place = next((cell for cell in moved if cell in cells), None)
        if place is None:
            place = _fallback_place(group)
        color = NO_COLOR if kind == COLOR_BOMB else colors[place]
        created.append((place, color, kind))
    return _resolve_step(colors, kinds, rng, step, cleared, created, [], 0, events)


def _group_runs(
    runs: list[tuple[int, tuple[int, ...]]],
) -> list[list[tuple[int, tuple[int, ...]]]]:
    """Lines sharing a gem form one match (an L, T or +); others stand alone."""
    if len(runs) == 1:
        return [list(runs)]
    groups: list[list[tuple[int, tuple[int, ...]]]] = []
    for run in runs:
        cells = set(run[1])
        joined = [g for g in groups if any(cells.intersection(line) for _, line in g)]
        merged = [run]
        for group in joined:
            merged += group
            groups.remove(group)
        groups.append(merged)
    for group in groups:
        group.sort()
    return groups


def _special_for(group: list[tuple[int, tuple[int, ...]]]) -> int | None:
    if len(group) > 1:
        longest = max(len(line) for _, line in group)
        return COLOR_BOMB if longest >= COLOR_BOMB_LINE else AREA_BOMB
    orientation, line = group[0]
    if len(line) >= COLOR_BOMB_LINE:
        return COLOR_BOMB
    if len(line) == BLASTER_LINE:
        return ROW_BLASTER if orientation == HORIZONTAL else COLUMN_BLASTER
    return None


def _fallback_place(group: list[tuple[int, tuple[int, ...]]]) -> int:
    """Where a match no moved gem is part of puts its special.

    On the gem its lines share (the top-most, then left-most, when there are several);
    for a single line, on its middle gem (the left or upper of the two middle ones).
    """
    if len(group) > 1:
        across = {cell for o, line in group if o == HORIZONTAL for cell in line}
        return min(cell for o, line in group if o != HORIZONTAL for cell in line if cell in across)
    line = group[0][1]
    return line[(len(line) - 1) // 2]


def _resolve_step(
    colors: bytearray,
    kinds: bytearray,
    rng: Rng,
    step: int,
    cleared: set[int],
    created: list[tuple[int, int, int]],
    fired: list[int],
    bonus: int,
    events: list[JSON],
) -> int:
    """Set off the specials caught in ``cleared``, score, clear, place, collapse, and
    record the step as a cascade event (with the new gems that dropped in).

    ``fired`` are colour bombs already set off by the swap itself, worth ``bonus``.
    Returns the step's points, already multiplied by ``step``.
    """
    set_off: list[JSON] = []
    if kinds.count(PLAIN) != CELLS:
        bonus += _set_off(colors, kinds, cleared, fired, set_off)
    for _, _, kind in created:
        bonus += CREATE_POINTS[kind]
    points = (len(cleared) * POINTS_PER_GEM + bonus) * step
    holes = sorted(cleared)
    event: JSON = {
        "type": "cascade",
        "step": step,
        "cleared": list(map(CELL_NAMES.__getitem__, holes)),
        "created": [],
        "setOff": set_off,
        "points": points,
    }
    events.append(event)
    if created:
        event["created"] = [{"cell": CELL_NAMES[c], "gem": token(col, k)} for c, col, k in created]
        for cell, color, kind in created:
            colors[cell] = color
            kinds[cell] = kind
            holes.remove(cell)
    dropped = collapse(colors, kinds, holes, rng)
    event["dropped"] = [
        {"cell": CELL_NAMES[cell], "gem": COLOR_LETTERS[colors[cell]]} for cell in dropped
    ]
    return points


def _set_off(
    colors: bytearray, kinds: bytearray, cleared: set[int], fired: list[int], set_off: list[JSON]
) -> int:
    """Set off every special in ``cleared`` but the colour bombs ``fired`` already, in
    board order, then each special their blasts hit, in the order hit; add each to
    ``set_off`` (after the colour bombs ``fired``) and what it clears to ``cleared``.
    Returns the points for setting off the specials of the queue.

    A colour bomb caught in a blast clears the most common colour on the board as it
    stands before this step clears anything (the first in colour order on ties)."""
    set_off += [{"cell": CELL_NAMES[c], "gem": COLOR_BOMB_TOKEN} for c in fired]
    done = set(fired)
    queue = sorted(cell for cell in cleared if kinds[cell] != PLAIN and cell not in done)
    bonus = 0
    common = -1
    while queue:
        cell = queue.pop(0)
        if cell in done:
            continue
        done.add(cell)
        kind = kinds[cell]
        bonus += SET_OFF_POINTS[kind]
        set_off.append({"cell": CELL_NAMES[cell], "gem": token(colors[cell], kind)})
        if kind == COLOR_BOMB and common < 0:
            counts = color_counts(colors)
            common = counts.index(max(counts))
        hit = _blast(colors, cell, kind, common)
        for other in sorted(hit - cleared):
            cleared.add(other)
            if kinds[other] != PLAIN:
                queue.append(other)
    return bonus


def _blast(colors: bytearray, cell: int, kind: int, common: int) -> set[int]:
    """The cells a special at ``cell`` clears when it goes off."""
    row, col = divmod(cell, SIZE)
    if kind == ROW_BLASTER:
        return set(ROWS[row])
    if kind == COLUMN_BLASTER:
        return set(COLUMNS[col])
    if kind == AREA_BOMB:
        return {
            r * SIZE + c
            for r in range(max(0, row - AREA_RADIUS), min(SIZE, row + AREA_RADIUS + 1))
            for c in range(max(0, col - AREA_RADIUS), min(SIZE, col + AREA_RADIUS + 1))
        }
    return {other for other in range(CELLS) if colors[other] == common}


def _finish_move(
    state: GemState,
    colors: bytearray,
    kinds: bytearray,
    rng: Rng,
    points: int,
    events: list[JSON],
) -> Turn:
    """Count the move; end the game after the last one; reshuffle a stuck board."""
    moves_made = state.moves_made + 1
    score = state.score + points
    numbers: list[int] = []
    if moves_made >= MOVES_PER_GAME:
        events.append({"type": "gameOver", "score": score})
    else:
        numbers = legal_swap_numbers(colors)
        if not numbers:
            colors, kinds = reshuffle(colors, kinds, rng)
            numbers = legal_swap_numbers(colors)
            events.append({"type": "reshuffle", "board": rows_of(colors, kinds)})
    after = GemState(colors, kinds, rng, score, moves_made, None)
    after.numbers = numbers
    return Turn(after, points, events)


# -- hint and select ---------------------------------------------------------------------
def best_swap(state: GemState) -> tuple[str, int]:
    """The hint's answer: the legal swap that lines up the most gems (the first in the
    stable order on ties), as its text, and how many gems it lines up."""
    best, most = state.legal_swaps()[0], -1
    for pair in state.legal_swaps():
        gems = gems_lined_up(state, *pair)
        if gems > most:
            best, most = pair, gems
    return swap_text(*best), most


def _hint(state: GemState) -> Turn:
    """Name the board's best swap (:func:`best_swap`), in the events and, until the next
    swap, in the observation. It costs :data:`HINT_COST` whatever the score, so the score
    may go below 0."""
    swap, gems = best_swap(state)
    event = {"type": "hint", "swap": swap, "gems": gems, "cost": HINT_COST}
    after = state.but(selected=state.selected, score=state.score - HINT_COST, hinted=True)
    return Turn(after, -HINT_COST, [event])


def gems_lined_up(state: GemState, a: int, b: int) -> int:
    """How many gems the legal swap of ``a`` and ``b`` clears in its first step, before
    any special goes off: the gems of its lines, or what a colour bomb takes."""
    colors = state.colors
    if colors[a] == NO_COLOR or colors[b] == NO_COLOR:
        return len(_color_bomb_swap(colors, a, b)[0])
    work = colors[:]
    work[a], work[b] = work[b], work[a]
    runs = runs_through(work, (a, b))
    return len({cell for _, line in runs for cell in line})


def _select(state: GemState, cell: int) -> Turn:
    """Pick ``cell``; with a neighbour already picked, swap the two; picking the picked
    cell again drops it; picking a cell that is not a neighbour picks that one instead."""
    chosen = state.selected
    if chosen == cell:
        return Turn(state.but(selected=None), 0, [{"type": "deselect"}])
    if chosen is not None and cell in NEIGHBORS[chosen]:
        return checked_swap(state, min(chosen, cell), max(chosen, cell))
    return Turn(state.but(selected=cell), 0, [{"type": "select", "cell": CELL_NAMES[cell]}])
