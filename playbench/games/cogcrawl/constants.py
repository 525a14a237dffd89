"""Every number of Cogcrawl's rules, in one place, as the spec text quotes them.

The dungeon's generation numbers live with the generator (``dungeon.py``), the monster and
item tables with their kinds (``monsters.py``, ``items.py``) and the reply caps with the
seat protocol (``protocol.py``); everything a turn of play uses is here.
"""

from __future__ import annotations

from playbench.games.cogcrawl.monsters import KINDS

#: a run ends after this many dungeon turns
TURN_LIMIT = 50_000
#: the generator stream that shuffles the potion appearances of a run
APPEARANCE_STREAM = 11

START_HP = 16
BASE_AC = 10
PACK_LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_MESSAGES = 8

#: hunger: Not hungry above 150, Hungry 51..150, Weak 1..50, Fainting 0 and below,
#: starved below -200
START_NUTRITION = 900
NUTRITION_CAP = 2000
HUNGRY_AT, WEAK_AT, FAINTING_AT, STARVED_BELOW = 150, 50, 0, -200
NOT_HUNGRY, HUNGRY, WEAK, FAINTING = "Not hungry", "Hungry", "Weak", "Fainting"
#: while Fainting, one turn in FAINT_ODDS the cog faints for FAINT_TURNS turns
FAINT_ODDS = 10
FAINT_TURNS = (2, 5)

#: combat: the cog hits when TO_HIT_BASE + XL + monster AC + weapon to-hit > d20;
#: a monster hits when MONSTER_TO_HIT_BASE + its level + the cog's AC > d20
TO_HIT_BASE = 5
MONSTER_TO_HIT_BASE = 10
D20 = 20
BARE_HANDS = (1, 2)
#: experience needed for XL 2, 3, ...: 20, 40, 80, ... doubling
XL_FIRST_STEP = 20
MAX_XL = 14
HP_PER_XL_DIE = 8
#: more than any one blow can take: a stored hit point total is never below -MAX_HIT
MAX_HIT = max(k.dice * k.sides for k in KINDS)
#: regeneration: 1 HP every REGEN_NUMERATOR // (XL + 2) + 1 dungeon turns
REGEN_NUMERATOR = 42

LEVEL_BONUS = 50
COGHEART_BONUS = 1000
ORACLE_FEE = 50
#: kicking a closed or locked door breaks it open one kick in KICK_ODDS
KICK_ODDS = 3
#: when confused, one move in STAGGER_ODDS goes in a random direction
STAGGER_ODDS = 5
CONFUSION_TURNS = (5, 14)
SLEEP_TURNS = (5, 14)
HEALING_DICE = (6, 4)
EXTRA_HEALING_DICE = (6, 8)
HEALING_MAX_GAIN, EXTRA_HEALING_MAX_GAIN = 1, 2
#: a monster that cannot see the cog wanders one turn in WANDER_ODDS
WANDER_ODDS = 3
SEARCH_FINDS_ON = 3
