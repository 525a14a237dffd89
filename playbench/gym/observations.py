"""Each game's observation space, a ``Dict`` of ``Box`` arrays, and its encoder.

An encoder reads only the game's public JSON observation (``Game.observe``), the same
object the env puts in ``info["observation"]``, so the arrays never hold more than a seat
may see. Integer arrays throughout; a board is its glyphs' character codes where the game
draws one in text.

Delvewick:
    ``board`` uint8 (40, 64): the character code of each glyph (``# % . O * G X E M`` and
    lowercase ``o v g`` for falling objects), top row first, placed at the top left;
    0 outside the level (levels are at most 40 x 64).
    ``mole`` int16 (2,): row and column of the mole, -1 -1 once crushed.
    ``stats`` int64 (9,): level, quota, gems collected, exit open (0/1), oil, tick, chain,
    score, status (0 playing, 1 won, 2 crushed, 3 out of oil, 4 boxed in).

Chimestep:
    ``tiles`` int8 (7, 7): row r holds the levels of its r+1 tiles in columns 0..r; -1
    off the pyramid.
    ``hush`` int8 (7, 7): 0 none, 1 tumble, 2 stalker, 3 muffle awake; 4, 5, 6 dormant.
    ``chick`` int8 (2,): the chick's row and column.
    ``stats`` int64 (18,): status (0 waiting, 1 stageIntro, 2 playing, 3 recovering,
    4 stageClear, 5 done), stage, target, remaining, hopCooldown, bufferedHop (-1 none,
    else 0 upLeft, 1 upRight, 2 downLeft, 3 downRight), teeter direction (-1 none, as
    bufferedHop), teeter ticks, lives, chain, tollCharges, tollCooldown, shimmerTicks,
    stageHops, stageDamped, par, score, tick.

Gem Swap:
    ``colors`` int8 (8, 8): 0 R, 1 G, 2 B, 3 Y, 4 P, 5 O, 6 W, 7 colour bomb; row 1 first.
    ``kinds`` int8 (8, 8): 0 plain, 1 row blaster, 2 column blaster, 3 area bomb,
    4 colour bomb.
    ``stats`` int64 (4,): moves left, moves made, score (below 0 after hints bought with
    fewer than 50 points), selected cell (-1 none, else row * 8 + column).

Cogcrawl:
    ``map`` uint8 (18, 48): the character code of each cell of the drawn map (the
    remembered dungeon with the cog ``@`` and the monsters in view); 32 unseen.
    ``position`` int16 (2,): the cog's x and y.
    ``stats`` int64 (12,): DL, HP, max HP, XL, AC, gold, hunger (0 not hungry, 1 hungry,
    2 weak, 3 fainting), confused (0/1), turn, dungeon turn, score, deepest level.
    ``pack`` int8 (26,): what each pack letter a..z holds: 0 nothing, 1 gold, 2 food,
    3 potion, 4 weapon, 5 armour, 6 the Cogheart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from playbench.core.game import JSON
from playbench.games.chimestep.board import DIRECTION_INDEX as HOP_INDEX
from playbench.games.chimestep.board import TIERS
from playbench.games.chimestep.state import STATUSES as CHIMESTEP_STATUSES
from playbench.games.chimestep.tables import KIND_INDEX as HUSH_INDEX
from playbench.games.cogcrawl.constants import FAINTING, HUNGRY, NOT_HUNGRY, WEAK
from playbench.games.cogcrawl.glyphs import HEIGHT as COG_HEIGHT
from playbench.games.cogcrawl.glyphs import WIDTH as COG_WIDTH
from playbench.games.cogcrawl.items import CATEGORIES
from playbench.games.delvewick.levels import MAX_HEIGHT, MAX_WIDTH
from playbench.games.delvewick.levels import MOLE as MOLE_BYTE
from playbench.games.delvewick.state import STATUSES as DELVEWICK_STATUSES
from playbench.games.gemswap.board import CELL_INDEX as GEM_CELL_INDEX
from playbench.games.gemswap.board import (
    COLOR_BOMB,
    COLOR_BOMB_TOKEN,
    COLOR_LETTERS,
    KIND_SUFFIX,
    NO_COLOR,
    SIZE,
)

#: the largest counter a state carries (scores, ticks, turns): exact in every JSON reader
MAX_COUNT = 2**53
Observation = dict[str, np.ndarray]


@dataclass(frozen=True, slots=True)
class ObservationCodec:
    """A game's observation space and the function that fills it from the JSON view."""

    #: a new ``Dict`` space (each env owns its own, as it seeds it)
    space: Callable[[], spaces.Dict]
    encode: Callable[[JSON], Observation]


