"""Random sources for the bots, derived from the one the caller passes in.

Every draw a bot makes goes through the caller's :class:`~engine.rng.RandomSource`
under a purpose label of its own, so a bot's choice is a pure function of (view,
legal commands, random source, budget) and repeats exactly.
"""

from __future__ import annotations

from engine.rng import RandomSource, SeededRandom

SEED_BITS = 128


class ScopedRandom:
    """A random source whose purposes live under ``prefix`` in another source.

    ``engine.playout.play`` hands every policy the same source with a fresh
    purpose per decision; scoping by that purpose keeps the draws of different
    decisions independent although each decision uses the same labels inside.
    """

    __slots__ = ("_inner", "_prefix")

    def __init__(self, inner: RandomSource, prefix: str) -> None:
        self._inner = inner
        self._prefix = prefix

    def randbelow(self, n: int, purpose: str) -> int:
        return self._inner.randbelow(n, f"{self._prefix}/{purpose}")


def derived(rng: RandomSource, purpose: str, namespace: str) -> SeededRandom:
    """A new independent seeded source, its seed drawn from ``rng`` under ``purpose``."""
    seed = rng.randbelow(1 << SEED_BITS, purpose).to_bytes(SEED_BITS // 8, "big")
    return SeededRandom(seed, namespace)
