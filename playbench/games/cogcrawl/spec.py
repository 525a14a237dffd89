"""The Cogcrawl spec: goal, scoring, the dungeon's rules with every number, the reply
grammar as a JSON Schema, the text commands and the observation fields."""

from __future__ import annotations

from playbench.core.game import Command
from playbench.games.cogcrawl import dungeon, items, monsters, protocol
from playbench.games.cogcrawl.constants import (
    BASE_AC,
    COGHEART_BONUS,
    CONFUSION_TURNS,
    EXTRA_HEALING_DICE,
    EXTRA_HEALING_MAX_GAIN,
    FAINT_ODDS,
    FAINT_TURNS,
    FAINTING_AT,
    HEALING_DICE,
    HEALING_MAX_GAIN,
    HP_PER_XL_DIE,
    HUNGRY_AT,
    KICK_ODDS,
    LEVEL_BONUS,
    MAX_MESSAGES,
    MAX_XL,
    MONSTER_TO_HIT_BASE,
    NUTRITION_CAP,
    ORACLE_FEE,
    SEARCH_FINDS_ON,
    SLEEP_TURNS,
    STAGGER_ODDS,
    START_NUTRITION,
    STARVED_BELOW,
    TO_HIT_BASE,
    TURN_LIMIT,
    WANDER_ODDS,
    WEAK_AT,
    XL_FIRST_STEP,
)
from playbench.games.cogcrawl.glyphs import DIRECTIONS, HEIGHT, WIDTH

EXPERIENCE_TEXT = f"1 + level^2 + {monsters.EXPERIENCE_PER_LEVEL} x (level + 1)"

DESCRIPTION = (
    "A small NetHack-style roguelike for a seat that plans: 10 levels of 48 x 18 rooms and "
    "corridors generated from the seed, monsters, hunger, potions and doors. Each seat turn "
    "the seat reads one observation and replies with one JSON object holding up to 10 "
    "actions (including travel, which walks a remembered path); the game runs them as "
    "dungeon primitives, one dungeon turn each, and reports what ran."
)

GOAL = (
    "Reach level 10 and pick up the Cogheart; otherwise go as deep and score as much as "
    "you can before dying, leaving or running out of turns."
)

SCORING = (
    f"+1 per gold piece picked up; +{LEVEL_BONUS} the first time each level below the "
    f"first is reached; experience for each kill ({EXPERIENCE_TEXT}); "
    f"+{COGHEART_BONUS} for the Cogheart. The score never decreases (gold paid to the "
    "Oracle is not taken back). Progress = (deepest level reached - 1) / 10, from 0 on DL1 "
    "at the start (the level every run begins on earns nothing) to 0.9 on reaching DL10; "
    "taking the Cogheart, the game's end, is 1.0."
)


def _dice(dice: tuple[int, int]) -> str:
    return f"{dice[0]}d{dice[1]}"


def _span(span: tuple[int, int]) -> str:
    return f"{span[0]}-{span[1]}"


MONSTER_LIST = ", ".join(
    f"{k.glyph} {k.name} (DL{k.depth}+, level {k.level}, AC {k.ac}, {k.dice}d{k.sides})"
    for k in monsters.KINDS
    if not k.peaceful
)
FOOD_LIST = ", ".join(
    f"{f.name} ({f.nutrition} nutrition, {f.turns} turn{'s' if f.turns > 1 else ''})"
    for f in items.FOODS
)
WEAPON_LIST = ", ".join(
    f"{w.name} ({w.dice}d{w.sides}{f'+{w.bonus}' if w.bonus else ''}, to-hit +{w.to_hit})"
    for w in items.WEAPONS
)
ARMOUR_LIST = ", ".join(f"{a.name} (AC {a.ac})" for a in items.ARMOURS)