def _box(low: int, high: int, shape: tuple[int, ...], dtype: Any) -> spaces.Box:
    return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)


# -- Delvewick -------------------------------------------------------------------------------
MOLE_GLYPH = chr(MOLE_BYTE)
DELVEWICK_STATUS_CODES = {status: code for code, status in enumerate(DELVEWICK_STATUSES)}


def _delvewick(view: JSON) -> Observation:
    rows = view["board"]
    height, width = len(rows), len(rows[0])
    text = "".join(rows)
    board = np.zeros((MAX_HEIGHT, MAX_WIDTH), dtype=np.uint8)
    board[:height, :width] = np.frombuffer(text.encode(), dtype=np.uint8).reshape(height, width)
    at = text.find(MOLE_GLYPH)
    return {
        "board": board,
        "mole": np.array(divmod(at, width) if at >= 0 else (-1, -1), dtype=np.int16),
        "stats": np.array(
            (
                view["level"],
                view["quota"],
                view["gemsCollected"],
                view["exitOpen"],
                view["oil"],
                view["tick"],
                view["chain"],
                view["score"],
                DELVEWICK_STATUS_CODES[view["status"]],
            ),
            dtype=np.int64,
        ),
    }


DELVEWICK = ObservationCodec(
    lambda: spaces.Dict(
        {
            "board": _box(0, 127, (MAX_HEIGHT, MAX_WIDTH), np.uint8),
            "mole": _box(-1, max(MAX_HEIGHT, MAX_WIDTH) - 1, (2,), np.int16),
            "stats": _box(0, MAX_COUNT, (9,), np.int64),
        }
    ),
    _delvewick,
)


# -- Chimestep -------------------------------------------------------------------------------
NO_HOP = -1
DORMANT_SHIFT = len(HUSH_INDEX)


def _hop(name: str | None) -> int:
    return NO_HOP if name is None else HOP_INDEX[name]


def _chimestep(view: JSON) -> Observation:
    tiles = [-1] * (TIERS * TIERS)
    for row, levels in enumerate(view["tiles"]):
        tiles[row * TIERS : row * TIERS + row + 1] = levels
    hush = [0] * (TIERS * TIERS)
    for entry in view["hushCells"]:
        hush[entry["row"] * TIERS + entry["col"]] = HUSH_INDEX[entry["kind"]] + 1
    for entry in view["dormantHush"]:
        hush[entry["row"] * TIERS + entry["col"]] = HUSH_INDEX[entry["kind"]] + 1 + DORMANT_SHIFT
    position = view["position"]
    teeter = view["teeter"]
    stats = (
        CHIMESTEP_STATUSES.index(view["status"]),
        view["stage"],
        view["target"],
        view["remaining"],
        view["hopCooldown"],
        _hop(view["bufferedHop"]),
        NO_HOP if teeter is None else HOP_INDEX[teeter["dir"]],
        0 if teeter is None else teeter["ticks"],
        view["lives"],
        view["chain"],
        view["tollCharges"],
        view["tollCooldown"],
        view["shimmerTicks"],
        view["stageHops"],
        view["stageDamped"],
        view["par"],
        view["score"],
        view["tick"],
    )
    return {
        "tiles": np.array(tiles, dtype=np.int8).reshape(TIERS, TIERS),
        "hush": np.array(hush, dtype=np.int8).reshape(TIERS, TIERS),
        "chick": np.array((position["row"], position["col"]), dtype=np.int8),
        "stats": np.array(stats, dtype=np.int64),
    }


