"""Counter-based deterministic random numbers (architecture §2 "Randomness").

Each draw is a pure function of ``(seed, counter)`` (SplitMix64 finaliser), so the same seed and the same
sequence of actions give the same game on any machine and Python version. The engine never touches the
``random`` module.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def mix64(seed: int, counter: int) -> int:
    """Return a 64-bit pseudo-random integer for ``(seed, counter)`` (SplitMix64)."""
    z = (seed + (counter + 1) * _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Rng:
    """A cursor over the counter-based stream: ``seed`` is fixed, ``counter`` advances by one per draw.

    Args:
        seed: any non-negative int (reduced mod 2**64).
        counter: number of draws already made.
    """

    __slots__ = ("counter", "seed")

    def __init__(self, seed: int, counter: int = 0) -> None:
        self.seed = seed & _MASK
        self.counter = counter

    def below(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)`` (unbiased, by rejection); ``ValueError`` if ``n < 1``."""
        if n < 1:
            raise ValueError("n must be >= 1")
        limit = ((1 << 64) // n) * n
        while True:
            x = mix64(self.seed, self.counter)
            self.counter += 1
            if x < limit:
                return x % n

    def d6(self) -> int:
        """Return one six-sided die roll, 1..6."""
        return self.below(6) + 1

    def shuffle(self, items: list[int]) -> None:
        """Shuffle ``items`` in place (Fisher–Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
