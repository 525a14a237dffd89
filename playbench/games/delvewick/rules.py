"""The pure Delvewick transition: move checks, the tick order 1-7 and gravity.

A step is a chain of small systems on a fresh copy of the state: apply the action (1),
complete the level on the open exit (2), one gravity pass (3), open the exit (4), chain
bookkeeping (5), oil (6), boxed-in check (7). Nothing here touches its input state.

The gravity pass visits only movables that can act: ``State.active`` holds every
movable whose surroundings changed or that is falling, and a pass adds the neighbours of
each cell it changes (to this pass when they come later in the scan, else to the next
one). Every other movable is settled and would do nothing, so the result equals a full
bottom-to-top, left-to-right scan.
"""

from __future__ import annotations

from collections.abc import Mapping
from heapq import heappop, heappush
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.game import JSON, LOST, Action, Outcome
from playbench.core.rng import check_seed
from playbench.games.delvewick.levels import (
    BEDROCK,
    BOULDER,
    BOULDER_FALLING,
    EMPTY,
    EXIT_CLOSED,
    EXIT_OPEN,
    GEM,
    GEM_FALLING,
    GEODE,
    GEODE_FALLING,
    LEVELS,
    MOLE,
    MOVABLE_GLYPHS,
    SOIL,
)
from playbench.games.delvewick.state import (
    BOXED_IN,
    CRUSHED,
    OUT_OF_OIL,
    PLAYING,
    WON,
    State,
    level_from_options,
)

GEM_POINTS = 25
#: chain bonus by position in the chain: 1st, 2nd, 3rd, 4th and every later gem
CHAIN_BONUS = (0, 10, 20, 30)
#: a gem collected at most this many ticks after the previous one continues the chain
CHAIN_WINDOW = 4
CRACK_POINTS = 10
CLEAR_POINTS = 100
OIL_POINTS = 5
FINALE_POINTS = 250

DIRECTIONS = ("up", "down", "left", "right")
UP, DOWN, LEFT, RIGHT = range(4)
DIR_INDEX = {name: i for i, name in enumerate(DIRECTIONS)}

_TABLE = range(256)
FALLING = tuple(b in (BOULDER_FALLING, GEM_FALLING, GEODE_FALLING) for b in _TABLE)
MOVABLE = tuple(b in MOVABLE_GLYPHS for b in _TABLE)
#: every movable is rounded (objects roll off it); soil, bedrock, exits and the mole are flat
ROUNDED = MOVABLE
TO_FALLING = tuple(
    {BOULDER: BOULDER_FALLING, GEM: GEM_FALLING, GEODE: GEODE_FALLING}.get(b, b) for b in _TABLE
)
TO_REST = tuple(
    {BOULDER_FALLING: BOULDER, GEM_FALLING: GEM, GEODE_FALLING: GEODE}.get(b, b) for b in _TABLE
)
#: cells the mole walks into (digging soil, collecting a gem at rest or falling)
ENTERABLE = tuple(b in (SOIL, EMPTY, GEM, GEM_FALLING, EXIT_OPEN) for b in _TABLE)
PUSHABLE = tuple(b in (BOULDER, GEODE) for b in _TABLE)
OBJECT_NAME = {
    BOULDER: "boulder",
    BOULDER_FALLING: "boulder",
    GEM: "gem",
    GEM_FALLING: "gem",
    GEODE: "geode",
    GEODE_FALLING: "geode",
}
GLYPH_NAME = {
    BEDROCK: "bedrock",
    SOIL: "soil",
    EMPTY: "empty",
    EXIT_CLOSED: "the closed exit",
    EXIT_OPEN: "the open exit",
    MOLE: "the mole",
    **OBJECT_NAME,
}


class MalformedAction(PlaybenchError, ValueError):
    """An action that is not a move or a wait of the grammar; the message says why."""


