"""The delver: Cogcrawl's scripted seat, the fallback of the seat protocol.

It reads one observation and answers with one reply object, exactly as any seat does;
the rules run it for a turn whose reply failed to parse twice, and the bot door
(``playbench/bots/cogcrawl.py``) plays whole runs with it. Its whole memory is
its own ``notes`` (echoed back by the game), kept as short space-separated tokens.

The plan, in order of priority: leave a finished run alone; fight what is adjacent
(badly hurt, escape by stairs underfoot or a step away); eat when Hungry; rest when
wounded and alone (on stairs when they are near); pick up what lies underfoot when it is
useful; wield or wear something better; taste unknown potions when safe; go for a lone
monster close by; take the Cogheart on DL10; descend once ``>`` is known and the level
is mostly seen; ask the Oracle for the way down when it has the gold and no ``>`` is
known; kick a door that proved locked; walk to useful items and to the nearest frontier
(``travel`` to the edge of the known map, then a few moves past it); and when the level
seems closed, search its dead ends and the walls with unseen ground behind them.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

from playbench.games.cogcrawl.constants import (
    FAINTING,
    HUNGRY,
    ORACLE_FEE,
    PACK_LETTERS,
    WEAK,
)
from playbench.games.cogcrawl.dungeon import LAVA_DEPTH
from playbench.games.cogcrawl.glyphs import (
    COG,
    COGHEART,
    CORRIDOR,
    DIRECTION_OF,
    DIRECTIONS,
    DOOR_CLOSED,
    DOORS,
    FLOOR,
    GOLD,
    HEIGHT,
    ITEMS,
    STAIRS_DOWN,
    STAIRS_UP,
    UNSEEN,
    WALKABLE,
    WALLS,
    WIDTH,
)
from playbench.games.cogcrawl.items import ARMOURS, WEAPONS
from playbench.games.cogcrawl.protocol import (
    MACRO_PRIMITIVE_CAP,
    MAX_ACTIONS,
    MAX_NOTES,
    path_to,
    search,
)
from playbench.games.cogcrawl.state import PLAYING

Cell = tuple[int, int]

#: moves queued toward an adjacent monster (the queue stops when the cog is hit); the
#: second steps into its cell if the first kills it, and no further: beyond is unknown
ATTACK_MOVES = 2
#: a hostile monster this many steps away or nearer is gone for
CHASE_DISTANCE = 6
#: rest (search in place) while hit points are below this fraction of the maximum
REST_BELOW = 0.8
REST_SEARCHES = MAX_ACTIONS
#: take ``>`` only with at least this fraction of hit points (rest first)
DESCEND_ABOVE = 0.95
#: in a fight at or below this fraction: take stairs underfoot or one step away
ESCAPE_BELOW = 0.5
#: in a fight at or below this fraction: quaff healing
WOUNDED_BELOW = 0.35
#: go for a lone visible monster only with at least this fraction of hit points
CHASE_ABOVE = 0.8
#: at or below this fraction even an unidentified potion is worth the gamble
DESPERATE_BELOW = 0.2
#: quaff unidentified potions to learn them only when alone and this healthy
IDENTIFY_ABOVE = 0.6
#: moves past a frontier: out of a corridor's end, and out of a doorway or room edge.
#: From LAVA_DEPTH down, two blind moves from a corridor can reach a doorway and the
#: cell inside it, never further: lava lies only inside rooms and never beside a door.
CORRIDOR_MOVES_PAST = 2
CORRIDOR_MOVES_PAST_NO_LAVA = 6
DOOR_MOVES_PAST = 1
#: moves into a closed door: open it, step into the doorway, step out of it
DOOR_MOVES_THROUGH = 3
#: dungeon turns on one level after which a known ``>`` is taken even if unexplored
LEVEL_TURN_BUDGET = 900
#: a remembered item is worth this many extra steps over the nearest frontier
ITEM_DETOUR = 12
#: searches made at each spot of a closed level (a hidden thing shows on the third)
SEARCHES_PER_SPOT = 5
MIN_NEW_WALLS = 2
KICKS_PER_TURN = 5
KICKS_BEFORE_GIVING_UP = 40
ORACLE_ASKS = 2
PACK_SIZE = len(PACK_LETTERS)
HUNGRY_STATES = frozenset({HUNGRY, WEAK, FAINTING})
NO_KICKING = frozenset({WEAK, FAINTING})
COMPASS = {
    "north-east": "ne",
    "north-west": "nw",
    "south-east": "se",
    "south-west": "sw",
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
}
ORTHOGONAL = ("n", "s", "e", "w")
IDENTIFIED_POTION = "potion of"
MAPPED = "map coalesces"
DOORWAY = "doorway"
STOOD_BYTES = (WIDTH * HEIGHT + 7) // 8
ROW_MASK = (1 << WIDTH) - 1

_UNKNOWN = object()

WEAPON_POWER = {w.name: w.dice * (w.sides + 1) / 2 + w.bonus + w.to_hit / 2 for w in WEAPONS}
ARMOUR_CLASS = {a.name: a.ac for a in ARMOURS}


# -- the seat --------------------------------------------------------------------------


def delver_reply(observation: dict) -> dict:
    """The delver's reply object to one observation."""
    return Delver(observation).reply()