FOOD_SHARE = dungeon.FOOD_BELOW
POTION_SHARE = dungeon.POTION_BELOW - dungeon.FOOD_BELOW
WEAPON_SHARE = dungeon.WEAPON_BELOW - dungeon.POTION_BELOW
ARMOUR_SHARE = dungeon.PERCENT - dungeon.WEAPON_BELOW
FOOD_DRAW = ", ".join(
    f"{'an' if items.FOODS[index].name[0] in 'aeiou' else 'a'} {items.FOODS[index].name} "
    f"{dungeon.FOOD_TABLE.count(index)} in {len(dungeon.FOOD_TABLE)}"
    for index in sorted(set(dungeon.FOOD_TABLE))
)

RULES = [
    "The run: a dungeon of 10 levels, DL1 to DL10, each 48 x 18 (x 0..47 left to right, y "
    "0..17 top to bottom). The cog starts on DL1 on the up stairs < with 16 HP, XL 1, a "
    "dagger (a, wielded), leather armour (b, worn) and two food rations (c, d). DL10 has no "
    '> and holds the Cogheart ("); picking it up wins. The run also ends on death (HP 0, '
    f"starvation, lava), on taking < up on DL1 (the cog leaves, keeping its score), or after "
    f"{TURN_LIMIT} dungeon turns.",
    "Randomness: each level is generated from the seed and its number when first entered, "
    "so a seed always gives the same dungeon; all other chance (combat, monster wandering, "
    "kicks, fainting, potion appearances) comes from one generator kept in the state. The "
    "same seed and replies reproduce a run exactly.",
    f"Levels: {dungeon.MIN_ROOMS}-{dungeon.MAX_ROOMS} lit rooms in a 5 x 2 grid of slots joined by "
    "dark corridors. Standing in a room (or its doorway) shows the whole room; elsewhere the "
    "cog sees the 8 cells around it. The map remembers what was seen, per level; monsters are "
    "shown only while in view. Glyphs: ' ' unseen or rock, . floor, # corridor, | - walls, + "
    "closed door, ' open door, < > stairs, } lava, $ gold, % food, ! potion, ) weapon, [ "
    'armour, " the Cogheart, @ the cog (and the Oracle), letters monsters.',
    "Connectivity: every room is reachable from < when hidden things are found and locked "
    "doors broken; on every level < is joined to > (on DL10 to the Cogheart) by a path that "
    "needs no search and no kick. Hidden things and locked doors only guard other rooms.",
    "Doors: 35% open, 35% closed, 15% locked, 15% hidden. Moving into a closed door opens it "
    "(one turn, the cog stays). A locked door shows as + too; moving into it fails ('this door "
    f"is locked', no time). kick DIR (orthogonal only) breaks a closed or locked door open one "
    f"kick in {KICK_ODDS} (by chance), each kick a turn; kicking is impossible while Weak or "
    "Fainting (refused, no time). No diagonal step into or out of a doorway (open, closed or "
    "broken) for the cog or monsters.",
    "Hidden things: a hidden door shows as wall, a hidden corridor cell as rock. search (one "
    "turn) examines the 8 cells around the cog; each hidden thing counts the searches made "
    f"next to it and is found on search number {SEARCH_FINDS_ON} (no chance involved). A "
    "found door is a closed door.",
    f"Lava from DL{dungeon.LAVA_DEPTH} down, only inside rooms and never cutting a cell off: "
    "moving into lava is carried out and kills the cog. travel never paths through it. A confused "
    "stagger never enters lava (the move fails instead).",
    "Moves: move DIR steps one cell (8 directions). Into a hostile monster it attacks (a "
    "move of a travel never does: it fails, 'the jackal is in the way'); into the Oracle "
    "it fails; into a wall or rock it fails (no time). A diagonal move may pass a "
    "wall corner (travel does not); no diagonal move or attack goes into or out of a "
    "doorway, for the cog or a monster. A failed primitive takes no time and stops the queue.",
    f"Combat: the cog hits when {TO_HIT_BASE} + XL + monster AC + weapon to-hit > d20; "
    f"damage is the weapon's dice (bare hands 1d2), halved (at least 1) while Weak or "
    f"Fainting. A monster hits when {MONSTER_TO_HIT_BASE} + its level + the cog's AC > "
    f"d20 and deals its dice. Monsters: {MONSTER_LIST}. A level holds kinds from the "
    f"{monsters.DEPTH_WINDOW} depths up to its own. Level-0 monsters have "
    f"1-{monsters.LEVEL0_HP} HP, others level d8. Monsters are placed at generation only "
    "(none appear later) and act only while the cog is on their level.",
    "Monsters act after every dungeon turn, in a fixed order: one next to the cog attacks; a "
    "monster that can see the cog (it is in view of the cog) steps to the free cell nearest "
    f"the cog; one that cannot wanders one turn in {WANDER_ODDS}. Lichens never move. They "
    "do not open doors or enter lava.",
    f"Experience: a kill gives {EXPERIENCE_TEXT} experience (also added to the score). "
    f"XL 2 needs "
    f"{XL_FIRST_STEP}, each next level twice as much, up to XL {MAX_XL}; each new XL "
    f"adds 1d{HP_PER_XL_DIE} max HP (and HP). HP regenerates 1 every 42 // (XL + 2) + 1 "
    "dungeon turns.",
    f"Armour class: {BASE_AC} minus the worn armour's AC (lower is better); one armour is "
    f"worn at a time and wear swaps it. Armour: {ARMOUR_LIST}. Weapons: {WEAPON_LIST}. wield "
    "and wear take one turn; a worse choice is allowed.",
    f"Hunger: nutrition starts at {START_NUTRITION}, falls 1 each dungeon turn and is "
    f"capped at {NUTRITION_CAP}. Not hungry above {HUNGRY_AT}; Hungry "
    f"{WEAK_AT + 1}..{HUNGRY_AT}; Weak {FAINTING_AT + 1}..{WEAK_AT}; Fainting "
    f"{FAINTING_AT} and below (each turn one chance in {FAINT_ODDS} to faint for "
    f"{FAINT_TURNS[0]}-{FAINT_TURNS[1]} turns, helpless); death by starvation below "
    f"{STARVED_BELOW}. Eating adds the food's nutrition at once and takes its turns "
    f"(uninterrupted): {FOOD_LIST}.",
    f"Potions: healing ({_dice(HEALING_DICE)} HP, +{HEALING_MAX_GAIN} max HP if that "
    f"overflows), extra healing ({_dice(EXTRA_HEALING_DICE)}, +{EXTRA_HEALING_MAX_GAIN}), "
    f"sleeping (asleep {_span(SLEEP_TURNS)} turns, helpless), confusion "
    f"({_span(CONFUSION_TURNS)} turns; each move one time in {STAGGER_ODDS} goes in a "
    "random direction), object detection (every item on the "
    "level is remembered), magic mapping (every unseen cell's terrain is remembered; hidden "
    "things stay hidden). Each kind has a random appearance per run ('murky potion'); "
    "quaffing one identifies its kind for the rest of the run.",
    f"Items: each level holds {dungeon.GOLD_PILES[0]}-{dungeon.GOLD_PILES[1]} gold piles and "
    f"{dungeon.ITEM_COUNT[0]}-{dungeon.ITEM_COUNT[1]} things: food {FOOD_SHARE}%, potions "
    f"{POTION_SHARE}%, weapons {WEAPON_SHARE}%, armour {ARMOUR_SHARE}% (weapons and armour "
    f"of the level's depth or shallower); a food item is {FOOD_DRAW}.",
    "Balance, measured with the delver over seeds 0-49 (benchmarks/strength_cogcrawl.py; "
    "the Cogheart taken, median deepest level): a monster's to-hit base is 6 (it was 10, so "
    "from DL5 nearly every blow landed and armour hardly counted); XL 2 needs 10 experience "
    "(it was 20: monsters are placed only when a level is made, so a run meets few); food is "
    "45% of the things on a level (it was 30%) and rations are drawn more often, since "
    "monsters leave no corpses. With all three: 14 of 50, DL10. With the old rules: 1 of 50, "
    "DL7. Without the to-hit change: 8 of 50, DL9; without the faster levels: 5 of 50, DL9; "
    "without the food: 5 of 50, DL9. The game stays hard: most runs still end in death, "
    "by starvation, owlbears, trolls and wolves.",
    "Pack: 26 letters a..z; items do not stack, each takes the lowest free letter and keeps "
    "it until used up. pickup takes the whole stack underfoot (gold to the purse); what does "
    "not fit stays. Monsters leave no corpses.",
    f"The Oracle: one peaceful @ on one level of DL2-5 (fixed by the seed). chat DIR toward "
    f"it costs {ORACLE_FEE} gold and answers the compass direction of > from the cog "
    "(e.g. 'The stairs down lie to the south-east.'): straight when one axis is more than "
    "twice the other, else diagonal. With less gold it is refused at no cost and no time.",
    "Stairs: down on > enters the next level on its <; up on < enters the level above on "
    "its >; on DL1 up leaves the dungeon. Taking stairs is a turn (the new level's monsters "
    "act).",
    f'Seat turns: the action is a reply object or {{"reply": "<raw text>"}}. Raw text is '
    f"read as at most {protocol.MAX_REPLY_BYTES} bytes and must begin with {{ and end with }} "
    "exactly (no surrounding whitespace) and be one JSON object. A reply object is measured "
    f"as its compact UTF-8 JSON and may be at most {protocol.MAX_REPLY_BYTES} bytes too. An "
    "action that is no JSON object (an array, a string, a number, null) is a parse failure "
    "as well. A parse failure is refused ({ok: false, reason}) with the retry counted "
    "(observation retry: true); a second failure in the same turn makes the delver play the "
    "turn (observation fallback: true and a message); the seat's notes are kept as they "
    "were and say is the delver's.",
    f"Replies: at most {protocol.MAX_ACTIONS} actions (the rest counted in over_cap); an invalid "
    "entry is dropped and reported, never rewritten; travel X Y expands into at most "
    f"{protocol.MACRO_PRIMITIVE_CAP} moves along a remembered path; the queue is cut at "
    f"{protocol.QUEUE_CAP} primitives (the rest counted in truncated). An empty queue waits one "
    "turn. say <= 140 and notes <= 400 runes; notes are echoed back; say is never shown to "
    "the seat: it goes to the spectators as the turn's say event.",
    "Reading replies, where the seat protocol is silent: surrounding whitespace, a byte-order "
    'mark or a trailing newline around raw text is a parse failure; {"reply": ...} is raw '
    "text only as the single key holding a string (anything else there is a parse failure); "
    "NaN and Infinity are not JSON; with duplicate keys the last counts; a non-string say or "
    "notes counts as empty; actions null counts as absent and any other non-array is one "
    "dropped entry; x and y must be JSON integers (3.0 and true are dropped); item must be a "
    "lower-case letter (A is dropped); keys a verb does not use are ignored.",
    "Travel, where the seat protocol is silent: a path longer than 40 moves keeps its first "
    "40 and the moves cut are counted in truncated; a travel later in the queue starts "
    "where the moves before it would leave the cog, judged from the remembered map (a move "
    "into a known wall, a closed door or a visible "
    "monster leaves it in place); a travel after up or down in the same reply is unreachable; "
    "a travel to a known cell that cannot be stood on ends on the nearest walkable cell next "
    "to it (for a door, orthogonally next to it). A move of a travel walks its path only: "
    "it fails (stopping the queue) when the cog is not on the cell it was planned from, "
    "and when a monster has stepped into the path (it never attacks).",
    "The queue stops after a primitive that fails (not executed; interrupted says why), or "
    "after one during which the cog was hit or a monster not yet seen this seat turn came "
    "into view; interrupted names the first such stop even on the last primitive. It also "
    "stops when the run ends. Nothing carries over to the next turn.",
    "Events of an accepted turn, in order: say {text} (the reply's say, when not empty), then "
    "killed {monster}, found {x, y} (a hidden thing), level {dl} (stairs taken), won, left, "
    "died {cause}, out_of_turns as they happen. The reward of a turn is the score it gained.",
    f"Messages: at most {MAX_MESSAGES} per observation, those made during the last seat "
    "turn; when more were made the oldest are dropped and the first line says how many.",
    "Terminal keys: h j k l y u b n and arrows move, > < stairs, , pickup, s search, . wait, "
    "e eat, q quaff, Q quit, w wield, W wear, K then a direction key "
    "kick (k is a move), C then a direction key chat, _ travel (prompt for x y), { a raw "
    "JSON reply.",
]