# -- the action ------------------------------------------------------------------------
def read_action(action: Any) -> int:
    """The direction index of a move, or ``-1`` for wait.

    Raises :class:`MalformedAction` saying what is wrong with anything else.
    """
    if type(action) is not dict:
        raise MalformedAction(
            f"an action must be a JSON object such as {{'type': 'wait'}}, got {action!r}"
        )
    kind = action.get("type")
    if kind == "move":
        direction = action.get("dir")
        d = DIR_INDEX.get(direction, -1) if type(direction) is str else -1
        if d >= 0 and len(action) == 2:
            return d
        if "dir" not in action:
            raise MalformedAction("a move needs 'dir': one of up, down, left, right")
        if d < 0:
            raise MalformedAction(f"unknown dir {direction!r}; use one of up, down, left, right")
        raise MalformedAction(f"a move takes only 'type' and 'dir', got keys {sorted(action)}")
    if kind == "wait":
        if len(action) != 1:
            raise MalformedAction(f"a wait takes only 'type', got keys {sorted(action)}")
        return -1
    if "type" not in action:
        raise MalformedAction("an action needs 'type': 'move' or 'wait'")
    raise MalformedAction(f"unknown action type {kind!r}; use 'move' or 'wait'")


def new(seed: int, options: Mapping[str, Any] | None = None) -> State:
    """A fresh run: the seed changes nothing (it is checked all the same)."""
    check_seed(seed)
    return State(level_from_options(options))


def legal_actions(state: State) -> list[Action]:
    if state.status != PLAYING:
        return []
    moves: list[Action] = [{"type": "move", "dir": DIRECTIONS[d]} for d in legal_dirs(state)]
    moves.append({"type": "wait"})
    return moves


def score(state: State) -> int:
    return state.score


def is_over(state: State) -> bool:
    return state.status != PLAYING


def ending(state: State) -> str:
    """Won once the last level is cleared (the status ``won`` is the contract's); every
    other end (crushed, out of oil, boxed in) is a loss."""
    return WON if state.status == WON else LOST


def can_move(state: State, d: int) -> bool:
    """True when the mole may move in direction ``d`` now (the fast path of ``refusal``).

    Every board is framed in bedrock, so each neighbour index of the mole (and of a
    pushable object beside it) lies on the board and a move off the grid would first
    have to enter bedrock.
    """
    step = state.level.steps[d]
    board = state.board
    target = state.pos + step
    b = board[target]
    return ENTERABLE[b] or (d >= LEFT and PUSHABLE[b] and board[target + step] == EMPTY)


def legal_dirs(state: State) -> list[int]:
    """The directions the mole may move now, in the order up, down, left, right."""
    pos = state.pos
    board = state.board
    width = state.level.width
    dirs = []
    if ENTERABLE[board[pos + width]]:
        dirs.append(UP)
    if ENTERABLE[board[pos - width]]:
        dirs.append(DOWN)
    b = board[pos - 1]
    if ENTERABLE[b] or (PUSHABLE[b] and board[pos - 2] == EMPTY):
        dirs.append(LEFT)
    b = board[pos + 1]
    if ENTERABLE[b] or (PUSHABLE[b] and board[pos + 2] == EMPTY):
        dirs.append(RIGHT)
    return dirs


def refusal(state: State, d: int) -> str:
    """Why a move in direction ``d`` is refused (empty string when it is accepted)."""
    if can_move(state, d):
        return ""
    level = state.level
    name = DIRECTIONS[d]
    here = level.cell(state.pos)
    row, col = here["row"], here["col"]
    step = level.steps[d]
    target = state.pos + step
    off = (
        (d == UP and row == 0)
        or (d == DOWN and row == level.height - 1)
        or (d == LEFT and col == 0)
        or (d == RIGHT and col == level.width - 1)
    )
    if off:
        return f"cannot move {name}: that leaves the grid"
    b = state.board[target]
    where = "row {row}, col {col}".format(**level.cell(target))
    if b == BEDROCK:
        return f"cannot move {name}: bedrock at {where}"
    if b == EXIT_CLOSED:
        missing = level.quota - state.gems
        return f"cannot move {name}: the exit at {where} is closed ({missing} more gems needed)"
    thing = OBJECT_NAME.get(b, GLYPH_NAME.get(b, "something"))
    if d in (UP, DOWN):
        return f"cannot move {name} into a {thing} at {where}: only gems can be entered"
    if FALLING[b]:
        return f"cannot push the {thing} {name} at {where}: it is falling"
    beyond = GLYPH_NAME.get(state.board[target + step], "something")
    return f"cannot push the {thing} {name} at {where}: the cell beyond holds {beyond}"


