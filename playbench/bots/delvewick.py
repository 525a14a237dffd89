"""Delvewick solver and baseline bot.

``goals`` is a breadth-first search over real game states (every node is produced by the
rules' own ``step``, so every path it returns is playable) to the nearest states that bank
a gem, clear the level or win. Two ways of merging states keep it small: ``coarse``
merges states with the same mole cell and the same objects in motion (a fast travel
search), ``fine`` merges states that differ only in which soil was dug.
``solve_level`` chains such searches, coarse first, with backtracking over the nearest
few goals until the level is cleared within its oil; ``next_action`` is the baseline
bot: the first action towards the nearest goal, or a harmless fallback.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable

from playbench.games.delvewick import rules
from playbench.games.delvewick.levels import EMPTY, SOIL, SOLUTION_LETTERS
from playbench.games.delvewick.state import PLAYING, WON, State

#: one letter per action, in the order of ``SOLUTION_LETTERS``
ACTIONS = (
    {"type": "move", "dir": "up"},
    {"type": "move", "dir": "down"},
    {"type": "move", "dir": "left"},
    {"type": "move", "dir": "right"},
    {"type": "wait"},
)
WAIT_INDEX = 4
DEFAULT_NODES = 40_000
DEFAULT_BRANCHES = 3
_SOIL_AS_EMPTY = bytes.maketrans(bytes([SOIL]), bytes([EMPTY]))


def action_of(letter: str) -> dict:
    return dict(ACTIONS[SOLUTION_LETTERS.index(letter)])


def play(state: State, letters: str) -> State:
    """Play a compact solution; raises ValueError on the first refused letter."""
    for n, letter in enumerate(letters):
        outcome = rules.step(state, action_of(letter))
        if not outcome.ok:
            raise ValueError(f"letter {n} ({letter}) refused: {outcome.reason}")
        state = outcome.state
    return state


def _progress(before: State, after: State) -> bool:
    return after.status == WON or after.level is not before.level or after.gems > before.gems


def coarse(state: State) -> tuple:
    return (state.pos, state.active)


def fine(state: State) -> bytes:
    return bytes(state.board).translate(_SOIL_AS_EMPTY)


def goals(
    state: State,
    limit: int,
    max_nodes: int = DEFAULT_NODES,
    key: Callable[[State], Hashable] = fine,
) -> list[tuple[str, State]]:
    """The ``limit`` nearest distinct states that make progress, as (letters, state)."""
    seen = {key(state)}
    queue: deque[tuple[str, State]] = deque([("", state)])
    found: list[tuple[str, State]] = []
    nodes = 0
    while queue and nodes < max_nodes:
        path, node = queue.popleft()
        for index, action in enumerate(ACTIONS):
            outcome = rules.step(node, action)
            if not outcome.ok:
                continue
            nodes += 1
            child = outcome.state
            letters = path + SOLUTION_LETTERS[index]
            if _progress(node, child):
                found.append((letters, child))
                if len(found) >= limit:
                    return found
                continue
            if child.status != PLAYING:
                continue
            mark = key(child)
            if mark in seen:
                continue
            seen.add(mark)
            queue.append((letters, child))
    return found


def solve_level(
    state: State, branches: int = DEFAULT_BRANCHES, max_nodes: int = DEFAULT_NODES
) -> str | None:
    """Letters that clear the current level from ``state`` (or win), else None."""
    start = state.level

    def search(node: State, path: str) -> str | None:
        if node.status == WON or node.level is not start:
            return path
        tried = set()
        for key in (coarse, fine):
            for letters, child in goals(node, branches, max_nodes, key):
                if child.status not in (PLAYING, WON) or letters in tried:
                    continue
                tried.add(letters)
                found = search(child, path + letters)
                if found is not None:
                    return found
        return None

    return search(state, "")


def next_action(state: State) -> dict:
    """Baseline bot: head for the nearest gem (or the open exit); else a harmless action."""
    found = goals(state, 1, key=coarse) or goals(state, 1)
    if found:
        return action_of(found[0][0][0])
    safe = []
    for action in ACTIONS:
        outcome = rules.step(state, action)
        if outcome.ok and outcome.state.status == PLAYING:
            safe.append(action)
    return dict(safe[0] if safe else ACTIONS[WAIT_INDEX])
