"""Views of a Chimestep state: the public observation, the text board and the progress."""

from __future__ import annotations

from typing import Any

from playbench.games.chimestep.board import CELLS, DIRECTIONS, TIERS, TILE_COUNT, index
from playbench.games.chimestep.state import (
    DONE,
    H_DORMANT,
    H_KIND,
    H_TILE,
    HUSH_FIELDS,
    NO_DIRECTION,
    RECOVERING,
    STAGE_CLEAR,
    STAGE_INTRO,
    STATUSES,
    WAITING,
    State,
    direction_json,
    teeter_json,
    tile_json,
)
from playbench.games.chimestep.tables import APEX_START_LEVEL, KINDS, par_for

CHICK_MARK = "@"
EMPTY_MARK = "."
HUSH_MARKS = ("T", "S", "M")
CELL_GAP = " "
#: a tile is drawn as chick mark, level digit, Hush mark
CELL_WIDTH = 3
#: the phases that count down to play, as the clock line says them
PHASE_WORDS = {
    STAGE_INTRO: "get ready: play starts in",
    RECOVERING: "a life lost: play resumes in",
    STAGE_CLEAR: "stage clear: the next stage starts in",
}


# -- observation -----------------------------------------------------------------------------
def observe(state: State) -> dict[str, Any]:
    tiles = list(state.tiles)
    awake = []
    dormant = []
    found = state.hush
    for at in range(0, len(found), HUSH_FIELDS):
        row, col = CELLS[found[at + H_TILE]]
        entry = {"kind": KINDS[found[at + H_KIND]], "row": row, "col": col}
        if found[at + H_DORMANT]:
            entry["dormantTicks"] = found[at + H_DORMANT]
            dormant.append(entry)
        else:
            awake.append(entry)
    return {
        "status": STATUSES[state.status],
        "phaseTicks": state.phase_ticks if state.status in PHASE_WORDS else 0,
        "stage": state.stage,
        "target": state.target,
        "tiles": [tiles[index(row, 0) : index(row, 0) + row + 1] for row in range(TIERS)],
        "remaining": state.remaining(),
        "position": tile_json(state.position),
        "hopCooldown": state.cooldown,
        "bufferedHop": direction_json(state.buffered),
        "teeter": teeter_json(state),
        "lives": state.lives,
        "chain": state.chain,
        "tollCharges": state.charges,
        "tollCooldown": state.toll_cooldown,
        "shimmerTicks": state.shimmer,
        "hushCells": awake,
        "dormantHush": dormant,
        "stageHops": state.stage_hops,
        "stageDamped": state.stage_damped,
        "par": par_for(state.target),
        "score": state.score,
        "tick": state.tick,
    }


# -- text board ----------------------------------------------------------------------------------
def render(state: State) -> str:
    marks = [EMPTY_MARK] * TILE_COUNT
    found = state.hush
    for at in range(0, len(found), HUSH_FIELDS):
        mark = HUSH_MARKS[found[at + H_KIND]]
        marks[found[at + H_TILE]] = mark if not found[at + H_DORMANT] else mark.lower()
    lines = [
        f"Chimestep  stage {state.stage}  target {state.target}  {STATUSES[state.status]}",
        "",
    ]
    for row in range(TIERS):
        cells = []
        for col in range(row + 1):
            tile = index(row, col)
            chick = CHICK_MARK if tile == state.position else EMPTY_MARK
            cells.append(f"{chick}{state.tiles[tile]}{marks[tile]}")
        indent = " " * ((TIERS - 1 - row) * (CELL_WIDTH + len(CELL_GAP)) // 2)
        lines.append(indent + CELL_GAP.join(cells))
    lines += ["", _status_line(state), _clock_line(state)]
    lines.append(
        "each tile: chick @, level, Hush (T tumble, S stalker, M muffle; lower case dormant)"
    )
    return "\n".join(lines)


def _status_line(state: State) -> str:
    par = par_for(state.target)
    return (
        f"remaining {state.remaining()}  lives {state.lives}  score {state.score}  "
        f"chain {state.chain}  hops {state.stage_hops}/par {par}  damped {state.stage_damped}"
    )


def _clock_line(state: State) -> str:
    parts = [f"tick {state.tick}"]
    if state.status == WAITING:
        parts.append("send start to begin")
    elif state.status == DONE:
        parts.append("the run is over")
    elif state.status in PHASE_WORDS:
        parts.append(f"{PHASE_WORDS[state.status]} {state.phase_ticks} ticks")
    parts.append(f"hop ready in {state.cooldown}" if state.cooldown else "hop ready")
    if state.buffered != NO_DIRECTION:
        parts.append(f"buffered {DIRECTIONS[state.buffered]}")
    if state.teeter:
        parts.append(f"TEETER {DIRECTIONS[state.teeter_dir]} {state.teeter} (same hop leaps)")
    toll = "ready" if not state.toll_cooldown else f"in {state.toll_cooldown}"
    parts.append(f"toll {state.charges} charge(s), {toll}")
    if state.shimmer:
        parts.append(f"shimmer {state.shimmer}")
    return "  ".join(parts)


# -- progress -----------------------------------------------------------------------------------
#: the stage a run must reach for progress 1: the bar a strong player sets
PROGRESS_STAGES = 30
#: the share of stage 1 struck before the first action (the apex the arrival strikes),
#: which earns no progress
START_SHARE = APEX_START_LEVEL / TILE_COUNT


def progress(state: State) -> float:
    """Stages cleared plus the current stage's share of the levels still to strike, less
    the apex struck at the start, over ``PROGRESS_STAGES`` less that same share: 0 at the
    start, 1 from stage ``PROGRESS_STAGES + 1`` on. Every ring raises it (once above 0),
    a muffle lowers it."""
    struck = sum(state.tiles) / (TILE_COUNT * state.target)
    done = (state.stage - 1 + struck - START_SHARE) / (PROGRESS_STAGES - START_SHARE)
    return min(1.0, max(0.0, done))
