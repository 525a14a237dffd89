"""The Cogcrawl seat protocol: reading a reply, validating it, planning the turn's queue.

A seat answers each observation with one JSON object (see the seed page "Actions and
the reply format"). This module turns that answer into the list of dungeon primitives
the rules will run, applying every cap and validation rule, and expands ``travel``
into moves by a breadth-first search over the map remembered at the start of the turn.
It executes nothing and depends only on the standard library, the glyphs and the
core's JSON type names.

Choices where the seed is silent (also written into the game's rules text):

- Raw text must begin with ``{`` and end with ``}`` exactly: surrounding whitespace,
  a byte-order mark or a trailing newline make it a parse failure.
- ``{"reply": ...}`` is raw text only when it is the single key and holds a string; a
  single ``reply`` key holding anything else is a parse failure. The 4096-byte read
  applies to raw text; a reply object sent as the action itself is measured as its
  compact UTF-8 JSON (no spaces, non-ASCII runes as themselves) and is a parse failure
  past 4096 bytes. Any action that is not a JSON object (an array, a string, a number,
  null) is a parse failure too, counted toward the retry and the fallback.
- JSON's ``NaN``/``Infinity`` are not JSON and fail to parse; with duplicate keys the
  last one counts.
- A non-string ``say`` or ``notes`` counts as absent (empty); ``actions`` that is
  ``null`` counts as absent, any other non-array is reported as one dropped entry.
- ``x``/``y`` must be JSON integers: ``3.0`` and ``true`` are not.
- ``item`` must be a lower-case letter; ``"A"`` is dropped, not lower-cased.
- A key a verb does not use (``dir`` on ``search``) is ignored like an unknown key.
- A travel whose path is longer than 40 moves keeps its first 40 moves; the moves cut
  are counted in ``truncated`` with the queue's own surplus.
- A travel later in the queue starts from where the moves before it would leave the
  cog (a move into a known wall, a closed door or a visible monster leaves it in
  place); a travel after ``up`` or ``down`` in the same queue is unreachable, since
  the new level's map is not known at the start of the turn.
- A travel to a known cell that cannot be stood on ends on the nearest walkable cell
  next to it; next to a door that means orthogonally next to it (the only side a cog
  can step into a doorway from).
- A move of a travel walks its path and nothing else: it fails (stopping the queue)
  when the cog is not on the cell it was planned from (a move before it attacked a
  monster that had come closer, say) and when a monster has stepped into the path since
  the turn began (it never attacks, as NetHack's travel stops), so a path is never
  walked from a cell off it.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from playbench.core.fields import json_type
from playbench.core.seat import (
    MAX_MOVES,
    MAX_NOTES,
    MAX_REPLY_BYTES,
    MAX_SAY,
    ReplyUnreadable,
    read_object,
)
from playbench.games.cogcrawl.glyphs import (
    DIRECTIONS,
    DOORS,
    HEIGHT,
    UNSEEN,
    WALKABLE,
    WIDTH,
)

#: the seat protocol's limits, shared with every game's seat
MAX_ACTIONS = MAX_MOVES
MACRO_PRIMITIVE_CAP = 40
QUEUE_CAP = 40
MAX_DO_RUNES = 8
MAX_DIR_RUNES = 2

#: the reply key that carries a model's raw text
RAW_KEY = "reply"

MOVE = "move"
TRAVEL = "travel"
DOWN = "down"
UP = "up"
PICKUP = "pickup"
EAT = "eat"
QUAFF = "quaff"
WIELD = "wield"
WEAR = "wear"
KICK = "kick"
SEARCH = "search"
CHAT = "chat"
WAIT = "wait"

#: verbs a primitive may carry (``travel`` is expanded into ``move`` before it runs)
PRIMITIVE_VERBS = (MOVE, DOWN, UP, PICKUP, EAT, QUAFF, WIELD, WEAR, KICK, SEARCH, CHAT, WAIT)
VERBS = frozenset({*PRIMITIVE_VERBS, TRAVEL})
DIR_VERBS = frozenset({MOVE, KICK, CHAT})
ITEM_VERBS = frozenset({EAT, QUAFF, WIELD, WEAR})
LEVEL_VERBS = frozenset({UP, DOWN})
PACK_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
DIRECTION_LIST = " ".join(DIRECTIONS)
ORTHOGONAL = frozenset({"n", "s", "e", "w"})
#: the fixed neighbour order of travel's search, so equal-length paths tie the same way
SEARCH_ORDER = tuple(DIRECTIONS.items())
#: per byte of the map: 1 where ``travel`` may step (or, for doors, where a door is)
_WALKABLE_BYTES = bytes(chr(i) in WALKABLE for i in range(256))
_DOOR_BYTES = bytes(chr(i) in DOORS for i in range(256))
_ALL_FREE = b"\x01" * (WIDTH * HEIGHT)
#: a search tree: cell -> (the cell it was reached from, the direction of that step)
Tree = dict[tuple[int, int], tuple[tuple[int, int], str]]
#: one step of the search: (direction, cell index, cell, whether it is diagonal, the
#: indices of the two cells beside a diagonal step)
Step = tuple[str, int, tuple[int, int], bool, int, int]


def _steps_from(x: int, y: int) -> tuple[Step, ...]:
    """The search's steps from ``(x, y)`` onto the map, in :data:`SEARCH_ORDER`."""
    found = []
    for name, (dx, dy) in SEARCH_ORDER:
        nx, ny = x + dx, y + dy
        if 0 <= nx < WIDTH and 0 <= ny < HEIGHT:
            beside = (ny * WIDTH + x, y * WIDTH + nx)
            found.append((name, ny * WIDTH + nx, (nx, ny), bool(dx and dy), *beside))
    return tuple(found)


