"""A small seeded generator owned by each game state.

SplitMix64: the whole state is one 64-bit integer (kept in JSON as two 32-bit words so
any JSON reader holds it exactly), and every operation is integer arithmetic, so the
same seed gives the same numbers on every platform and Python version. It never touches
the global ``random`` module.
"""

from __future__ import annotations

import secrets
import struct
from collections.abc import Callable, MutableSequence, Sequence
from functools import cache
from typing import TypeVar

from playbench.core.errors import OptionsError, StateError

T = TypeVar("T")

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MAX_SEED = (1 << 63) - 1
#: every seed drawn at random (ranked sessions, a stateless game or a terminal game started
#: without one) is below this: 2^53, so JavaScript's numbers hold it exactly and a browser
#: replays the game it names (clients may still choose any seed up to ``MAX_SEED``)
DRAWN_SEED_LIMIT = 1 << 53


_LANE_BYTES = 16


@cache
def _lanes(count: int) -> tuple[int, int, int, Callable[[bytes], tuple[int, ...]]]:
    """For ``count`` 128-bit lanes: 1 in each lane, the lane's number (1, 2, ...) in each,
    the low 64 bits of each set, and the reader of the lanes' 64-bit halves."""
    ones = sum(1 << (8 * _LANE_BYTES * lane) for lane in range(count))
    ramp = sum((lane + 1) << (8 * _LANE_BYTES * lane) for lane in range(count))
    reader = struct.Struct(f"<{2 * count}Q").unpack
    return ones, ramp, ones * MASK64, reader


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Rng:
    """SplitMix64 generator. Mutates itself; copy it with :meth:`copy`."""

    __slots__ = ("state",)

    def __init__(self, state: int = 0) -> None:
        self.state = state & MASK64

    @classmethod
    def from_seed(cls, seed: int, *streams: int) -> Rng:
        """A generator for ``seed``, optionally split into independent ``streams``.

        ``Rng.from_seed(seed, level)`` gives each level its own sequence, unaffected by
        how many numbers were drawn elsewhere.
        """
        state = _mix((seed + GOLDEN_GAMMA) & MASK64)
        for stream in streams:
            state = _mix(((state ^ (stream & MASK64)) + GOLDEN_GAMMA) & MASK64)
        return cls(state)

    def copy(self) -> Rng:
        return Rng(self.state)

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        return _mix(self.state)

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next_u64()
            if value < limit:
                return value % n

    def next_each(self, count: int) -> list[int]:
        """The numbers, and the state after, of ``count`` calls of :meth:`next_u64`, drawn
        at once: each number is mixed in its own 128-bit lane of one big integer, so the
        cost hardly grows with ``count``."""
        if count <= 0:
            return []
        ones, ramp, lanes, unpack = _lanes(count)
        z = (self.state * ones + GOLDEN_GAMMA * ramp) & lanes
        self.state = (self.state + count * GOLDEN_GAMMA) & MASK64
        # _mix lane by lane; each mask drops what a shift brought down from the next lane
        z = (z ^ z >> 30) & lanes
        z = z * 0xBF58476D1CE4E5B9 & lanes
        z = (z ^ z >> 27) & lanes
        z = z * 0x94D049BB133111EB & lanes
        z = (z ^ z >> 31) & lanes
        return list(unpack(z.to_bytes(count * _LANE_BYTES, "little"))[::2])

    def below_each(self, n: int, count: int) -> list[int]:
        """``count`` uniform integers in ``0 .. n-1``: exactly the numbers, and the state
        after, of ``count`` calls of :meth:`below`, drawn in one call (:func:`_mix` written
        out in the loop, which saves a call a number; for the few numbers a step of a game
        draws, this is cheaper than :meth:`next_each`)."""
        if n <= 0:
            raise ValueError(f"below_each() needs a positive bound, got {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        state = self.state
        drawn: list[int] = []
        while len(drawn) < count:
            state = (state + GOLDEN_GAMMA) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            if z < limit:
                drawn.append(z % n)
        self.state = state
        return drawn

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``low .. high`` inclusive."""
        if high < low:
            raise ValueError(f"randint() needs low <= high, got {low} > {high}")
        return low + self.below(high - low + 1)

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) / float(1 << 53)

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator / denominator``, exactly, in integers."""
        return self.below(denominator) < numerator

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_json(self) -> list[int]:
        return [self.state >> 32, self.state & MASK32]

    @classmethod
    def from_json(cls, data: object) -> Rng:
        if (
            not isinstance(data, list)
            or len(data) != 2
            or not all(type(w) is int and 0 <= w <= MASK32 for w in data)
        ):
            raise StateError("rng state must be a list of two 32-bit unsigned integers")
        return cls((data[0] << 32) | data[1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    def __hash__(self) -> int:
        return hash(self.state)

    def __repr__(self) -> str:
        return f"Rng({self.state:#018x})"


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is a valid seed (an integer in 0 .. 2**63-1), else raise."""
    if type(seed) is not int:
        raise OptionsError(f"seed must be an integer, got {type(seed).__name__}")
    if not 0 <= seed <= MAX_SEED:
        raise OptionsError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
    return seed


def draw_seed() -> int:
    """A random seed below :data:`DRAWN_SEED_LIMIT` (2^53, exact in JavaScript)."""
    return secrets.randbelow(DRAWN_SEED_LIMIT)
