"""Which two entrants play the next duplicate pair: where a result would teach the most.

A pure choice from the ratings (openskill's mu and sigma per entrant version) and the pairs
each has played, so the runner, the tests and the benchmark schedule alike:

- **New versions first.** An entrant with fewer than ``NEW_PAIRS`` pairs plays next, against
  the entrant whose rating is closest to its own (its first results then place it fastest).
- **Otherwise the least certain pair.** Each pair of entrants is scored by how much its
  result is in doubt and how unsure both ratings are: ``p (1 - p) (sigma_a² + sigma_b²)``,
  ``p`` the chance the first wins by the ratings. Two entrants far apart teach little (the
  result is known); two settled ratings teach little (nothing moves). Ties go to the pair
  that has played least, then to the older entrants.

``stable`` says when the order is settled: every two neighbours in it are apart by at least
``confidence`` (by the ratings' own uncertainty).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from statistics import NormalDist
from typing import Final

#: Pairs a new entrant plays before the schedule treats it like the others.
NEW_PAIRS: Final = 2
#: openskill's performance spread (beta): the scale on which a rating gap becomes a chance.
BETA: Final = 25 / 6


@dataclass(frozen=True)
class Rated:
    """What the schedule knows of one entrant version."""

    id: int
    mu: float
    sigma: float


def win_chance(a: Rated, b: Rated) -> float:
    """The chance ``a`` beats ``b`` by their ratings (openskill's two-player prediction)."""
    spread = math.sqrt(2 * BETA**2 + a.sigma**2 + b.sigma**2)
    return NormalDist().cdf((a.mu - b.mu) / spread)


def next_pair(
    entrants: Sequence[Rated],
    pairs_played: Mapping[frozenset[int], float],
    in_flight: Mapping[frozenset[int], float] | None = None,
) -> tuple[Rated, Rated]:
    """The two entrants to play the next duplicate pair (at least two entrants).
    ``in_flight``: pairs being played, whose results the ratings do not hold yet — each
    counts as played, and divides what its pair would teach."""
    assert len(entrants) >= 2
    flying = in_flight or {}
    pairs_played = {
        key: pairs_played.get(key, 0) + flying.get(key, 0) for key in {*pairs_played, *flying}
    }
    played: dict[int, float] = {e.id: 0 for e in entrants}
    for key, count in pairs_played.items():
        for entrant_id in key:
            if entrant_id in played:
                played[entrant_id] += count
    newest = [e for e in entrants if played[e.id] < NEW_PAIRS]
    if newest:
        new = min(newest, key=lambda e: (played[e.id], e.id))
        other = min(
            (e for e in entrants if e.id != new.id),
            key=lambda e: (
                pairs_played.get(frozenset((new.id, e.id)), 0),
                abs(e.mu - new.mu),
                e.id,
            ),
        )
        return new, other

    def worth(pair: tuple[Rated, Rated]) -> tuple[float, float, int, int]:
        a, b = pair
        p = win_chance(a, b)
        key = frozenset((a.id, b.id))
        teaches = p * (1 - p) * (a.sigma**2 + b.sigma**2) / (1 + flying.get(key, 0))
        return (-teaches, pairs_played.get(key, 0), a.id, b.id)

    return min(combinations(sorted(entrants, key=lambda e: e.id), 2), key=worth)


def stable(entrants: Sequence[Rated], confidence: float = 0.95) -> bool:
    """Every two neighbours in the rating order are ordered with at least ``confidence``."""
    ranked = sorted(entrants, key=lambda e: -e.mu)
    for upper, lower in pairwise(ranked):
        gap = (upper.mu - lower.mu) / math.sqrt(upper.sigma**2 + lower.sigma**2)
        if NormalDist().cdf(gap) < confidence:
            return False
    return True