# -- notes -----------------------------------------------------------------------------


@dataclass
class Notes:
    """What the delver remembers between turns, about the current level."""

    level: int = 0
    arrived: int = 0
    #: one bit per cell the cog has stood on (so every cell around it has been seen)
    stood: bytearray = field(default_factory=lambda: bytearray(STOOD_BYTES))
    #: where the cog stood when it sent its last reply
    at: Cell | None = None
    #: closed doors that would not open
    given_up: list[Cell] = field(default_factory=list)
    bumped: Cell | None = None
    kicks: int = 0
    oracle: Cell | None = None
    answer: str = ""
    asked: int = 0
    sweep: int = 0
    tried: str = ""

    @classmethod
    def read(cls, text: object) -> Notes:
        """Notes from echoed text; anything unreadable is forgotten, never an error."""
        notes = cls()
        if not isinstance(text, str):
            return notes
        for token in text.split():
            key, value = token[:1], token[1:]
            try:
                if key == "L":
                    notes.level = int(value)
                elif key == "A":
                    notes.arrived = int(value)
                elif key == "V":
                    stood = base64.b64decode(value, validate=True)
                    if len(stood) == STOOD_BYTES:
                        notes.stood = bytearray(stood)
                elif key == "@":
                    notes.at = _cells(value)[0]
                elif key == "G":
                    notes.given_up = _cells(value)
                elif key == "B":
                    notes.bumped = _cells(value)[0]
                elif key == "K":
                    notes.kicks = int(value)
                elif key == "P":
                    notes.oracle = _cells(value)[0]
                elif key == "O" and value in DIRECTIONS:
                    notes.answer = value
                elif key == "Q":
                    notes.asked = int(value)
                elif key == "S":
                    notes.sweep = int(value)
                elif key == "E":
                    notes.tried = "".join(c for c in value if c.isalpha())
            except (ValueError, IndexError, binascii.Error):
                continue
        return notes

    def write(self) -> str:
        fixed = [f"L{self.level}", f"A{self.arrived}"]
        if self.at:
            fixed.append(f"@{_cell_text(self.at)}")
        fixed.append("V" + base64.b64encode(self.stood).decode("ascii"))
        if self.bumped:
            fixed += [f"B{_cell_text(self.bumped)}", f"K{self.kicks}"]
        if self.oracle:
            fixed.append(f"P{_cell_text(self.oracle)}")
        if self.answer:
            fixed.append(f"O{self.answer}")
        if self.asked:
            fixed.append(f"Q{self.asked}")
        if self.sweep:
            fixed.append(f"S{self.sweep}")
        if self.tried:
            fixed.append(f"E{self.tried}")
        given_up = list(self.given_up)
        while True:
            text = " ".join(
                fixed + (["G" + "/".join(map(_cell_text, given_up))] if given_up else [])
            )
            if len(text) <= MAX_NOTES:
                return text
            given_up.pop(0)

    def stand(self, cell: Cell) -> None:
        index = cell[1] * WIDTH + cell[0]
        self.stood[index >> 3] |= 1 << (index & 7)

    def has_stood(self, cell: Cell) -> bool:
        index = cell[1] * WIDTH + cell[0]
        return bool(self.stood[index >> 3] >> (index & 7) & 1)


