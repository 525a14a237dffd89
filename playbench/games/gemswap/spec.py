"""Gem Swap described in its own words: goal, scoring, rules, commands, observation."""

from __future__ import annotations

from playbench.core.game import Command
from playbench.games.gemswap.board import (
    AREA_BOMB,
    COLOR_BOMB,
    ROW_BLASTER,
)
from playbench.games.gemswap.rules import (
    AREA_RADIUS,
    CREATE_POINTS,
    DOUBLE_BOMB_POINTS,
    HINT_COST,
    POINTS_PER_GEM,
    SET_OFF_POINTS,
)
from playbench.games.gemswap.state import MOVES_PER_GAME
from playbench.games.gemswap.view import PROGRESS_SCORE

AREA_SIDE = 2 * AREA_RADIUS + 1

DESCRIPTION = (
    "Similar to the popular game Bejeweled. Swap neighboring gems on an 8x8 board to line "
    "up 3 or more, trigger cascades, and craft line blasters, area bombs and color bombs "
    f"to score big in {MOVES_PER_GAME} moves."
)

GOAL = f"Score as many points as you can in {MOVES_PER_GAME} moves."

SCORING = (
    f"Each cleared gem is worth {POINTS_PER_GEM} points (the gem that turns into a new "
    "special counts as cleared). Creating a special adds "
    f"{CREATE_POINTS[ROW_BLASTER]} (line blaster), {CREATE_POINTS[AREA_BOMB]} (area bomb) or "
    f"{CREATE_POINTS[COLOR_BOMB]} (color bomb); setting one off adds "
    f"{SET_OFF_POINTS[ROW_BLASTER]} (line blaster), {SET_OFF_POINTS[AREA_BOMB]} (area bomb) "
    f"or {SET_OFF_POINTS[COLOR_BOMB]} (color bomb), or {DOUBLE_BOMB_POINTS} for two color "
    "bombs swapped together. Everything in cascade step k is multiplied by k (x1 for the "
    f"swap itself, x2 for the first cascade, and so on). hint costs {HINT_COST} points "
    "every time, whatever the score: a hint bought with fewer than "
    f"{HINT_COST} points takes the score below 0. Progress is the score over "
    f"{PROGRESS_SCORE:,}, between 0 and 1 (a score below 0 counts as 0): every run has "
    f"the same {MOVES_PER_GAME} swaps, so a better-played run scores more and shows "
    "more progress."
)

