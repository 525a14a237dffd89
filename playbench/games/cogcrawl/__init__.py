"""Cogcrawl: a seeded NetHack-style dungeon played through the seat protocol (slug ``cogcrawl``)."""

from playbench.core.game import Action, FolderGame
from playbench.games.cogcrawl import commands, rules, spec, state, view
from playbench.games.cogcrawl.prompt import CogcrawlSeat
from playbench.games.cogcrawl.seat import plan_notice
from playbench.games.cogcrawl.state import CogState


class Cogcrawl(FolderGame):
    """Cogcrawl: delve ten generated levels for the Cogheart, one planned reply per turn.

    Description:
        A small roguelike in NetHack's manner: 10 levels of 48 x 18 lit rooms and dark
        corridors generated from the seed (levels appear when first entered), doors open,
        closed, locked or hidden, hidden corridor cells, lava from DL4, 14 monster kinds by
        depth plus the Oracle, food and hunger, potions with per-run appearances, weapons
        and armour. All chance comes from the seeded generator kept in the state.

    Actions:
        A reply object ``{"actions": [...], "say": str, "notes": str}`` of up to 10 entries
        (``move``, ``travel``, ``down``, ``up``, ``pickup``, ``eat``, ``quaff``, ``wield``,
        ``wear``, ``kick``, ``search``, ``chat``, ``wait``), or ``{"reply": "<raw text>"}``
        holding a model's text. Invalid entries are dropped and reported; a reply that does
        not parse is refused once and then played by the delver.

    Observation:
        Turn counters, status (DL, HP, XL, AC, gold, hunger, wielded, worn, confusion),
        position, the remembered map as 18 strings of 48, visible monsters, remembered
        items, what is underfoot, the pack by letter, up to 8 messages, ``last_plan``,
        echoed notes, the fallback and retry flags, and the run's state, score and
        progress. The reply's ``say`` is never shown to the seat: it is the turn's first
        event, for spectators.

    Scoring:
        +1 per gold piece, +50 per new level reached, kill experience, +1000 for the
        Cogheart; never decreases. Progress is the deepest level reached / 10.

    Termination:
        Won by picking up the Cogheart on DL10; also ends on death (combat, starvation,
        lava), on leaving by ``<`` from DL1, or after 50,000 dungeon turns.
    """

    slug = "cogcrawl"
    name = "Cogcrawl"
    genre = "roguelike"
    step_cap = 50_000
    bot = "playbench.bots.cogcrawl"
    seat = CogcrawlSeat

    def notice(self, state: CogState, action: Action) -> str:
        return plan_notice(state, action)


GAME = Cogcrawl(state=state, rules=rules, view=view, commands=commands, spec=spec)
