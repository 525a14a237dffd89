"""Delvewick solvers and the bot.

Delvewick has no hidden information and no randomness: the observation rebuilds the
whole state, so stepping real states to look ahead is what any player could do on paper.

``beam_solve`` is the strong solver that found the shipped solutions: a beam search over
real states, one layer per tick, that keeps per layer the ``width`` states with the best
points banked (plus a small pull towards the nearest gem, or towards the open exit),
merging states that differ only in which soil was dug. It returns the clear worth the
most points (gems, chains, cracks, the clear bonus and the oil left).

``goals`` is a breadth-first search over real game states (every node is produced by the
rules' own ``step``, so every path it returns is playable) to the nearest states that bank
a gem, clear the level or win. Two ways of merging states keep it small: ``coarse``
merges states with the same mole cell and the same objects in motion (a fast travel
search), ``fine`` merges states that differ only in which soil was dug.
``solve_level`` chains such searches, coarse first, with backtracking over the nearest
few goals until the level is cleared within its oil (fast, but far from the best clear);
``next_action`` is the baseline bot: the first action towards the nearest goal, or a
harmless fallback.

``make_bot(seed)`` is the bot of the pinned interface (see :class:`DelvewickBot`).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from heapq import nlargest

from playbench.core.errors import StateError
from playbench.core.game import JSON, Action
from playbench.core.rng import check_seed
from playbench.games.delvewick import rules
from playbench.games.delvewick.levels import EMPTY, LEVELS, SOIL, SOLUTION_LETTERS
from playbench.games.delvewick.state import PLAYING, WON, State, from_json
from playbench.games.delvewick.view import observe

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
#: states kept per tick by the beam search that found the shipped solutions
BEAM_WIDTH = 2000
#: points per cell of distance to the nearest gem or geode, while the exit is closed
GEM_PULL = 2
#: ticks of the breadth-first searches of :func:`splice` (0: no splicing)
SPLICE_DEPTH = 8
#: states stepped at most by each of those searches
SPLICE_NODES = 20_000
#: the beam is run again from every this many ticks of the best path (0: never)
RESTART_EVERY = 6
#: the gem pull of those runs
RESTART_PULL = 3
#: every gem and geode glyph, at rest and falling
_GEM_PATTERN = re.compile(rb"[*vGg]")


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


def _children(node: State, path: str) -> Iterator[tuple[str, State]]:
    """Each accepted action from ``node``: the letters that reach it after ``path``, and
    the state it leads to."""
    for index, action in enumerate(ACTIONS):
        outcome = rules.step(node, action)
        if outcome.ok:
            yield path + SOLUTION_LETTERS[index], outcome.state


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
        for letters, child in _children(node, path):
            nodes += 1
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


@dataclass(frozen=True, slots=True)
class Clear:
    """A way to clear the current level: its letters and the points it banks."""

    letters: str
    points: int


def beam_solve(
    state: State,
    width: int = BEAM_WIDTH,
    pull: int = GEM_PULL,
    depth: int = SPLICE_DEPTH,
    every: int = RESTART_EVERY,
) -> Clear | None:
    """The best clear of the current level from ``state`` that a beam search finds,
    improved by :func:`splice` with searches of ``depth`` ticks, then by
    :func:`restart` from every ``every`` ticks of its path (0 skips either pass).
    """
    best = _beam(state, width, pull)
    if best is None:
        return None
    if depth > 0:
        best = splice(state, best, depth)
    if every > 0:
        best = restart(state, best, every, width, depth)
    return best


def restart(
    state: State, clear: Clear, every: int, width: int = BEAM_WIDTH, depth: int = SPLICE_DEPTH
) -> Clear:
    """The best of ``clear`` and of the clears that keep its first ``t`` letters, for
    every ``t`` a multiple of ``every`` (short of its last 4 ticks), and go on with the
    beam search (pull :data:`RESTART_PULL`, then :func:`splice`) from the state there."""
    best = clear
    letters = clear.letters
    node = state
    for tick, letter in enumerate(letters[: len(letters) - 4]):
        if tick and tick % every == 0:
            tail = _beam(node, width, RESTART_PULL)
            if tail is not None and depth > 0:
                tail = splice(node, tail, depth)
            if tail is not None:
                points = clear_points(state, letters[:tick] + tail.letters)
                if points is not None and points > best.points:
                    best = Clear(letters[:tick] + tail.letters, points)
        node = rules.step(node, action_of(letter)).state
    return best


def _beam(state: State, width: int, pull: int) -> Clear | None:
    """The beam search of :func:`beam_solve`.

    One layer per tick: every state of the layer is stepped with all five actions; a
    child that clears the level (or wins) is a candidate, scored by the points it banked
    since ``state``; the other live children are merged by :func:`beam_key` (the one with
    more points stays, also against earlier layers) and the ``width`` best by
    :func:`beam_value` form the next layer. None when no clear is found within the oil.
    """
    level = state.level
    start = state.score
    beam: list[tuple[State, str]] = [(state, "")]
    best: Clear | None = None
    seen: dict[Hashable, int] = {}
    for _ in range(state.oil):
        layer: dict[Hashable, tuple[State, str]] = {}
        for node, path in beam:
            for index, action in enumerate(ACTIONS):
                outcome = rules.step(node, action)
                if not outcome.ok:
                    continue
                child = outcome.state
                letters = path + SOLUTION_LETTERS[index]
                if child.status == WON or child.level is not level:
                    points = child.score - start
                    if best is None or points > best.points:
                        best = Clear(letters, points)
                    continue
                if child.status != PLAYING:
                    continue
                mark = beam_key(child)
                if seen.get(mark, -1) >= child.score:
                    continue
                seen[mark] = child.score
                layer[mark] = (child, letters)
        if not layer:
            break
        beam = nlargest(width, layer.values(), key=lambda item: beam_value(item[0], pull))
    return best


def clear_points(state: State, letters: str) -> int | None:
    """The points ``letters`` bank from ``state`` when they clear its level (or win)
    with the last letter and not before, else None."""
    level = state.level
    node = state
    for letter in letters:
        if node.status != PLAYING or node.level is not level:
            return None
        outcome = rules.step(node, action_of(letter))
        if not outcome.ok:
            return None
        node = outcome.state
    if node.status == WON or node.level is not level:
        return node.score - state.score
    return None


def splice(
    state: State, clear: Clear, depth: int = SPLICE_DEPTH, max_nodes: int = SPLICE_NODES
) -> Clear:
    """A clear at least as good as ``clear``, its path improved piece by piece.

    From each state on the path, in order, a breadth-first search of at most ``depth``
    ticks (and ``max_nodes`` stepped states) looks for a short cut: a state with the
    :func:`beam_key` of a later state of the path, reached in fewer ticks or with more
    points, or a clear of the level. The first cut whose whole clear, played again from
    ``state``, banks more points replaces the clear, and the pass starts over; it ends
    when no search finds a better clear.
    """
    while True:
        better = _short_cut(state, clear, depth, max_nodes)
        if better is None:
            return clear
        clear = better


def _short_cut(state: State, clear: Clear, depth: int, max_nodes: int) -> Clear | None:
    """The first better clear one search of :func:`splice` finds, else None."""
    letters = clear.letters
    path = [state]
    for letter in letters[:-1]:
        path.append(rules.step(path[-1], action_of(letter)).state)
    later: dict[Hashable, list[int]] = {}
    for tick, node in enumerate(path):
        later.setdefault(beam_key(node), []).append(tick)
    for tick, start in enumerate(path):
        for cut, child in _cuts(start, depth, max_nodes):
            if child.status == PLAYING and child.level is start.level:
                ahead = len(cut) + tick
                spliced = [
                    letters[:tick] + cut + letters[end:]
                    for end in later.get(beam_key(child), ())
                    if end > ahead or (end == ahead and child.score > path[end].score)
                ]
            else:
                spliced = [letters[:tick] + cut]
            for candidate in spliced:
                points = clear_points(state, candidate)
                if points is not None and points > clear.points:
                    return Clear(candidate, points)
    return None


def _cuts(start: State, depth: int, max_nodes: int) -> Iterator[tuple[str, State]]:
    """Breadth-first from ``start``: (letters, state) of each new state within ``depth``
    ticks, merged by :func:`beam_key` (more points stay), and of each clear or win."""
    level = start.level
    seen = {beam_key(start): start.score}
    queue: deque[tuple[str, State]] = deque([("", start)])
    nodes = 0
    while queue and nodes < max_nodes:
        path, node = queue.popleft()
        if len(path) >= depth:
            continue
        for letters, child in _children(node, path):
            nodes += 1
            if child.status != PLAYING or child.level is not level:
                if child.status == WON or child.level is not level:
                    yield letters, child
                continue
            mark = beam_key(child)
            if seen.get(mark, -1) >= child.score:
                continue
            seen[mark] = child.score
            yield letters, child
            queue.append((letters, child))


def beam_key(state: State) -> Hashable:
    """What the future of a state depends on, but for which soil was dug: the board
    (soil read as empty), the objects in motion, the gems and the live chain."""
    age = min(state.tick - state.last_gem, rules.CHAIN_WINDOW + 1) if state.chain else 0
    board = bytes(state.board).translate(_SOIL_AS_EMPTY)
    return (board, state.active, state.gems, state.chain, age)


def beam_value(state: State, pull: int = GEM_PULL) -> int:
    """Points banked, plus the clear bonus less the walk to the exit once it is open,
    else less ``pull`` per cell to the nearest gem or geode (all states of one layer
    have the same oil, so it does not count)."""
    width = state.level.width
    row, col = divmod(state.pos, width)
    if state.exit_open:
        exit_row, exit_col = divmod(state.level.exit, width)
        walk = abs(exit_row - row) + abs(exit_col - col)
        return state.score + rules.CLEAR_POINTS - rules.OIL_POINTS * walk
    nearest = 0
    for found in _GEM_PATTERN.finditer(state.board):
        gem_row, gem_col = divmod(found.start(), width)
        distance = abs(gem_row - row) + abs(gem_col - col)
        if not nearest or distance < nearest:
            nearest = distance
    return state.score - pull * nearest


# -- the bot of the pinned interface ---------------------------------------------------
#: the beam width of a plan made during play (a clear in about a second or two)
REPLAN_WIDTH = 200
#: glyphs of a board in play mapped to the layout glyphs of a level built from it
_AS_LAYOUT = bytes.maketrans(b"ovgE", b"O*GX")


def state_from_observation(observation: JSON, last_gem: int | None = None) -> State:
    """The state an observation shows. Nothing is hidden but the tick of the last gem
    (it only matters while a chain is live): give it when known, else the chain is
    assumed to have the least time left that its being live allows.

    A shipped level is recognised by its number, name and bedrock; any other board is
    read as a custom level built from the board itself.
    """
    tick = observation["tick"]
    if last_gem is None:
        last_gem = max(0, tick - rules.CHAIN_WINDOW + 1) if observation["chain"] else 0
    data = {
        "level": observation["level"],
        "custom": None,
        "board": observation["board"],
        "oil": observation["oil"],
        "tick": tick,
        "chain": observation["chain"],
        "lastGem": last_gem,
        "gems": observation["gemsCollected"],
        "score": observation["score"],
        "status": observation["status"],
    }
    number = observation["level"]
    shipped = type(number) is int and 1 <= number <= len(LEVELS)
    if shipped and LEVELS[number - 1].name == observation["levelName"]:
        try:
            return from_json(data)
        except StateError:
            pass
    rows = [row.encode().translate(_AS_LAYOUT).decode() for row in observation["board"]]
    data["level"] = 1
    data["custom"] = {
        "name": observation["levelName"],
        "quota": observation["quota"],
        "oil": max(1, observation["oil"]),
        "rows": rows,
    }
    return from_json(data)


class DelvewickBot:
    """Plays Delvewick from the view alone.

    At the start of a shipped level (the board as the level shows it, full oil) it follows
    the level's shipped solution. Otherwise, or as soon as the game is not where its plan
    said it would be, it rebuilds the state from the observation and plans a clear with
    :func:`beam_solve` (width :data:`REPLAN_WIDTH`); without a clear it heads for the
    nearest gem (:func:`next_action`), and it only ever answers a legal action.
    Following a plan costs one rules step per move; a new plan a second or two.
    """

    def __init__(self, width: int = REPLAN_WIDTH) -> None:
        self.width = width
        self._plan: deque[str] = deque()
        #: the state the plan predicts after the bot's last action
        self._expected: State | None = None
        #: the level number, name, gems and tick of the last observation, for the chain
        self._last_seen: tuple[int, str, int] | None = None
        self._last_gem: int | None = None

    def act(self, view: JSON) -> Action:
        observation = view["observation"]
        legal = view["legalActions"]
        self._remember_gems(observation)
        if observation["status"] != PLAYING or not legal:
            return {"type": "wait"}
        state = self._current_state(observation)
        letter = self._plan.popleft() if self._plan else ""
        action = action_of(letter) if letter else next_action(state)
        outcome = rules.step(state, action)
        if not outcome.ok or action not in legal:
            self._plan.clear()
            self._expected = None
            return dict(legal[0])
        self._expected = outcome.state
        return action

    def _remember_gems(self, observation: JSON) -> None:
        seen = (observation["level"], observation["levelName"], observation["gemsCollected"])
        if self._last_seen is not None and seen[:2] == self._last_seen[:2]:
            if seen[2] > self._last_seen[2]:
                self._last_gem = observation["tick"]
        elif observation["gemsCollected"] == 0:
            self._last_gem = 0
        else:
            self._last_gem = None
        self._last_seen = seen

    def _current_state(self, observation: JSON) -> State:
        """The state now, with a plan from it in ``self._plan``."""
        expected = self._expected
        if expected is not None and self._plan and observe(expected) == observation:
            return expected
        self._plan.clear()
        state = state_from_observation(observation, self._last_gem)
        level = state.level
        fresh = (
            not level.custom
            and state.gems == 0
            and state.oil == level.oil
            and state.board == level.board
        )
        if fresh:
            self._plan.extend(level.solution)
            return state
        clear = beam_solve(state, self.width, depth=0, every=0)
        if clear is not None:
            self._plan.extend(clear.letters)
        return state


def make_bot(seed: int) -> DelvewickBot:
    """The Delvewick bot; the game has no randomness, so the seed changes nothing."""
    check_seed(seed)
    return DelvewickBot()
