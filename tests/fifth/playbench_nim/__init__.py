"""Nim: take the last stone from three seeded heaps before the house does (slug ``nim``)."""

from playbench.core.game import FolderGame
from playbench_nim import commands, rules, spec, state, view


class Nim(FolderGame):
    """Nim, against the house.

    Description:
        Three heaps of 3 to 7 stones, drawn from the seed. You and the house take turns;
        a turn takes 1 to 3 stones from one heap. The house takes from a heap drawn by the
        seeded generator kept in the state.

    Actions:
        ``{"type": "take", "heap": h, "count": n}`` (heap 1-3, n 1-3 and at most what the
        heap holds); command ``take H N``.

    Observation:
        ``heaps``, ``board`` (a row of ``o`` per stone and ``.`` per stone taken, a heap a
        row), ``taken``, ``house`` (the house's last take), ``status``, ``score``.

    Scoring:
        1 a stone you take, 10 for the last stone. Progress is the share of stones taken.

    Termination:
        When the last stone is taken: won if you took it, lost if the house did.
    """

    slug = "nim"
    name = "Nim"
    genre = "take-away"
    step_cap = 50
    bot = "playbench_nim.bot"


GAME = Nim(state=state, rules=rules, view=view, commands=commands, spec=spec)