RULES = [
    "The board is 8x8. Columns are letters A-H from left to right and rows are numbers "
    "1-8 from top to bottom: A1 is the top-left cell and H8 the bottom-right. Up is "
    "toward row 1, down toward row 8. Gems fall down and new gems drop in from the top.",
    "Seven colors, written as letters: R red, G green, B blue, Y yellow, P purple, "
    "O orange, W white. Specials are written R- (row blaster), R| (column blaster), "
    "R+ (area bomb) and @ (color bomb, no color).",
    "Swap two gems that share a side: 'swap C4 right' or 'swap C4 D4'. The swap must "
    "line up 3 or more gems of one color in a row or column, or involve a color bomb; "
    "otherwise it is refused and costs nothing. Cells off the board or not neighbours "
    "are an error.",
    "Matched gems clear, gems above fall, and new random gems fill the top. If that "
    "makes new lines, they clear too: a cascade, repeated until the board is still.",
    f"You have {MOVES_PER_GAME} moves; the game ends after the {MOVES_PER_GAME}th. Only "
    "accepted swaps are moves: hint, moves, select and deselect are not.",
    "The starting board has no line and at least one legal swap. When no swap is "
    "possible after a move, the same gems (specials included) are laid out again, for "
    "free, with no line and at least one legal swap; if the gems cannot be laid out so "
    "(too few colors), a fresh random board is dealt instead. A starting board given "
    "as an option that has no legal swap is reshuffled the same way.",
    "Lines of one color that share a gem are one match (an L, T or + shape). Each match "
    "makes at most one special: 5 or more in one straight line makes a color bomb @ "
    "(even when the match also has a crossing line); otherwise a crossing (L, T or +) "
    "makes an area bomb R+ (so an L or T of 5 gems makes an area bomb, a straight 5 a "
    "color bomb); otherwise 4 in a straight line makes a line blaster, R- from a "
    "horizontal line (clears its row), R| from a vertical line (clears its column).",
    "A special appears on the gem you moved when that gem is part of the match. A "
    "match no moved gem is part of (a cascade) puts it on the gem its lines share (the "
    "top-most, then left-most, if several), or for a single line on its middle gem (the "
    "left or upper one of the two middle gems of a line of 4).",
    "One swap can make two matches, one on each moved gem; each makes its own special.",
    f"When cleared, a line blaster clears its whole row or column, an area bomb the "
    f"{AREA_SIDE}x{AREA_SIDE} square around it, and a color bomb caught in a match's "
    "blast clears every gem of the most common color on the board as it stood before "
    "that step (ties go to the first in the order R G B Y P O W). A blast that hits "
    "another special sets it off too; each special goes off once.",
    "Specials created in a step are placed after that step's clears, so that step's "
    "blasts do not set them off. A special already on the gem that turns into a new "
    "special goes off first.",
    "Swap a color bomb with any neighbor to clear every gem of that neighbor's color, the "
    "neighbor and the bomb included; specials among them go off. Swapping it with a "
    "special therefore clears that special's color and sets the special off. Two color "
    "bombs swapped together clear the whole board; specials on it go off and score their "
    "own points too.",
    "Specials count as their color for matching; color bombs match nothing.",
    f"hint shows the legal swap that lines up the most gems right away (the gems of its "
    "lines, or all the gems a color bomb takes; the first in the legal-action order on "
    f"ties) and costs {HINT_COST} points, even when the score is below {HINT_COST} (the "
    "rules say it costs that much and set no floor, so the score may go below 0; the "
    "hint is never refused for it). Its answer stays in the observation (hint: {swap, "
    "gems}) until the next swap. moves counts the legal swaps, for free: those that "
    "would match now and those that involve a color bomb (the legal actions list them "
    "all).",
    "select C4 picks a gem; selecting a neighbor then swaps the two (refused, with the "
    "selection kept, when that swap makes no line); selecting the same gem again "
    "deselects it; selecting a gem that is not a neighbor picks that one instead. "
    "deselect clears the selection (refused when nothing is selected). A swap always "
    "clears the selection.",
    "Once the game is over every command is refused.",
    "Every accepted command returns events: a swap gives {type: swap, cells}, then one "
    "{type: cascade, step, cleared, created, setOff, points, dropped} for each step k "
    "(k = 1 for the swap itself; points already multiplied by k; within a step the cleared "
    "cells empty, the created specials take their cells, the other gems fall straight "
    "down, and dropped lists the new gems, {cell, gem}, on the cells they came to rest "
    "on, each column bottom first), then {type: reshuffle, board} (the new layout) "
    "when the board was stuck, or {type: gameOver, score} after the last move. hint gives "
    "{type: hint, swap, gems, cost}, moves {type: moves, count}, select and deselect "
    "{type: select, cell} and {type: deselect}.",
]

ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": (
                "A text command: 'swap C4 right', 'swap C4 D4', 'hint', 'moves', "
                "'select C4' or 'deselect' (case-insensitive)."
            ),
        }
    },
    "required": ["command"],
    "additionalProperties": False,
}

COMMANDS = [
    Command(
        "swap <cell> <up|down|left|right>",
        "Swap the gem at a cell (column A-H + row 1-8, row 1 at the top) with its neighbor "
        "in that direction.",
        "swap C4 right",
    ),
    Command("swap <cell> <cell>", "Swap two neighboring gems.", "swap C4 D4"),
    Command(
        "hint",
        f"Show a swap that lines up the most gems right away. Costs {HINT_COST} points.",
        "hint",
    ),
    Command("moves", "Count the swaps that would make a match right now (free).", "moves"),
    Command(
        "select <cell> | deselect",
        "Pick a gem in the HTML view, then click a neighbor to swap. Not needed through the API.",
        "select C4",
    ),
]

OBSERVATION = {
    "board": "8 rows (row 1 first) of 8 cells (column A first): R G B Y P O W, a "
    "special R- R| R+ (any color), or @ for a color bomb.",
    "movesLeft": f"Moves still to play (of {MOVES_PER_GAME}).",
    "movesMade": "Swaps played so far.",
    "score": "Points so far.",
    "selected": "The selected cell (like 'C4'), or null.",
    "gameOver": f"True after the {MOVES_PER_GAME}th move.",
    "hint": "The answer of the hint bought on this board, {swap, gems} (like "
    "{swap: 'swap C4 right', gems: 3}), until the next swap; null when none stands.",
}

OPTIONS = {
    "board": "Start from this board: a list of 8 rows (row 1 first), each a string of 8 "
    "gem letters (R G B Y P O W, or @) or a list of 8 gems (R, R-, R|, R+, @). A board "
    "of the wrong size, with an unknown gem or with a line of 3 already on it is refused. "
    "New gems still come from the seed.",
}
