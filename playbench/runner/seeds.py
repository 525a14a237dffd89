"""Seed lists as ``playbench run --seeds`` takes them: ``0-49``, ``1,5,9`` or a mix."""

from __future__ import annotations

from playbench.core.errors import PlaybenchError
from playbench.core.rng import MAX_SEED

#: the most episodes one run may list (a guard against a typo such as ``0-10000000000``)
MAX_EPISODES = 100_000


class SeedError(PlaybenchError, ValueError):
    """A seed list that cannot be read."""


def parse_seeds(text: str) -> list[int]:
    """The seeds of ``text`` in the order given: comma-separated seeds and ranges
    ``low-high`` (both ends included). Each seed once, each in 0..2^63-1."""
    seeds: list[int] = []
    seen: set[int] = set()
    parts = text.split(",")
    for part in parts:
        low, high = _range(part.strip(), text)
        if high - low + 1 + len(seeds) > MAX_EPISODES:
            raise SeedError(f"--seeds {text!r} lists more than {MAX_EPISODES} episodes")
        for seed in range(low, high + 1):
            if seed in seen:
                raise SeedError(f"--seeds {text!r} lists seed {seed} twice")
            seen.add(seed)
            seeds.append(seed)
    return seeds


def _range(part: str, text: str) -> tuple[int, int]:
    if not part:
        raise SeedError(f"--seeds {text!r} has an empty entry; write e.g. 0-49 or 1,5,9")
    low_text, dash, high_text = part.partition("-")
    low = _seed(low_text, part, text)
    high = _seed(high_text, part, text) if dash else low
    if high < low:
        raise SeedError(f"--seeds {text!r}: the range {part!r} runs backwards")
    return low, high


def _seed(word: str, part: str, text: str) -> int:
    word = word.strip()
    if not word.isdigit() or not word.isascii():
        raise SeedError(
            f"--seeds {text!r}: {part!r} is not a seed or a range (write e.g. 0-49 or 1,5,9)"
        )
    seed = int(word)
    if seed > MAX_SEED:
        raise SeedError(f"--seeds {text!r}: seed {seed} is above the largest seed {MAX_SEED}")
    return seed
