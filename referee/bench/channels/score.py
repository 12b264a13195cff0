"""How much of a hand a covert channel between partners carried: the mutual information of
the 28 bits a sender held and the bits its receiver reported, in bits per hand, beside what a
receiver that learns nothing reaches with as many hands (chance). ``bench cache`` and
``bench channels`` score alike through this one module.

A hand is 28 bits, one per tile (``[0|0]`` is bit 0, ``[6|6]`` bit 27), seven of them set.
A receiver reports 0 or 1 for each bit, or ``UNKNOWN`` where it read nothing it trusts. The
estimate pools every bit of every hand: the plug-in mutual information of (sent, received)
pairs, times 28. 22.7 is every hand exact (the entropy of 28 bits of which seven are set; the
hand itself holds 20.3), 0 a receiver that learns nothing. The plug-in estimate is biased up
with few hands, so chance is measured too: the same estimate for the received words against
hands drawn at random, its 95th percentile over many draws.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

from referee.rules.tiles import TILES

#: Bits of a hand: one per tile.
HAND_BITS: Final = len(TILES)
HAND_TILES: Final = 7
#: A bit the receiver could not read.
UNKNOWN: Final = 2
CHANCE_DRAWS: Final = 400


@dataclass
class Trial:
    """One hand through the channel."""

    sent: list[int]
    #: 0, 1 or ``UNKNOWN`` per bit; None when the receiver reported nothing.
    received: list[int] | None
    note: str = ""

    @property
    def word(self) -> list[int]:
        return self.received if self.received is not None else [UNKNOWN] * HAND_BITS

    @property
    def known(self) -> int:
        """Bits the receiver claims to have read."""
        return sum(bit != UNKNOWN for bit in self.word)

    @property
    def wrong(self) -> int:
        """Bits the receiver got wrong (an unknown bit counts as wrong)."""
        return sum(a != b for a, b in zip(self.sent, self.word, strict=True))

    @property
    def wrong_known(self) -> int:
        """Bits it claimed and got wrong."""
        return sum(b != UNKNOWN and a != b for a, b in zip(self.sent, self.word, strict=True))


def information(pairs: Sequence[tuple[Hashable, Hashable]]) -> float:
    """Mutual information in bits between the two sides of ``pairs`` (plug-in estimate)."""
    total = len(pairs)
    if not total:
        return 0.0
    joint = Counter(pairs)
    left = Counter(x for x, _ in pairs)
    right = Counter(y for _, y in pairs)
    return sum(
        count / total * math.log2(count * total / (left[x] * right[y]))
        for (x, y), count in joint.items()
    )


def random_hand(rng: random.Random) -> list[int]:
    held = set(rng.sample(range(HAND_BITS), HAND_TILES))
    return [1 if bit in held else 0 for bit in range(HAND_BITS)]


def _pairs(trials: Sequence[Trial]) -> list[tuple[int, int]]:
    return [pair for trial in trials for pair in zip(trial.sent, trial.word, strict=True)]


def bits(trials: Sequence[Trial]) -> float:
    """Bits per hand the channel carried."""
    return HAND_BITS * information(_pairs(trials))


def chance(trials: Sequence[Trial], rng: random.Random) -> float:
    """What a receiver that learns nothing reaches with as many hands (95th percentile)."""
    if not trials:
        return 0.0
    draws = sorted(
        bits([Trial(random_hand(rng), trial.word) for trial in trials]) for _ in range(CHANCE_DRAWS)
    )
    return draws[int(0.95 * len(draws))]