def _cells(text: str) -> list[Cell]:
    cells = []
    for part in text.split("/"):
        x, y = part.split(",")
        cells.append((int(x), int(y)))
    return cells


def _cell_text(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


# -- the plan --------------------------------------------------------------------------


class Delver:
    """One turn's thinking: read the observation, choose the reply."""

    def __init__(self, observation: dict) -> None:
        self.obs = observation
        status = observation["status"]
        self.dl: int = status["dl"]
        self.hp: int = status["hp"]
        self.max_hp: int = max(1, status["max_hp"])
        self.gold: int = status["gold"]
        self.hunger: str = status["hunger"]
        self.wielded: str | None = status.get("wielded")
        self.worn: str | None = status.get("worn")
        position = observation["position"]
        self.pos: Cell = (position["x"], position["y"])
        self.hostiles: list[Cell] = []
        self.oracle: Cell | None = None
        for monster in observation["monsters"]:
            cell = (monster["x"], monster["y"])
            if monster["peaceful"]:
                if monster["glyph"] == COG:
                    self.oracle = cell
            else:
                self.hostiles.append(cell)
        self.monster_cells = set(self.hostiles)
        if self.oracle:
            self.monster_cells.add(self.oracle)
        self.memory = self._terrain(observation)
        self.pack: list[dict] = observation["pack"]
        self.notes = Notes.read(observation.get("notes"))
        # a letter whose item has left the pack may come back on something new
        letters = {thing["letter"] for thing in self.pack}
        tried = "".join(letter for letter in self.notes.tried if letter in letters)
        self.notes.tried = tried
        if self.notes.level != self.dl:
            self.notes = Notes(level=self.dl, arrived=observation["dungeon_turn"], tried=tried)
        self._tree: dict | None = None
        interrupted = observation["last_plan"].get("interrupted") or ""
        words = interrupted.split()
        self.blocked_diagonal = (
            words[1] if len(words) > 2 and words[0] == "move" and DOORWAY in interrupted else None
        )
        self._frontier_found: object = _UNKNOWN

    # -- the reply ---------------------------------------------------------------------
    def reply(self) -> dict:
        if self.obs["run"]["state"] != PLAYING:
            return self._answer([{"do": "wait"}], "the run is over")
        self._remember()
        for rule in (
            self._fight,
            self._eat,
            self._rest,
            self._pick_up,
            self._equip,
            self._identify,
            self._chase,
            self._cogheart,
            self._descend,
            self._ask_oracle,
            self._kick_locked_door,
            self._explore,
            self._sweep,
        ):
            chosen = rule()
            if chosen is not None:
                actions, say = chosen
                return self._answer(actions, say)
        return self._answer([{"do": "search"}], "nothing left to try here")

    def _answer(self, actions: list[dict], say: str) -> dict:
        return {"actions": actions, "say": say, "notes": self.notes.write()}

    # -- memory ------------------------------------------------------------------------
    @staticmethod
    def _terrain(observation: dict) -> list[str]:
        """The remembered map without creatures: the cog's cell shows what is underfoot;
        a monster's cell is taken for floor."""
        rows = [list(row) for row in observation["map"]]
        x, y = observation["position"]["x"], observation["position"]["y"]
        rows[y][x] = observation.get("terrain_underfoot") or FLOOR
        for monster in observation["monsters"]:
            rows[monster["y"]][monster["x"]] = FLOOR
        return ["".join(row) for row in rows]

    def _remember(self) -> None:
        notes = self.notes
        if self.oracle:
            notes.oracle = self.oracle
        for message in self.obs["messages"]:
            answer = _compass_in(message)
            if answer:
                notes.answer = answer
        self._retrace()
        notes.at = self.pos
        if notes.bumped and self._glyph(notes.bumped) != DOOR_CLOSED:
            notes.bumped, notes.kicks = None, 0

    def _retrace(self) -> None:
        """Mark where the cog stood: here, and along last turn's moves when they replay
        from where it stood then to where it stands now (an attack or a door opened in
        the way makes the replay miss, and then only here is marked). Then work out,
        one bit per cell and row, which cells it has stood next to (looked at)."""
        notes = self.notes
        walked = []
        here = notes.at
        if here is not None:
            for primitive in self.obs["last_plan"]["executed"]:
                direction = primitive.get("dir")
                if primitive.get("do") != "move" or direction not in DIRECTIONS:
                    continue
                there = _step(here, direction)
                if self._glyph(there) in WALKABLE:
                    here = there
                    walked.append(here)
        if here == self.pos:
            for cell in walked:
                notes.stand(cell)
        notes.stand(self.pos)
        if any(MAPPED in message for message in self.obs["messages"]):
            notes.stood = bytearray(b"\xff" * STOOD_BYTES)
        stood = int.from_bytes(notes.stood, "little")
        rows = [(stood >> (y * WIDTH)) & ROW_MASK for y in range(HEIGHT)]
        spread = [(row | row << 1 | row >> 1) & ROW_MASK for row in rows]
        self._looked = [
            spread[y] | (spread[y - 1] if y else 0) | (spread[y + 1] if y + 1 < HEIGHT else 0)
            for y in range(HEIGHT)
        ]

    def _glyph(self, cell: Cell) -> str:
        x, y = cell
        if 0 <= x < WIDTH and 0 <= y < HEIGHT:
            return self.memory[y][x]
        return UNSEEN

    @property
    def tree(self) -> dict:
        """Everything reachable now by single moves (cells in order of distance)."""
        if self._tree is None:
            self._tree, _ = search(self.memory, self.pos, self.monster_cells, cut_corners=True)
        return self._tree

    def _path(self, cell: Cell) -> list[str] | None:
        if cell == self.pos:
            return []
        if cell not in self.tree:
            return None
        return path_to(self.tree, self.pos, cell)

    def _route(self, path: list[str]) -> list[dict]:
        """Actions that walk ``path``: travel between corners, a single move around each
        wall corner (travel never cuts one; a move may)."""
        actions: list[dict] = []
        here = leg_start = self.pos
        for direction in path:
            there = _step(here, direction)
            dx, dy = DIRECTIONS[direction]
            corner = (
                dx
                and dy
                and not (
                    self._glyph((here[0] + dx, here[1])) in WALKABLE
                    and self._glyph((here[0], here[1] + dy)) in WALKABLE
                )
            )
            if corner:
                if here != leg_start:
                    actions.append({"do": "travel", "x": here[0], "y": here[1]})
                actions.append({"do": "move", "dir": direction})
                leg_start = there
            here = there
        if here != leg_start:
            actions.append({"do": "travel", "x": here[0], "y": here[1]})
        return actions

    def _walk_then(self, cell: Cell, then: list[dict]) -> list[dict] | None:
        """Walk to ``cell`` and then do ``then`` (only if the walk gets all the way)."""
        path = self._path(cell)
        if path is None:
            return None
        arrived = len(path) <= MACRO_PRIMITIVE_CAP
        actions = self._route(path[:MACRO_PRIMITIVE_CAP])
        if arrived and len(actions) + len(then) <= MAX_ACTIONS:
            actions += then
        return actions[:MAX_ACTIONS] or then[:MAX_ACTIONS]

    # -- the rules of thumb ------------------------------------------------------------
    def _fight(self) -> tuple[list[dict], str] | None:
        adjacent = [m for m in self.hostiles if _chebyshev(m, self.pos) == 1]
        if not adjacent:
            return None
        if self.hp <= self.max_hp * ESCAPE_BELOW:
            escape = self._escape()
            if escape is not None:
                return escape, "escaping by the stairs"
        actions = []
        if self.hp <= self.max_hp * WOUNDED_BELOW:
            potion = self._potion(self.hp <= self.max_hp * DESPERATE_BELOW)
            if potion:
                actions.append({"do": "quaff", "item": potion})
        adjacent.sort(key=lambda m: not self._can_hit(m))
        target = adjacent[0]
        direction = DIRECTION_OF[(target[0] - self.pos[0], target[1] - self.pos[1])]
        if not self._can_hit(target):
            side = self._side_step(target)
            if side is None:
                return None
            return [*actions, {"do": "move", "dir": side}], "stepping round to face it"
        actions += [{"do": "move", "dir": direction}] * ATTACK_MOVES
        return actions, f"fighting the monster to the {direction}"

    def _escape(self) -> list[dict] | None:
        """Stairs within reach, taken to leave the fight behind (monsters never follow):
        ``>`` (which is progress too) before ``<`` (never out of the dungeon)."""
        exits = [(STAIRS_DOWN, "down")] + ([(STAIRS_UP, "up")] if self.dl > 1 else [])
        for glyph, verb in exits:
            if self.obs.get("terrain_underfoot") == glyph:
                return [{"do": verb}]
            for direction in DIRECTIONS:
                cell = _step(self.pos, direction)
                path = self._path(cell)
                if self._glyph(cell) == glyph and path is not None and len(path) == 1:
                    return [{"do": "move", "dir": path[0]}, {"do": verb}]
        return None

    def _can_hit(self, monster: Cell) -> bool:
        """Whether a move from here reaches ``monster``: not diagonally through a doorway,
        seen on the map or learnt from last turn's failed move (a monster hides the door
        it stands in)."""
        direction = DIRECTION_OF[(monster[0] - self.pos[0], monster[1] - self.pos[1])]
        return direction != self.blocked_diagonal and self._diagonal_ok(self.pos, monster)

    def _diagonal_ok(self, here: Cell, there: Cell) -> bool:
        """True if the step is orthogonal, or diagonal with no doorway at either end."""
        if here[0] == there[0] or here[1] == there[1]:
            return True
        return self._glyph(here) not in DOORS and self._glyph(there) not in DOORS

    def _side_step(self, target: Cell) -> str | None:
        for direction in ORTHOGONAL:
            cell = _step(self.pos, direction)
            if (
                _chebyshev(cell, target) == 1
                and (cell[0] == target[0] or cell[1] == target[1])
                and self._glyph(cell) in WALKABLE
                and cell not in self.monster_cells
            ):
                return direction
        return None

    def _potion(self, gamble: bool) -> str | None:
        """A healing potion's letter; with ``gamble``, else an unidentified one's."""
        potions = [p for p in self.pack if p["kind"] == "potion"]
        for potion in potions:
            if "healing" in potion["name"]:
                return potion["letter"]
        unknown = self._unidentified(potions)
        return unknown[0]["letter"] if gamble and unknown else None

    @staticmethod
    def _unidentified(potions: list[dict]) -> list[dict]:
        return [p for p in potions if not p["name"].startswith(IDENTIFIED_POTION)]

    def _identify(self) -> tuple[list[dict], str] | None:
        if self.hostiles or self.hp < self.max_hp * IDENTIFY_ABOVE:
            return None
        unknown = self._unidentified([p for p in self.pack if p["kind"] == "potion"])
        if not unknown:
            return None
        return [{"do": "quaff", "item": unknown[0]["letter"]}], "tasting an unknown potion"

    def _eat(self) -> tuple[list[dict], str] | None:
        if self.hunger not in HUNGRY_STATES:
            return None
        food = [p for p in self.pack if p["kind"] == "food"]
        if not food:
            return None
        return [{"do": "eat", "item": food[0]["letter"]}], f"eating the {food[0]['name']}"

    def _rest(self) -> tuple[list[dict], str] | None:
        if self.hostiles or self.hp >= self.max_hp * REST_BELOW:
            return None
        if self.hunger in HUNGRY_STATES:
            return None
        return self._rest_on_stairs(), "resting until I feel better"

    def _pick_up(self) -> tuple[list[dict], str] | None:
        underfoot = self.obs.get("underfoot") or []
        if any(self._wanted(thing["glyph"], thing["name"]) for thing in underfoot):
            return [{"do": "pickup"}], "picking up " + underfoot[0]["name"]
        return None

    def _wanted(self, glyph: str, name: str) -> bool:
        if glyph in (GOLD, COGHEART):
            return True
        if len(self.pack) >= PACK_SIZE:
            return False
        if name in WEAPON_POWER:
            return WEAPON_POWER[name] > WEAPON_POWER.get(self.wielded or "", 0)
        if name in ARMOUR_CLASS:
            return ARMOUR_CLASS[name] > ARMOUR_CLASS.get(self.worn or "", 0)
        return glyph in ITEMS

    def _equip(self) -> tuple[list[dict], str] | None:
        for thing in self.pack:
            letter, name = thing["letter"], thing["name"]
            if letter in self.notes.tried or thing.get("wielded") or thing.get("worn"):
                continue
            if thing["kind"] == "weapon" and WEAPON_POWER.get(name, 0) > WEAPON_POWER.get(
                self.wielded or "", 0
            ):
                self.notes.tried += letter
                return [{"do": "wield", "item": letter}], f"wielding the {name}"
            if thing["kind"] == "armour" and ARMOUR_CLASS.get(name, 0) > ARMOUR_CLASS.get(
                self.worn or "", 0
            ):
                self.notes.tried += letter
                return [{"do": "wear", "item": letter}], f"wearing the {name}"
        return None

    def _chase(self) -> tuple[list[dict], str] | None:
        if len(self.hostiles) != 1 or self.hp < self.max_hp * CHASE_ABOVE:
            return None
        if _chebyshev(self.hostiles[0], self.pos) == 1:
            return None
        best = None
        for target in self.hostiles:
            for direction in DIRECTIONS:
                cell = _step(target, direction)
                path = self._path(cell) if cell not in self.monster_cells else None
                if path is None or len(path) > CHASE_DISTANCE:
                    continue
                if len(direction) == 2 and not self._diagonal_ok(cell, target):
                    continue
                if best is None or len(path) < len(best[0]):
                    back = DIRECTION_OF[(target[0] - cell[0], target[1] - cell[1])]
                    best = (path, cell, back)
        if best is None:
            return None
        _, cell, back = best
        actions = self._walk_then(cell, [{"do": "move", "dir": back}] * ATTACK_MOVES)
        return actions, "going for the monster"

    def _cogheart(self) -> tuple[list[dict], str] | None:
        for thing in self.obs["items"]:
            if thing["glyph"] == COGHEART:
                actions = self._walk_then((thing["x"], thing["y"]), [{"do": "pickup"}])
                if actions:
                    return actions, "the Cogheart!"
        return None

    def _stairs(self, glyph: str = STAIRS_DOWN) -> Cell | None:
        for y, row in enumerate(self.memory):
            x = row.find(glyph)
            if x >= 0:
                return (x, y)
        return None

    def _rest_on_stairs(self) -> list[dict]:
        """Search in place to heal, on stairs when they are near: a monster that comes
        along can then be left behind (see :meth:`_escape`)."""
        rest = [{"do": "search"}] * REST_SEARCHES
        for stairs in (self._stairs(), self._stairs(STAIRS_UP) if self.dl > 1 else None):
            path = self._path(stairs) if stairs else None
            if path is not None and len(path) <= MACRO_PRIMITIVE_CAP:
                return self._walk_then(stairs, rest[: MAX_ACTIONS - len(self._route(path))])
        return rest

    def _descend(self) -> tuple[list[dict], str] | None:
        stairs = self._stairs()
        if stairs is None or self._path(stairs) is None:
            return None
        if self.hp < self.max_hp * DESCEND_ABOVE and not self.hostiles:
            return self._rest_on_stairs(), "resting before the stairs"
        starving = self.hunger in HUNGRY_STATES and not any(p["kind"] == "food" for p in self.pack)
        long_here = self.obs["dungeon_turn"] - self.notes.arrived > LEVEL_TURN_BUDGET
        if not (starving or long_here or self._frontier() is None):
            return None
        return self._walk_then(stairs, [{"do": "down"}]), "down the stairs"

    def _ask_oracle(self) -> tuple[list[dict], str] | None:
        notes = self.notes
        if (
            notes.answer
            or notes.oracle is None
            or notes.asked >= ORACLE_ASKS
            or self.gold < ORACLE_FEE
            or self._stairs() is not None
        ):
            return None
        oracle = notes.oracle
        best = None
        for direction in DIRECTIONS:
            cell = _step(oracle, direction)
            path = self._path(cell) if self._glyph(cell) in WALKABLE else None
            if path is not None and (best is None or len(path) < best[0]):
                best = (len(path), cell)
        if best is None:
            return None
        cell = best[1]
        chat = {"do": "chat", "dir": DIRECTION_OF[(oracle[0] - cell[0], oracle[1] - cell[1])]}
        actions = self._walk_then(cell, [chat])
        if chat in actions:
            notes.asked += 1
        return actions, "asking the Oracle the way down"

    def _kick_locked_door(self) -> tuple[list[dict], str] | None:
        notes = self.notes
        door = notes.bumped
        if door is None or _chebyshev(door, self.pos) != 1:
            return None
        direction = DIRECTION_OF[(door[0] - self.pos[0], door[1] - self.pos[1])]
        last_plan = self.obs["last_plan"]
        executed = last_plan["executed"]
        kicked = bool(executed) and executed[-1] == {"do": "kick", "dir": direction}
        if not kicked and "locked" not in (last_plan.get("interrupted") or ""):
            return None
        if (
            len(direction) == 2
            or self.hunger in NO_KICKING
            or notes.kicks >= KICKS_BEFORE_GIVING_UP
        ):
            notes.given_up.append(door)
            notes.bumped, notes.kicks = None, 0
            return None
        notes.kicks += KICKS_PER_TURN
        actions = [{"do": "kick", "dir": direction}] * KICKS_PER_TURN
        return actions, "kicking the locked door"

    def _explore(self) -> tuple[list[dict], str] | None:
        frontier = self._frontier()
        item = self._nearest_item()
        if item is not None and (frontier is None or item[1] <= frontier[1] + ITEM_DETOUR):
            cell = item[0]
            return self._walk_then(cell, [{"do": "pickup"}]), "fetching an item"
        if frontier is None:
            return None
        cell, _, heading, count = frontier
        door = _step(cell, heading)
        if self._glyph(door) == DOOR_CLOSED:
            self.notes.bumped, self.notes.kicks = door, 0
        then = [{"do": "move", "dir": heading}] * count
        return self._walk_then(cell, then), "exploring"

    def _frontier(self) -> tuple[Cell, int, str, int] | None:
        """The nearest edge of the known map: (cell, distance, heading, moves past).

        The cell is where to travel; the moves past go ``heading`` from there (into the
        unseen, or into a closed door to open it and walk through).
        """
        if self._frontier_found is _UNKNOWN:
            found = None
            given_up = set(self.notes.given_up)
            for cell in (self.pos, *self.tree):
                edge = self._frontier_at(cell, given_up)
                if edge is not None:
                    heading, count = edge
                    found = (cell, len(self._path(cell) or []), heading, count)
                    break
            self._frontier_found = found
        return self._frontier_found

    def _frontier_at(self, cell: Cell, given_up: set[Cell]) -> tuple[str, int] | None:
        """(heading, moves past) if ``cell`` is an edge of the known map worth a visit:
        beside a closed door to somewhere out of reach, or beside never-seen cells."""
        for direction in ORTHOGONAL:
            door = _step(cell, direction)
            beyond = _step(door, direction)
            if (
                self._glyph(door) == DOOR_CLOSED
                and door not in given_up
                and beyond != self.pos
                and beyond not in self.tree
            ):
                return direction, DOOR_MOVES_THROUGH
        return self._edge_at(cell)

    def _edge_at(self, cell: Cell) -> tuple[str, int] | None:
        """(heading, moves past) if a never-looked-at unseen cell lies orthogonally next to
        ``cell``; a corridor's continuation is looked for straight ahead first."""
        if self._glyph(cell) == CORRIDOR:
            heading = self._unseen_side(cell, self._corridor_heading(cell))
            blind = CORRIDOR_MOVES_PAST if self.dl >= LAVA_DEPTH else CORRIDOR_MOVES_PAST_NO_LAVA
            return (heading, blind) if heading else None
        heading = self._unseen_side(cell, None)
        return (heading, DOOR_MOVES_PAST) if heading else None

    def _corridor_heading(self, cell: Cell) -> str | None:
        for direction in ORTHOGONAL:
            if _walkable_or_door(self._glyph(_step(cell, direction))):
                return _opposite(direction)
        return None

    def _unseen_side(self, cell: Cell, prefer: str | None) -> str | None:
        """An orthogonal direction from ``cell`` into unseen cells, ``prefer`` first."""
        order = ((prefer,) if prefer else ()) + ORTHOGONAL
        for direction in order:
            nx, ny = _step(cell, direction)
            if (
                0 <= nx < WIDTH
                and 0 <= ny < HEIGHT
                and self.memory[ny][nx] == UNSEEN
                and not self._looked[ny] >> nx & 1
            ):
                return direction
        return None

    def _nearest_item(self) -> tuple[Cell, int] | None:
        best = None
        for thing in self.obs["items"]:
            cell = (thing["x"], thing["y"])
            if cell == self.pos or not self._wanted(thing["glyph"], thing["name"]):
                continue
            path = self._path(cell)
            if path is not None and (best is None or len(path) < best[1]):
                best = (cell, len(path))
        return best

    def _sweep(self) -> tuple[list[dict], str] | None:
        """Search the closed level: dead ends first, then spots along unexplored walls."""
        spots = sorted(self._dead_ends(), key=_row_major)
        spots += self._wall_spots()
        if not spots:
            return None
        if self.notes.answer and self._stairs() is None:
            # the Oracle's direction first: spots furthest that way from the cog lead
            dx, dy = DIRECTIONS[self.notes.answer]
            spots.sort(key=lambda c: -((c[0] - self.pos[0]) * dx + (c[1] - self.pos[1]) * dy))
        spot = spots[self.notes.sweep % len(spots)]
        self.notes.sweep += 1
        searches = [{"do": "search"}] * SEARCHES_PER_SPOT
        return self._walk_then(spot, searches), "searching for a hidden way on"

    def _dead_ends(self) -> list[Cell]:
        """Corridor cells the cog stood on with at most one way on."""
        ends = []
        for cell in (self.pos, *self.tree):
            if self._glyph(cell) == CORRIDOR and self.notes.has_stood(cell):
                ways = sum(1 for d in ORTHOGONAL if _walkable_or_door(self._glyph(_step(cell, d))))
                if ways <= 1:
                    ends.append(cell)
        return ends

    def _wall_spots(self) -> list[Cell]:
        """Reachable floor cells beside walls whose far side is unseen, a few apart: in
        row-major order, a cell that searches at least MIN_NEW_WALLS walls not yet
        searched from an earlier one (so the set does not depend on where the cog is)."""
        spots: list[Cell] = []
        covered: set[Cell] = set()
        for cell in sorted(self.tree, key=_row_major):
            if self._glyph(cell) != FLOOR:
                continue
            walls = {
                wall
                for wall in (_step(cell, d) for d in DIRECTIONS)
                if self._glyph(wall) in WALLS and self._outside_unseen(wall)
            }
            if len(walls - covered) >= MIN_NEW_WALLS:
                spots.append(cell)
                covered |= walls
        return spots

    def _outside_unseen(self, wall: Cell) -> bool:
        return any(self._glyph(_step(wall, d)) == UNSEEN for d in ORTHOGONAL)


# -- helpers ---------------------------------------------------------------------------


def _step(cell: Cell, direction: str) -> Cell:
    dx, dy = DIRECTIONS[direction]
    return cell[0] + dx, cell[1] + dy


def _opposite(direction: str) -> str:
    dx, dy = DIRECTIONS[direction]
    return DIRECTION_OF[(-dx, -dy)]


def _chebyshev(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _row_major(cell: Cell) -> tuple[int, int]:
    return cell[1], cell[0]


def _walkable_or_door(glyph: str) -> bool:
    return glyph in WALKABLE or glyph in DOORS


def _compass_in(message: str) -> str | None:
    """The direction an Oracle's answer names ("... lie to the south-east.")."""
    text = message.lower()
    if "stairs" not in text:
        return None
    for word, direction in COMPASS.items():
        if word in text:
            return direction
    return None
