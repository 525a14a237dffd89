"""Chimestep: ring every tile of a stepped pyramid while the Hush close in."""

from playbench.core.game import FolderGame
from playbench.games.chimestep import commands, rules, spec, state, view
from playbench.games.chimestep.prompt import ChimestepSeat


class Chimestep(FolderGame):
    """Chimestep, a real-time pyramid-ringing game on a seeded clock.

    Description:
        A chick hops along the four diagonals of a fixed 7-tier, 28-tile pyramid. Each
        landing strikes its tile up to the stage's target level (1 on stages 1-2, 2 from
        stage 3); the stage clears when no tile is below the target. Three kinds of Hush
        (tumble, stalker, muffle) appear dormant, then move on their own clocks; touching
        an awake one costs one of 3 lives. Time passes only on ``tick``.

    Actions:
        ``{"type": "start"}`` (waiting only), ``{"type": "hop", "dir": d}`` with ``d`` in
        upLeft, upRight, downLeft, downRight (resolves at cooldown 0, else buffered one
        deep; off the rim it teeters), ``{"type": "toll"}`` (a charge, cooldown 0), and
        ``{"type": "tick", "count": n}`` (n optional, clamped to 1..30). Anything the engine
        would not act on is refused with the same state and is not legal.

    Observation:
        status, stage, target, tiles (tier by tier), remaining, position, hopCooldown,
        bufferedHop, teeter, lives, chain, tollCharges, tollCooldown, shimmerTicks,
        hushCells (awake Hush only), dormantHush, stageHops, stageDamped, par, score, tick.
        The generator, spawn clock and spawn queue stay hidden.

    Scoring:
        10 per raising landing, +25 when it reaches the target, + 2 x chain (capped at 10);
        150 per Hush scattered by a toll; a stage clear pays 250 x stage, an efficiency
        bonus, +500 at or under par + stageDamped, and 250 per life held. Never negative.

    Termination:
        The run ends (status ``done``) when the last life is lost; stages are endless.
    """

    slug = "chimestep"
    name = "Chimestep"
    genre = "arcade"
    step_cap = 20_000
    bot = "playbench.bots.chimestep"
    seat = ChimestepSeat


GAME = Chimestep(state=state, rules=rules, view=view, commands=commands, spec=spec)