#: every map cell's index -> its steps, made once
_STEPS_FROM = tuple(_steps_from(index % WIDTH, index // WIDTH) for index in range(WIDTH * HEIGHT))


@dataclass(frozen=True, slots=True)
class Primitive:
    """One dungeon turn's worth of action, as the rules run it."""

    verb: str
    dir: str | None = None
    item: str | None = None
    #: for a move expanded from ``travel``, the cell it was planned to leave from: it
    #: runs only from there and never attacks (not part of equality)
    origin: tuple[int, int] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, str]:
        data = {"do": self.verb}
        if self.dir is not None:
            data["dir"] = self.dir
        if self.item is not None:
            data["item"] = self.item
        return data


@dataclass(slots=True)
class Plan:
    """A validated turn: the queue to run and what was dropped, cut or unreachable."""

    primitives: list[Primitive] = field(default_factory=list)
    #: ``{"index", "do", "reason"}`` per entry that did not validate
    dropped: list[dict[str, Any]] = field(default_factory=list)
    #: ``{"index", "x", "y"}`` per travel that found no path (x, y after clamping)
    unreachable: list[dict[str, Any]] = field(default_factory=list)
    #: moves cut from travels past MACRO_PRIMITIVE_CAP, and primitives cut from the queue
    #: past QUEUE_CAP
    truncated: int = 0
    #: action entries past MAX_ACTIONS, dropped unread
    over_cap: int = 0
    say: str = ""
    notes: str = ""


#: a reply that is not exactly one JSON object (the seat protocol's reading, shared)
ParseFailure = ReplyUnreadable


# -- reading ---------------------------------------------------------------------------


def read_reply(action: object) -> dict:
    """The reply object of a turn's action, or :class:`ParseFailure` saying why not.

    The action is either the reply object itself or ``{"reply": "<raw text>"}``.
    """
    if not isinstance(action, dict):
        raise ParseFailure(f"a reply must be a JSON object, got {json_type(action)}")
    if len(action) == 1 and RAW_KEY in action:
        raw = action[RAW_KEY]
        if not isinstance(raw, str):
            raise ParseFailure(
                f'"{RAW_KEY}" must hold the raw reply text as a string, got {json_type(raw)}'
            )
        return parse_raw(raw)
    size = compact_size(action)
    if size > MAX_REPLY_BYTES:
        raise ParseFailure(
            f"the reply is {size} bytes as compact JSON, more than {MAX_REPLY_BYTES}"
        )
    return action


def compact_size(reply: dict) -> int:
    """The bytes of a reply object written as compact UTF-8 JSON, as a provider sends it."""
    try:
        text = json.dumps(reply, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise ParseFailure(f"the reply is not JSON data: {error}") from None
    return len(text.encode("utf-8", "surrogatepass"))


def parse_raw(raw: str | bytes) -> dict:
    """Read raw reply text as the provider would: 4096 bytes, exactly one JSON object."""
    if isinstance(raw, str):
        try:
            data = raw.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ParseFailure(
                f"the reply is not valid UTF-8 text (a lone surrogate at character {error.start})"
            ) from None
    else:
        data = bytes(raw)
    cut = len(data) > MAX_REPLY_BYTES
    data = data[:MAX_REPLY_BYTES]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = "the 4096-byte cut splits a character" if cut else "the bytes are not UTF-8"
        raise ParseFailure(
            f"the reply is not valid UTF-8 ({where}; bad byte at {error.start})"
        ) from None
    return read_object(text, cut)


# -- planning --------------------------------------------------------------------------


def plan_turn(
    reply: dict,
    memory: list[str],
    position: tuple[int, int],
    monsters: set[tuple[int, int]],
    pack: set[str],
) -> Plan:
    """Validate a reply and expand it into the turn's queue; runs nothing."""
    plan = Plan(say=_cut_runes(reply.get("say"), MAX_SAY))
    plan.notes = _cut_runes(reply.get("notes"), MAX_NOTES)
    actions = reply.get("actions")
    if actions is None:
        actions = []
    elif not isinstance(actions, list):
        plan.dropped.append(
            {
                "index": None,
                "do": None,
                "reason": f"actions must be an array, got {json_type(actions)}",
            }
        )
        actions = []
    plan.over_cap = max(0, len(actions) - MAX_ACTIONS)
    queue: list[Primitive] = []
    where: tuple[int, int] | None = position
    for index, entry in enumerate(actions[:MAX_ACTIONS]):
        try:
            verb = _validate(entry, pack)
        except EntryDropped as dropped:
            plan.dropped.append({"index": index, "do": dropped.verb, "reason": str(dropped)})
            continue
        if verb == TRAVEL:
            x = _clamp(entry["x"], WIDTH - 1)
            y = _clamp(entry["y"], HEIGHT - 1)
            path = None if where is None else travel_path(memory, where, (x, y), monsters)
            if path is None:
                plan.unreachable.append({"index": index, "x": x, "y": y})
                continue
            plan.truncated += max(0, len(path) - MACRO_PRIMITIVE_CAP)
            path = path[:MACRO_PRIMITIVE_CAP]
            for direction in path:
                queue.append(Primitive(MOVE, dir=direction, origin=where))
                where = _step(where, direction)
            continue
        primitive = Primitive(
            verb,
            dir=entry["dir"].lower() if verb in DIR_VERBS else None,
            item=entry["item"] if verb in ITEM_VERBS else None,
        )
        queue.append(primitive)
        if verb in LEVEL_VERBS:
            where = None
        elif verb == MOVE and where is not None:
            where = _project_move(memory, where, primitive.dir, monsters)
    plan.truncated += max(0, len(queue) - QUEUE_CAP)
    plan.primitives = queue[:QUEUE_CAP]
    return plan


class EntryDropped(Exception):
    """An action entry that does not validate; ``verb`` is what it asked for, as reported."""

    def __init__(self, verb: str | None, reason: str) -> None:
        super().__init__(reason)
        self.verb = verb


def _validate(entry: object, pack: set[str]) -> str:
    """The verb of a valid entry (lower-cased); raises :class:`EntryDropped` otherwise."""
    if not isinstance(entry, dict):
        raise EntryDropped(None, f"an action must be an object, got {json_type(entry)}")
    if "do" not in entry:
        raise EntryDropped(None, "missing do")
    do = entry["do"]
    if not isinstance(do, str):
        raise EntryDropped(None, f"do must be a string, got {json_type(do)}")
    if len(do) > MAX_DO_RUNES:
        raise EntryDropped(do[:MAX_DO_RUNES], f"do is {len(do)} runes, more than {MAX_DO_RUNES}")
    verb = do.lower()
    if verb not in VERBS:
        raise EntryDropped(do, f"unknown verb {do!r}")
    if verb in DIR_VERBS:
        _check_dir(verb, entry)
    if verb == TRAVEL:
        for axis in ("x", "y"):
            if axis not in entry:
                raise EntryDropped(verb, f"travel needs {axis}")
            if type(entry[axis]) is not int:
                raise EntryDropped(verb, f"{axis} must be an integer, got {json_type(entry[axis])}")
    if verb in ITEM_VERBS:
        _check_item(verb, entry, pack)
    return verb


def _check_dir(verb: str, entry: dict) -> None:
    if "dir" not in entry:
        raise EntryDropped(verb, f"{verb} needs dir")
    direction = entry["dir"]
    if not isinstance(direction, str):
        raise EntryDropped(verb, f"dir must be a string, got {json_type(direction)}")
    if len(direction) > MAX_DIR_RUNES:
        raise EntryDropped(verb, f"dir is {len(direction)} runes, more than {MAX_DIR_RUNES}")
    if direction.lower() not in DIRECTIONS:
        raise EntryDropped(verb, f"dir {direction!r} is not one of {DIRECTION_LIST}")


def _check_item(verb: str, entry: dict, pack: set[str]) -> None:
    if "item" not in entry:
        raise EntryDropped(verb, f"{verb} needs item")
    item = entry["item"]
    if not isinstance(item, str):
        raise EntryDropped(verb, f"item must be a string, got {json_type(item)}")
    if len(item) != 1:
        raise EntryDropped(verb, f"item must be exactly one rune, got {len(item)}")
    if item not in PACK_LETTERS:
        raise EntryDropped(verb, f"item {item!r} is not a letter a..z")
    if item not in pack:
        raise EntryDropped(verb, f"no item {item!r} in the pack")


def _cut_runes(value: object, limit: int) -> str:
    """A string cut to ``limit`` code points; anything not a string counts as absent."""
    return value[:limit] if isinstance(value, str) else ""


def _clamp(value: int, high: int) -> int:
    return 0 if value < 0 else high if value > high else value


def _step(where: tuple[int, int], direction: str) -> tuple[int, int]:
    dx, dy = DIRECTIONS[direction]
    return where[0] + dx, where[1] + dy


def _project_move(
    memory: list[str], where: tuple[int, int], direction: str, monsters: set[tuple[int, int]]
) -> tuple[int, int]:
    """Where a planned move would leave the cog, judged from the remembered map.

    Into a visible monster (an attack), a wall, a door that may be shut or a cell off the
    map it stays put; into an unseen cell it is assumed to arrive (if it cannot, the move
    fails and the queue stops there anyway).
    """
    x, y = _step(where, direction)
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT) or (x, y) in monsters:
        return where
    glyph = memory[y][x]
    return (x, y) if glyph == UNSEEN or glyph in WALKABLE else where


# -- travel ----------------------------------------------------------------------------


def travel_path(
    memory: list[str],
    start: tuple[int, int],
    target: tuple[int, int],
    monsters: set[tuple[int, int]],
) -> list[str] | None:
    """The directions of a shortest remembered path from ``start`` to ``target``.

    Paths go only through remembered walkable cells free of visible monsters; a diagonal
    step never enters or leaves a doorway and never cuts a corner (both cells beside it
    must be walkable). A target that is known but not walkable is approached instead
    (see the module notes). ``None`` when the target is unseen or no path exists. The
    whole path is returned; :func:`plan_turn` keeps its first MACRO_PRIMITIVE_CAP moves
    and counts the rest as truncated.
    """
    tx, ty = target
    if not (0 <= tx < WIDTH and 0 <= ty < HEIGHT):
        return None
    glyph = memory[ty][tx]
    if glyph == UNSEEN:
        return None
    if glyph in WALKABLE and target not in monsters:
        goals = {target}
    else:
        sides = ORTHOGONAL if glyph in DOORS else DIRECTIONS
        goals = set()
        for name in sides:
            dx, dy = DIRECTIONS[name]
            cell = (tx + dx, ty + dy)
            if _passable(memory, cell, monsters) or cell == start:
                goals.add(cell)
    if start in goals:
        return []
    previous, reached = search(memory, start, monsters, goals)
    if reached is None:
        return None
    return path_to(previous, start, reached)


def search(
    memory: list[str],
    start: tuple[int, int],
    monsters: set[tuple[int, int]],
    goals: set[tuple[int, int]] | None = None,
    cut_corners: bool = False,
) -> tuple[Tree, tuple[int, int] | None]:
    """Breadth-first search by travel's step rules from ``start``.

    Returns the search tree (cell -> (previous cell, direction), in the order cells were
    reached, so nearer cells come first) and the first goal reached, stopping there; with
    no goals the whole remembered reach is searched. ``cut_corners`` lifts the wall-corner
    rule (never the doorway rule), for planners that also send single moves.
    """
    flat = "".join(memory).encode("ascii", "replace")
    corners_free = _ALL_FREE if cut_corners else flat.translate(_WALKABLE_BYTES)
    door = flat.translate(_DOOR_BYTES)
    # open: walkable and not reached yet (a cell is closed once reached)
    open_cells = bytearray(flat.translate(_WALKABLE_BYTES))
    for mx, my in monsters:
        if 0 <= mx < WIDTH and 0 <= my < HEIGHT:
            open_cells[my * WIDTH + mx] = 0
    sx, sy = start
    start_index = sy * WIDTH + sx
    if 0 <= start_index < WIDTH * HEIGHT:
        open_cells[start_index] = 0
    goal_indices = {y * WIDTH + x for x, y in goals} if goals is not None else ()
    previous: Tree = {}
    if 0 <= sx < WIDTH and 0 <= sy < HEIGHT:
        first = ((sx, sy), _STEPS_FROM[start_index], door[start_index])
    else:
        first = ((sx, sy), _steps_from(sx, sy), 0)
    frontier = deque([first])
    steps_from = _STEPS_FROM
    while frontier:
        here_cell, steps, door_here = frontier.popleft()
        for name, cell, cell_xy, diagonal, beside_a, beside_b in steps:
            if not open_cells[cell]:
                continue
            if diagonal and (
                door_here or door[cell] or not (corners_free[beside_a] and corners_free[beside_b])
            ):
                continue
            open_cells[cell] = 0
            previous[cell_xy] = (here_cell, name)
            if cell in goal_indices:
                return previous, cell_xy
            frontier.append((cell_xy, steps_from[cell], door[cell]))
    return previous, None


def _on_map(cell: tuple[int, int]) -> bool:
    return 0 <= cell[0] < WIDTH and 0 <= cell[1] < HEIGHT


def _walkable(memory: list[str], cell: tuple[int, int]) -> bool:
    return _on_map(cell) and memory[cell[1]][cell[0]] in WALKABLE


def _passable(memory: list[str], cell: tuple[int, int], monsters: set[tuple[int, int]]) -> bool:
    return _walkable(memory, cell) and cell not in monsters


def path_to(previous: Tree, start: tuple[int, int], end: tuple[int, int]) -> list[str]:
    """The directions from ``start`` to ``end`` along a :func:`search` tree."""
    path = []
    cell = end
    while cell != start:
        cell, name = previous[cell]
        path.append(name)
    path.reverse()
    return path
