"""Delvewick: a deterministic digging puzzle of 8 handcrafted levels (slug ``delvewick``)."""

from playbench.core.game import FolderGame
from playbench.games.delvewick import commands, rules, spec, state, view
from playbench.games.delvewick.prompt import DelvewickSeat


class Delvewick(FolderGame):
    """Delvewick: a mole prospector digs for gems through 8 handcrafted levels.

    Description:
        A Boulder-Dash-like puzzle on small grids framed in bedrock. Soil is dug by walking
        into it; boulders, gems and geodes fall, roll off rounded piles and can be pushed
        sideways. Each accepted action advances the world exactly one tick, so an avalanche
        pauses between actions. No randomness: the seed changes nothing. Options:
        ``startLevel`` (1-8) or a custom single ``level``.

    Actions:
        ``{"type": "move", "dir": "up"|"down"|"left"|"right"}`` and ``{"type": "wait"}``;
        commands ``up down left right wait`` (or their first letters). Refused actions
        (bedrock, closed exit, vertical into a rock, blocked pushes, after the end,
        malformed objects) cost nothing.

    Observation:
        ``board`` (row strings, falling objects lowercase), ``level``, ``levelName``,
        ``quota``, ``gemsCollected``, ``exitOpen``, ``oil``, ``tick``, ``chain``, ``score``,
        ``status``. Nothing is hidden: the observation rebuilds the state.

    Scoring:
        +25 per gem, chain bonus +10/+20/+30 for the 2nd/3rd/later gems collected within 4
        ticks of each other, +10 per geode crack, +100 and +5 per oil left per level cleared,
        +250 for clearing level 8. Progress: levels cleared plus the current level's gem
        share, over 8; 1 once won.

    Termination:
        Won after level 8 (or a custom level) is cleared; early on being crushed by a
        falling boulder or geode, running out of oil, or being boxed in on a settled board.
    """

    slug = "delvewick"
    name = "Delvewick"
    genre = "digging puzzle"
    seeded = False
    step_cap = 5_000
    bot = "playbench.bots.delvewick"
    seat = DelvewickSeat


GAME = Delvewick(state=state, rules=rules, view=view, commands=commands, spec=spec)
