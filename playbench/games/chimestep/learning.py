"""Chimestep for learning doors: 12 actions, the pyramid as category planes, its picture.

Actions (12): ``start``; ``hop upLeft``, ``hop upRight``, ``hop downLeft``,
``hop downRight``; ``toll``; ``tick 1``, ``tick 2``, ``tick 4``, ``tick 8``, ``tick 16``,
``tick 30`` (a tick is legal whenever the game takes a tick, at every count).

Observation (row r of a 7 x 7 plane holds the r + 1 tiles of tier r in columns 0..r):
    ``tiles`` uint8 (7, 7): 0 off the pyramid, else the tile's level + 1 (1..3).
    ``hush`` uint8 (7, 7): 0 none, 1 tumble, 2 stalker, 3 muffle, 4..6 the same dormant.
    ``chick`` uint8 (2,): the chick's row and column.
    ``stats`` float32 (14,), each in 0..1: status / 5 (waiting, stageIntro, playing,
    recovering, stageClear, done), stage / 30 (at most 1), target - 1, remaining / 28,
    hop cooldown / 4, buffered hop (0 none, else 1 + upLeft, upRight, downLeft, downRight)
    / 4, teeter direction (the same) / 4, teeter ticks / 12, lives / 5 (at most 1),
    chain / 10, toll charges / 2, toll cooldown / 24, shimmer ticks / 36, hops this stage
    / par (at most 1).

Tiles: the 7 x 7 plane in colours: tiles by level, a Hush over its tile, the chick on top.

Seed: the game seed makes where and when each Hush enters and where it goes (every
draw of the run, stage after stage); the pyramid and the stage targets are the same for
every seed.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from playbench.core.game import Action
from playbench.core.learning import ActionTable, Array
from playbench.core.palette import read_palette, rgb
from playbench.games.chimestep.board import CELLS, DIRECTIONS, TIERS, TILE_COUNT
from playbench.games.chimestep.state import (
    DONE,
    H_DORMANT,
    H_KIND,
    H_TILE,
    HUSH_FIELDS,
    PLAYING,
    STATUSES,
    WAITING,
    State,
)
from playbench.games.chimestep.tables import (
    CHAIN_CAP,
    HOP_COOLDOWN,
    KINDS,
    MAX_CHARGES,
    SHIMMER_TICKS,
    TEETER_TICKS,
    TOLL_COOLDOWN,
    par_for,
)

#: the tick counts the enumeration offers (the hop cooldown is 4 ticks)
TICK_COUNTS = (1, 2, 4, 8, 16, 30)
TILE_CATEGORIES = 4
HUSH_CATEGORIES = 2 * len(KINDS) + 1
STAGE_SCALE = 30
LIVES_SCALE = 5
#: each tile's place in a flattened 7 x 7 plane
PLACE = np.array([row * TIERS + col for row, col in CELLS], dtype=np.intp)
CELL = 40


def _key(action: Action) -> Hashable:
    """A tick of any count has the key of the game's legal ``{"type": "tick"}``."""
    return action["type"], action.get("dir")


def _actions() -> list[Action]:
    actions: list[Action] = [{"type": "start"}]
    actions += [{"type": "hop", "dir": name} for name in DIRECTIONS]
    actions.append({"type": "toll"})
    actions += [{"type": "tick", "count": count} for count in TICK_COUNTS]
    return actions


ACTIONS = ActionTable.of(_actions(), _key)


def arrays(options: Mapping[str, Any] | None) -> dict[str, Array]:
    return {
        "tiles": Array((TIERS, TIERS), "uint8", 0, TILE_CATEGORIES - 1, TILE_CATEGORIES),
        "hush": Array((TIERS, TIERS), "uint8", 0, HUSH_CATEGORIES - 1, HUSH_CATEGORIES),
        "chick": Array((2,), "uint8", 0, TIERS - 1),
        "stats": Array((14,), "float32", 0.0, 1.0),
    }