# -- the tick --------------------------------------------------------------------------
def step(state: State, action: Any) -> Outcome[State]:
    """Apply one action under the seed's tick order. Never mutates ``state``."""
    if state.status != PLAYING:
        return Outcome.refused(state, f"the run has ended ({state.status}); no action is accepted")
    try:
        d = read_action(action)
    except MalformedAction as problem:
        return Outcome.refused(state, str(problem))
    if d >= 0 and not can_move(state, d):
        return Outcome.refused(state, refusal(state, d))

    s = state.copy()
    s.tick = state.tick + 1
    events: list[JSON] = []
    seeds = list(s.active)
    if d >= 0 and _apply_move(s, d, seeds, events):  # 1) and 2)
        _complete_level(s, state.oil, events)
    else:
        _gravity(s, seeds, events)  # 3)
        _open_exit(s, events)  # 4)
        _chain_bookkeeping(s)  # 5)
        _burn_oil(s, events)  # 6)
        _check_boxed_in(s, events)  # 7)
    return Outcome(state=s, reward=s.score - state.score, events=events)


def _apply_move(s: State, d: int, seeds: list[int], events: list[JSON]) -> bool:
    """Tick order 1: move, dig, collect or push. True when the mole entered the open exit."""
    level = s.level
    width = level.width
    board = s.board
    pos = s.pos
    delta = level.steps[d]
    target = pos + delta
    b = board[target]
    events.append(
        {"type": "move", "dir": DIRECTIONS[d], "from": level.cell(pos), "to": level.cell(target)}
    )
    if b == SOIL:
        events.append({"type": "dig", "cell": level.cell(target)})
    elif b in (GEM, GEM_FALLING):
        _collect(s, target, "collect", events)
    elif PUSHABLE[b]:
        board[target + delta] = b
        events.append(
            {
                "type": "push",
                "object": OBJECT_NAME[b],
                "from": level.cell(target),
                "to": level.cell(target + delta),
            }
        )
        seeds.append(target + delta)
        _touch(seeds, target + delta, width)
    board[pos] = EMPTY
    board[target] = MOLE
    s.pos = target
    _touch(seeds, pos, width)
    _touch(seeds, target, width)
    return b == EXIT_OPEN


def _open_exit(s: State, events: list[JSON]) -> None:
    """Tick order 4: the exit opens once this level's gems reach the quota."""
    level = s.level
    if not s.exit_open and s.gems >= level.quota:
        s.exit_open = True
        s.board[level.exit] = EXIT_OPEN
        events.append({"type": "exitOpen", "cell": level.cell(level.exit)})


def _chain_bookkeeping(s: State) -> None:
    """Tick order 5: a chain no gem can continue any more shows 0."""
    if s.chain and s.tick - s.last_gem >= CHAIN_WINDOW:
        s.chain = 0


def _burn_oil(s: State, events: list[JSON]) -> None:
    """Tick order 6: the action's oil; at 0 the run ends (unless it already ended)."""
    s.oil -= 1
    if s.status == PLAYING and s.oil <= 0:
        s.status = OUT_OF_OIL
        events.append({"type": "outOfOil"})


def _check_boxed_in(s: State, events: list[JSON]) -> None:
    """Tick order 7: a settled board with all four moves refused ends the run."""
    if s.status == PLAYING and not legal_dirs(s) and settled(s):
        s.status = BOXED_IN
        events.append({"type": "boxedIn", "cell": s.level.cell(s.pos)})


def _touch(seeds: list[int], cell: int, width: int) -> None:
    """Add the cells whose gravity depends on ``cell``: above, beside and diagonally above."""
    up = cell + width
    seeds += (up, cell - 1, cell + 1, up - 1, up + 1)


def _collect(s: State, cell: int, kind: str, events: list[JSON]) -> None:
    """Bank a gem (walked into or caught) with its chain bonus."""
    tick = s.tick
    if s.chain and tick - s.last_gem <= CHAIN_WINDOW:
        s.chain += 1
    else:
        s.chain = 1
    s.last_gem = tick
    s.gems += 1
    points = GEM_POINTS + CHAIN_BONUS[min(s.chain, len(CHAIN_BONUS)) - 1]
    s.score += points
    events.append({"type": kind, "cell": s.level.cell(cell), "points": points, "chain": s.chain})