DIRECTION_NAMES = sorted(DIRECTIONS)
PRIMITIVE_SCHEMA = {
    "type": "object",
    "properties": {
        "do": {
            "type": "string",
            "enum": sorted(protocol.VERBS),
            "maxLength": protocol.MAX_DO_RUNES,
        },
        "dir": {"type": "string", "enum": DIRECTION_NAMES},
        "x": {"type": "integer", "minimum": 0, "maximum": WIDTH - 1},
        "y": {"type": "integer", "minimum": 0, "maximum": HEIGHT - 1},
        "item": {"type": "string", "pattern": "^[a-z]$"},
    },
    "required": ["do"],
}
ACTION_SCHEMA = {
    "anyOf": [
        {
            "title": "reply",
            "type": "object",
            "properties": {
                "actions": {
                    "type": "array",
                    "maxItems": protocol.MAX_ACTIONS,
                    "items": PRIMITIVE_SCHEMA,
                },
                "say": {"type": "string", "maxLength": protocol.MAX_SAY},
                "notes": {"type": "string", "maxLength": protocol.MAX_NOTES},
            },
        },
        {
            "title": "raw reply text",
            "type": "object",
            "properties": {"reply": {"type": "string"}},
            "required": ["reply"],
            "additionalProperties": False,
        },
    ]
}

