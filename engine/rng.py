"""Deterministic, auditable randomness.

Every random outcome of a game is drawn from a :class:`RandomSource` that the
caller passes in; the engine never touches a global random generator or a clock.
:class:`SeededRandom` derives each draw as HMAC-SHA256(seed, namespace | purpose),
where ``namespace`` is the game's rules version and ``purpose`` a label unique
within one game (games build it from their state, e.g. ``"t17/roll"``).

Guarantees:
- the same (seed, namespace, purpose) always gives the same value, in any process,
  on any platform -- so a verifier holding the revealed seed can recompute every
  die value, deck order and ear colour;
- draws with different purposes are independent; the order of draws is irrelevant;
- the bias of ``randbelow(n)`` is below 2**-200 for any n < 2**56 (a 256-bit HMAC
  output reduced modulo n).

Failure modes: ``randbelow`` raises ``ValueError`` for n < 1. Reusing a purpose
label returns the same value again -- games must keep labels unique.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class RandomSource(Protocol):
    """Where the engine's random outcomes come from."""

    def randbelow(self, n: int, purpose: str) -> int:
        """A uniform integer in ``[0, n)`` determined by ``purpose``."""
        ...


class SeededRandom:
    """HMAC-SHA256 random source over a secret seed (see module docstring)."""

    def __init__(self, seed: bytes, namespace: str) -> None:
        if not seed:
            raise ValueError("seed must not be empty")
        self._key = seed
        self._prefix = namespace.encode() + b"|"

    def randbelow(self, n: int, purpose: str) -> int:
        if n < 1:
            raise ValueError("n must be >= 1")
        digest = hmac.new(self._key, self._prefix + purpose.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest, "big") % n


def roll_die(rng: RandomSource, purpose: str, sides: int = 6) -> int:
    """A die roll in ``1..sides``."""
    return rng.randbelow(sides, purpose) + 1


def shuffled(rng: RandomSource, items: Sequence[T], purpose: str) -> list[T]:
    """A Fisher-Yates shuffle of ``items``; draw ``i`` uses ``f"{purpose}/{i}"``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randbelow(i + 1, f"{purpose}/{i}")
        out[i], out[j] = out[j], out[i]
    return out


def choice(rng: RandomSource, items: Sequence[T], purpose: str) -> T:
    """One element of a non-empty sequence, uniformly."""
    if not items:
        raise ValueError("cannot choose from an empty sequence")
    return items[rng.randbelow(len(items), purpose)]