def _complete_level(s: State, oil_left: int, events: list[JSON]) -> None:
    """Tick order 2: clear bonus, then the next level or the end of the run."""
    points = CLEAR_POINTS + OIL_POINTS * oil_left
    s.score += points
    level = s.level
    events.append(
        {
            "type": "levelClear",
            "level": level.number,
            "name": level.name,
            "points": points,
            "oilLeft": oil_left,
        }
    )
    if level.custom or level.number == len(LEVELS):
        s.status = WON
        finale = 0 if level.custom else FINALE_POINTS
        s.score += finale
        events.append({"type": "won", "points": finale})
        return
    nxt = LEVELS[level.number]
    s.load(nxt)
    events.append({"type": "levelStart", "level": nxt.number, "name": nxt.name})


def _gravity(s: State, seeds: list[int], events: list[JSON]) -> None:
    """Tick order 3: one pass, rows bottom to top, columns left to right (rules a-d).

    ``seeds`` may repeat cells; all lie on the board because movables never touch the
    bedrock frame.
    """
    board = s.board
    heap = sorted([i for i in seeds if MOVABLE[board[i]]])
    if not heap:
        s.active = ()
        return
    level = s.level
    width = level.width
    done: set[int] = set()
    nxt: set[int] = set()
    last = -1
    while heap:
        i = heappop(heap)
        if i == last or i in done:
            continue
        last = i
        b = board[i]
        if not MOVABLE[b]:
            continue
        below = i - width
        under = board[below]
        if under == EMPTY:
            new = below
        elif under == MOLE:
            if not FALLING[b]:
                continue
            board[i] = EMPTY
            if b == GEM_FALLING:
                _collect(s, below, "caught", events)
                changed: tuple[int, ...] = (i,)
            else:
                board[below] = b
                done.add(below)
                s.status = CRUSHED
                events.append(
                    {
                        "type": "crushed",
                        "object": OBJECT_NAME[b],
                        "from": level.cell(i),
                        "cell": level.cell(below),
                    }
                )
                changed = (i, below)
            _spread(changed, i, width, board, heap, done, nxt)
            continue
        elif ROUNDED[under]:
            if board[i - 1] == EMPTY and board[below - 1] == EMPTY:
                new = i - 1
            elif board[i + 1] == EMPTY and board[below + 1] == EMPTY:
                new = i + 1
            else:
                new = -1
        else:
            new = -1
        if new < 0:
            if FALLING[b]:
                if b == GEODE_FALLING:
                    board[i] = GEM
                    s.score += CRACK_POINTS
                    events.append({"type": "crack", "cell": level.cell(i), "points": CRACK_POINTS})
                else:
                    board[i] = TO_REST[b]
                    events.append({"type": "land", "object": OBJECT_NAME[b], "cell": level.cell(i)})
            continue
        board[new] = TO_FALLING[b]
        board[i] = EMPTY
        done.add(new)
        nxt.add(new)
        events.append(
            {
                "type": "fall" if new == below else "roll",
                "object": OBJECT_NAME[b],
                "from": level.cell(i),
                "to": level.cell(new),
            }
        )
        _spread((i, new), i, width, board, heap, done, nxt)
    s.active = tuple(nxt)


def _spread(
    changed: tuple[int, ...],
    current: int,
    width: int,
    board: bytearray,
    heap: list[int],
    done: set[int],
    nxt: set[int],
) -> None:
    """Queue the movables a change can wake: later in this pass, earlier for the next."""
    for cell in changed:
        up = cell + width
        for n in (up, cell - 1, cell + 1, up - 1, up + 1):
            if MOVABLE[board[n]]:
                if n > current:
                    if n not in done:
                        heappush(heap, n)
                else:
                    nxt.add(n)


def would_act(board: bytearray, i: int, width: int) -> bool:
    """True when the movable at ``i`` would fall, roll or land in a pass on this board."""
    b = board[i]
    if FALLING[b]:
        return True
    below = i - width
    under = board[below]
    if under == EMPTY:
        return True
    if not ROUNDED[under]:
        return False
    return (board[i - 1] == EMPTY and board[below - 1] == EMPTY) or (
        board[i + 1] == EMPTY and board[below + 1] == EMPTY
    )


def settled(s: State) -> bool:
    """Nothing is falling and a gravity pass would move nothing."""
    board = s.board
    width = s.level.width
    return not any(MOVABLE[board[i]] and would_act(board, i, width) for i in s.active)
