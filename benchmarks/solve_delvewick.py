"""Re-solve the 8 Delvewick levels with the beam search and compare with the shipped
solutions, in one run (each beam clear improved by the splice searches of ``--depth`` ticks and by
beam restarts from every ``--every`` ticks of its path).

    python benchmarks/solve_delvewick.py [--width 2000] [--pull 2] [--depth 8] [--every 6]
        [--level N ...] [--letters]

For each level it prints the points of the solutions shipped before the beam search
(the reference), of the shipped solution, of the one re-solved now, whether the re-solved
letters equal the shipped ones, and the seconds taken; then the totals over the levels
solved and the whole time. The target: more than 4,730 points over the 8 levels, each
level at least its reference, re-solved in under 10 minutes.
"""

from __future__ import annotations

import argparse
import time

from playbench.bots.delvewick import (
    BEAM_WIDTH,
    GEM_PULL,
    RESTART_EVERY,
    SPLICE_DEPTH,
    beam_solve,
    play,
)
from playbench.games.delvewick.levels import LEVELS
from playbench.games.delvewick.state import State

#: the solutions shipped before the beam search (the whole run scored 4,280)
REFERENCE = (
    "DDRRDDLUUURRRRRRRDRRRDDRRRR",
    "RRRRRLLLLLUURRRRRRRRDRRRRDRRRDDLLLLRRRRDRR",
    "DDDDRRUURRRRRDDDDRRURDRRRULURRRRRRDDDR",
    "DDDRRDDDLRRRRRRRLWRUUURDRRRRRRRURDDDUUUUULLLDDDDDDRRRRR",
    "DDDRRRDRRRRUDDRDDLLLLLLRRRRRRRRRRRRUULUURRDDDDRRRRRR",
    "DDDDRURDDLDDDRUDLWRUURRRRRRRRRUUURWLRULLULLDDRRRRRRRRRRRDRDDDDR",
    "DDDRRRRRRRDDDDLLLLDRRRRRRRRUUUUUUUURRRRRRDDDDDDDRRRRRDR",
    "DDRRDRDDDDDDRRRRUURRRUURUDDLURDURRUURLDDLRRRUURLDDLLDDDDRRRRRRRRRRRR",
)
TARGET_TOTAL = 4730
TARGET_SECONDS = 600


def points(number: int, letters: str) -> int:
    """The points a solution banks on its level, played from the level start."""
    return play(State(LEVELS[number - 1]), letters).score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=BEAM_WIDTH)
    parser.add_argument("--pull", type=int, default=GEM_PULL)
    parser.add_argument(
        "--depth", type=int, default=SPLICE_DEPTH, help="ticks of the splice searches (0: none)"
    )
    parser.add_argument(
        "--every", type=int, default=RESTART_EVERY, help="ticks between beam restarts (0: none)"
    )
    parser.add_argument("--level", type=int, action="append", choices=range(1, 9))
    parser.add_argument("--letters", action="store_true", help="print each re-solved solution")
    args = parser.parse_args()
    numbers = args.level or list(range(1, 9))
    print(
        f"beam width {args.width}, gem pull {args.pull}, splice depth {args.depth}, "
        f"restart every {args.every}"
    )
    print("level  reference  shipped  re-solved  same letters  ticks  seconds")
    totals = [0, 0, 0]
    every = time.perf_counter()
    for number in numbers:
        level = LEVELS[number - 1]
        start = time.perf_counter()
        clear = beam_solve(State(level), args.width, args.pull, args.depth, args.every)
        seconds = time.perf_counter() - start
        found = clear.points if clear else 0
        letters = clear.letters if clear else ""
        row = (points(number, REFERENCE[number - 1]), points(number, level.solution), found)
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(
            f"{number:5}  {row[0]:9}  {row[1]:7}  {row[2]:9}  {letters == level.solution!s:>12}"
            f"  {len(letters):5}  {seconds:7.1f}"
        )
        if args.letters:
            print(f"       {letters}")
    elapsed = time.perf_counter() - every
    print(f"total  {totals[0]:9}  {totals[1]:7}  {totals[2]:9}  {'':12}  {'':5}  {elapsed:7.1f}")
    print(
        f"re-solved / reference points: {totals[2] / totals[0]:.3f}; "
        f"time / 10 minutes: {elapsed / TARGET_SECONDS:.2f}"
    )
    if len(numbers) == len(LEVELS):
        verdict = "met" if totals[2] > TARGET_TOTAL and elapsed < TARGET_SECONDS else "missed"
        print(f"target (> {TARGET_TOTAL} points in < {TARGET_SECONDS} s): {verdict}")


if __name__ == "__main__":
    main()