COMMANDS = [
    Command("move DIR | DIR | h j k l y u b n", "step (or attack, or open a door)", "move ne"),
    Command("travel X Y", "walk a remembered path toward a cell", "travel 5 6"),
    Command("down | >", "take > down", "down"),
    Command("up | <", "take < up (on DL1 leave the dungeon)", "<"),
    Command("pickup | ,", "take the stack underfoot", "pickup"),
    Command("eat L", "eat the food in pack slot L", "eat c"),
    Command("quaff L", "drink the potion in slot L", "quaff e"),
    Command("wield L", "wield the weapon in slot L", "wield a"),
    Command("wear L", "wear the armour in slot L", "wear b"),
    Command("kick DIR", "kick a door (not while Weak)", "kick n"),
    Command("search | s", "search the 8 cells around", "s"),
    Command("chat DIR", "ask the Oracle (50 gold)", "chat e"),
    Command("wait | .", "let a turn pass", "wait"),
    Command("A; B; ...", "several actions in one reply", "travel 5 6; pickup"),
    Command("{...}", "a raw JSON reply, read like a model's text", '{"actions":[{"do":"search"}]}'),
]

OBSERVATION = {
    "turn": "seat turns so far",
    "dungeon_turn": "dungeon turns so far",
    "status": "dl, hp, max_hp, xl, ac, gold, hunger, wielded, worn, confused",
    "position": "x, y of the cog",
    "map": "18 strings of 48: the remembered map with @ and visible monsters drawn on",
    "monsters": "visible monsters: x, y, glyph, name, peaceful",
    "items": "visible or remembered item stacks on this level: x, y, glyph, name (top item)",
    "underfoot": "the items under the cog: glyph, name",
    "terrain_underfoot": "the terrain glyph under the cog",
    "pack": "letter, name, kind (weapon/armour/food/potion/cogheart), wielded, worn",
    "messages": "at most 8 lines from the last seat turn",
    "last_plan": "executed, truncated, dropped, over_cap, unreachable, interrupted",
    "notes": "the notes of the last reply, echoed",
    "fallback": "true when the delver played the last turn",
    "retry": "true when the last reply failed to parse once this turn",
    "run": "state (playing/won/dead/left/out_of_turns), score, progress, deepest",
}
