"""What a player sees of a Delvewick state: the JSON observation, the text board and
the progress of the run."""

from __future__ import annotations

from playbench.core.game import JSON
from playbench.games.delvewick.levels import LEVELS
from playbench.games.delvewick.state import WON, State, board_rows

LEGEND = (
    "# bedrock  % soil  . empty  O boulder  * gem  G geode  X exit (closed)  E exit (open)"
    "  M mole  lowercase o v g: falling"
)


def observe(state: State) -> JSON:
    level = state.level
    return {
        "board": board_rows(state),
        "level": level.number,
        "levelName": level.name,
        "quota": level.quota,
        "gemsCollected": state.gems,
        "exitOpen": state.exit_open,
        "oil": state.oil,
        "tick": state.tick,
        "chain": state.chain,
        "score": state.score,
        "status": state.status,
    }


def render(state: State) -> str:
    level = state.level
    where = "custom level" if level.custom else f"level {level.number}/{len(LEVELS)}"
    exit_text = "open" if state.exit_open else "closed"
    header = (
        f"Delvewick  {where} {level.name!r}  gems {state.gems}/{level.quota}  exit {exit_text}"
        f"  oil {state.oil}  score {state.score}  chain {state.chain}  tick {state.tick}"
        f"  [{state.status}]"
    )
    return "\n".join([header, *board_rows(state), LEGEND])


def progress(state: State) -> float:
    """Levels cleared since the run's start plus the current level's share of its quota,
    over the levels from the start level to level 8 (1 for a custom level); 1 once the
    run is won, 0 at its start: levels below ``startLevel`` were not played and earn
    nothing."""
    if state.status == WON:
        return 1.0
    level = state.level
    levels = 1 if level.custom else len(LEVELS) - state.start + 1
    cleared = 0 if level.custom else level.number - state.start
    share = min(state.gems, level.quota) / level.quota if level.quota else 0.0
    return (cleared + share) / levels