def _hush_codes(state: State) -> list[tuple[int, int]]:
    """(tile, code) of every Hush: 1 + kind awake, 1 + kinds + kind dormant."""
    found = state.hush
    return [
        (found[at + H_TILE], found[at + H_KIND] + 1 + (len(KINDS) if found[at + H_DORMANT] else 0))
        for at in range(0, len(found), HUSH_FIELDS)
    ]


#: where each cell of the two 7 x 7 planes reads the bytes ``_planes`` joins: the tiles'
#: codes, then the Hush codes, then one 0 (every cell off the pyramid)
_OFF = 2 * TILE_COUNT
_GATHER = np.full((2, TIERS * TIERS), _OFF, dtype=np.intp)
_GATHER[0, PLACE] = np.arange(TILE_COUNT)
_GATHER[1, PLACE] = np.arange(TILE_COUNT, 2 * TILE_COUNT)
_GATHER = _GATHER.reshape(2, TIERS, TIERS)
#: a tile's level -> its code (level + 1)
_TILE_CODES = bytes((level + 1) % 256 for level in range(256))
_NO_HUSH = bytes(TILE_COUNT + 1)
_LAST_STATUS = len(STATUSES) - 1


def _planes(state: State) -> bytes:
    """The tiles' codes and the Hush codes, tile by tile, and a 0: what ``_GATHER`` reads."""
    found = state.hush
    if not found:
        return state.tiles.translate(_TILE_CODES) + _NO_HUSH
    codes = bytearray(_NO_HUSH)
    for at in range(0, len(found), HUSH_FIELDS):
        dormant = len(KINDS) if found[at + H_DORMANT] else 0
        codes[found[at + H_TILE]] = found[at + H_KIND] + 1 + dormant
    return state.tiles.translate(_TILE_CODES) + codes


def _stats(state: State) -> tuple[float, ...]:
    tiles, target = state.tiles, state.target
    return (
        state.status / _LAST_STATUS,
        min(state.stage, STAGE_SCALE) / STAGE_SCALE,
        target - 1,
        sum(map(tiles.count, range(target))) / TILE_COUNT,
        state.cooldown / HOP_COOLDOWN,
        (state.buffered + 1) / len(DIRECTIONS),
        (state.teeter_dir + 1) / len(DIRECTIONS) if state.teeter else 0.0,
        state.teeter / TEETER_TICKS,
        min(state.lives, LIVES_SCALE) / LIVES_SCALE,
        min(state.chain, CHAIN_CAP) / CHAIN_CAP,
        state.charges / MAX_CHARGES,
        state.toll_cooldown / TOLL_COOLDOWN,
        state.shimmer / SHIMMER_TICKS,
        min(state.stage_hops / par_for(target), 1.0),
    )


#: the counters' bytes: the chick's row and column (uint8), two bytes of padding, then the
#: stats (float32)
COUNTERS = struct.Struct("=2B2x14f")
UINT8, FLOAT32 = np.dtype(np.uint8), np.dtype(np.float32)
_frombuffer = np.frombuffer


def encode(state: State, described: Mapping[str, Array]) -> dict[str, Any]:
    """Both planes from one gather of their bytes, the counters from one new buffer of
    their bytes."""
    planes = _frombuffer(_planes(state), UINT8)[_GATHER]
    counters = bytearray(COUNTERS.pack(*CELLS[state.position], *_stats(state)))
    return {
        "tiles": planes[0],
        "hush": planes[1],
        "chick": _frombuffer(counters, UINT8, 2, 0),
        "stats": _frombuffer(counters, FLOAT32, 14, 4),
    }