CHIMESTEP = ObservationCodec(
    lambda: spaces.Dict(
        {
            "tiles": _box(-1, 2, (TIERS, TIERS), np.int8),
            "hush": _box(0, 2 * DORMANT_SHIFT, (TIERS, TIERS), np.int8),
            "chick": _box(0, TIERS - 1, (2,), np.int8),
            "stats": _box(NO_HOP, MAX_COUNT, (18,), np.int64),
        }
    ),
    _chimestep,
)


# -- Gem Swap --------------------------------------------------------------------------------
#: every gem token -> (colour code, kind code)
GEM_CODES: dict[str, tuple[int, int]] = {
    letter + suffix: (color, kind)
    for color, letter in enumerate(COLOR_LETTERS)
    for kind, suffix in enumerate(KIND_SUFFIX)
} | {COLOR_BOMB_TOKEN: (NO_COLOR, COLOR_BOMB)}


#: every gem token -> its colour and kind codes as two characters, to read a board in C
GEM_CODE_TEXT = {token: chr(color) + chr(kind) for token, (color, kind) in GEM_CODES.items()}


def _gemswap(view: JSON) -> Observation:
    codes = GEM_CODE_TEXT
    text = "".join([codes[token] for row in view["board"] for token in row])
    both = np.frombuffer(text.encode("ascii"), dtype=np.int8).reshape(SIZE, SIZE, 2)
    selected = view["selected"]
    stats = (
        view["movesLeft"],
        view["movesMade"],
        view["score"],
        -1 if selected is None else GEM_CELL_INDEX[selected],
    )
    return {
        "colors": both[:, :, 0].copy(),
        "kinds": both[:, :, 1].copy(),
        "stats": np.array(stats, dtype=np.int64),
    }


GEMSWAP = ObservationCodec(
    lambda: spaces.Dict(
        {
            "colors": _box(0, NO_COLOR, (SIZE, SIZE), np.int8),
            "kinds": _box(0, COLOR_BOMB, (SIZE, SIZE), np.int8),
            "stats": spaces.Box(
                low=np.array([0, 0, -MAX_COUNT, -1]), high=MAX_COUNT, shape=(4,), dtype=np.int64
            ),
        }
    ),
    _gemswap,
)


# -- Cogcrawl --------------------------------------------------------------------------------
HUNGER_CODES = {NOT_HUNGRY: 0, HUNGRY: 1, WEAK: 2, FAINTING: 3}
PACK_CODES = {kind: code for code, kind in enumerate(CATEGORIES, start=1)}
PACK_SIZE = 26
#: HP and AC can go below zero: the counters' floor
COUNTER_FLOOR = -(2**31)


def _cogcrawl(view: JSON) -> Observation:
    drawn = "".join(view["map"]).encode()
    status = view["status"]
    position = view["position"]
    run = view["run"]
    pack = np.zeros(PACK_SIZE, dtype=np.int8)
    for entry in view["pack"]:
        pack[ord(entry["letter"]) - ord("a")] = PACK_CODES[entry["kind"]]
    stats = (
        status["dl"],
        status["hp"],
        status["max_hp"],
        status["xl"],
        status["ac"],
        status["gold"],
        HUNGER_CODES[status["hunger"]],
        int(status["confused"]),
        view["turn"],
        view["dungeon_turn"],
        run["score"],
        run["deepest"],
    )
    return {
        "map": np.frombuffer(drawn, dtype=np.uint8).reshape(COG_HEIGHT, COG_WIDTH).copy(),
        "position": np.array((position["x"], position["y"]), dtype=np.int16),
        "stats": np.array(stats, dtype=np.int64),
        "pack": pack,
    }


COGCRAWL = ObservationCodec(
    lambda: spaces.Dict(
        {
            "map": _box(0, 127, (COG_HEIGHT, COG_WIDTH), np.uint8),
            "position": _box(0, COG_WIDTH - 1, (2,), np.int16),
            "stats": _box(COUNTER_FLOOR, MAX_COUNT, (12,), np.int64),
            "pack": _box(0, len(CATEGORIES), (PACK_SIZE,), np.int8),
        }
    ),
    _cogcrawl,
)

CODECS: dict[str, ObservationCodec] = {
    "delvewick": DELVEWICK,
    "chimestep": CHIMESTEP,
    "gem-swap": GEMSWAP,
    "cogcrawl": COGCRAWL,
}
