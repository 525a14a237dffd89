"""How an episode ended: ``won``, ``lost``, ``over`` (ended with neither, as an endless
game or a score attack does) or ``truncated`` (cut by ``--max-steps``)."""

from __future__ import annotations

from collections.abc import Callable

from playbench.core.game import JSON

WON = "won"
LOST = "lost"
OVER = "over"
TRUNCATED = "truncated"
OUTCOMES = (WON, LOST, OVER, TRUNCATED)


def _delvewick(observation: JSON) -> str:
    # every other end (crushed, outOfOil, boxedIn) is a loss
    return WON if observation["status"] == "won" else LOST


def _cogcrawl(observation: JSON) -> str:
    state = observation["run"]["state"]
    if state == "won":
        return WON
    # leaving by the up stairs of DL1 ends the run by choice
    return OVER if state == "left" else LOST


def _no_win(observation: JSON) -> str:
    return OVER


#: per game, how a finished run's observation reads: Chimestep's stages never end and
#: Gem Swap is a score attack over 30 moves, so their runs end with neither
ENDINGS: dict[str, Callable[[JSON], str]] = {
    "delvewick": _delvewick,
    "chimestep": _no_win,
    "gem-swap": _no_win,
    "cogcrawl": _cogcrawl,
}


def outcome_of(slug: str, observation: JSON, over: bool) -> str:
    """The outcome of a run of the game ``slug`` that stopped with this observation."""
    if not over:
        return TRUNCATED
    return ENDINGS.get(slug, _no_win)(observation)