def encode_all(states: list[State], out: dict[str, Any]) -> None:
    """Every pyramid at once: the planes' bytes of all states laid end to end, one gather."""
    count = len(states)
    joined = np.frombuffer(b"".join([_planes(state) for state in states]), dtype=np.uint8)
    planes = joined.reshape(count, -1)[:, _GATHER]
    out["tiles"][...] = planes[:, 0]
    out["hush"][...] = planes[:, 1]
    out["chick"][:] = [CELLS[state.position] for state in states]
    out["stats"][:] = [_stats(state) for state in states]


#: the legal indices by status (playing: without and with the toll), as ``legal_actions``
#: gives them: the enumeration's start, hops, toll and every tick count
_START = (ACTIONS.indices[("start", None)][0],)
_HOPS = tuple(index for name in DIRECTIONS for index in ACTIONS.indices[("hop", name)])
_TOLL = ACTIONS.indices[("toll", None)]
_TICKS = ACTIONS.indices[("tick", None)]


def legal(state: State) -> tuple[int, ...]:
    status = state.status
    if status == PLAYING:
        if state.charges and not state.toll_cooldown:
            return _HOPS + _TOLL + _TICKS
        return _HOPS + _TICKS
    if status == WAITING:
        return _START
    if status == DONE:
        return ()
    return _TICKS


def status(state: State) -> str:
    return (
        f"stage {state.stage} lives {state.lives} left {state.remaining()} "
        f"score {state.score} {STATUSES[state.status]}"
    )


def paint(state: State) -> np.ndarray:
    """The pyramid, each tier centred under the one above: a tile in its level's colour, a
    Hush a square in its centre (grey while dormant), the chick a smaller one on top."""
    colours = read_palette(__package__)
    levels = [rgb(colour) for colour in colours["levels"]]
    hush_colours = [rgb(colours["hush"][kind]) for kind in KINDS]
    hush_colours += [rgb(colours["dormant"])] * len(KINDS)
    picture = np.empty((TIERS * CELL, TIERS * CELL, 3), dtype=np.uint8)
    picture[:] = rgb(colours["background"])

    def fill(tile: int, inset: int, colour: tuple[int, int, int]) -> None:
        row, col = CELLS[tile]
        top, left = row * CELL, (TIERS - 1 - row) * CELL // 2 + col * CELL
        picture[top + inset : top + CELL - 1 - inset, left + inset : left + CELL - 1 - inset] = (
            colour
        )

    for tile, level in enumerate(state.tiles):
        fill(tile, 0, levels[level])
    for tile, code in _hush_codes(state):
        fill(tile, CELL // 5, hush_colours[code - 1])
    fill(state.position, CELL // 3, rgb(colours["chick"]))
    return picture


def frame(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return TIERS * CELL, TIERS * CELL


def _tile_colours() -> np.ndarray:
    """Colour by code: the background (off the pyramid), the three tile levels, the Hush
    kinds awake then dormant, the chick last."""
    colours = read_palette(__package__)
    rows = [colours["background"], *colours["levels"]]
    rows += [colours["hush"][kind] for kind in KINDS] + [colours["dormant"]] * len(KINDS)
    rows.append(colours["chick"])
    return np.array([rgb(colour) for colour in rows], dtype=np.uint8)


TILE_COLOURS = _tile_colours()
#: a Hush code (1..) -> its row in ``TILE_COLOURS``, and the chick's row
_HUSH_ROW = TILE_CATEGORIES - 1
_CHICK_ROW = len(TILE_COLOURS) - 1


def tiles(state: State) -> np.ndarray:
    """The 7 x 7 plane of the observation (tier r in columns 0..r): a tile in its level's
    colour, a Hush in its own over it, the chick over both."""
    planes = _frombuffer(_planes(state), UINT8)[_GATHER]
    codes = np.where(planes[1] > 0, planes[1] + _HUSH_ROW, planes[0])
    row, col = CELLS[state.position]
    codes[row, col] = _CHICK_ROW
    return TILE_COLOURS[codes]


def tile_grid(options: Mapping[str, Any] | None) -> tuple[int, int]:
    return TIERS, TIERS
