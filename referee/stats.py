"""Small statistics shared by check-bot, the viewer, the tournament, the strong bot and the
benchmarks."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import NamedTuple


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def wilson_interval(score: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``score`` out of ``n``: it always holds
    ``score / n`` (rounding alone put the low end for 0 out of 5 at 3e-17, above it)."""
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference whose expected score is ``score``: ``-400 log10(1/score -
    1)``, as fastchess and cutechess compute it; -inf at 0 and +inf at 1 (a side that lost or
    won everything is beyond any finite difference)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # never -0.0


class EloEstimate(NamedTuple):
    """An Elo difference from paired scores, with its 95% interval and the likelihood of
    superiority: ``elo`` and the interval's ends may be infinite (a score of 0 or 1)."""

    #: Units counted (duplicate pairs) and their mean score, 0 to 1.
    units: int
    score: float
    elo: float
    low: float
    high: float
    #: The chance the true difference is above 0 (likelihood of superiority), 0 to 1.
    los: float

    @property
    def error(self) -> float:
        """Half the interval's width in Elo, as fastchess prints it after ``±`` (infinite
        when an end is)."""
        if math.isinf(self.low) or math.isinf(self.high):
            return math.inf
        return (self.high - self.low) / 2


def elo_estimate(scores: Sequence[float], confidence: float = 0.95) -> EloEstimate | None:
    """The Elo difference of the units' mean score (None for no unit), as fastchess's
    pentanomial statistics compute it (``EloPentanomial``): the units are duplicate pairs,
    each scored 0 to 1 (the mean of its two legs), so the luck of the deal that a pair cancels
    stays out of the variance. The score's standard error is ``sqrt(v / n)``, ``v`` the pairs'
    variance around their mean; the interval is the score ± z standard errors turned into
    Elo at each end; the LOS is ``Phi((score - 0.5) / standard error)`` (fastchess:
    ``(1 - erf(-(score - 0.5) / sqrt(2 v / n))) / 2``), 1 or 0 when every pair scored alike
    on one side of a half, and a half at exactly a half. When every pair scored the same
    there is no spread to measure (fastchess prints a zero-width interval, or infinities),
    and the interval is Wilson's on the score instead: eight pairs all won are at least
    +127 Elo (95%), not exactly infinite."""
    n = len(scores)
    if n == 0:
        return None
    score = sum(scores) / n
    error = math.sqrt(sum((x - score) ** 2 for x in scores) / n / n)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if error > 0:
        los = NormalDist().cdf((score - 0.5) / error)
        low, high = score - z * error, score + z * error
    else:  # every pair alike: no spread to measure, so Wilson's interval of the score
        los = 0.5 if score == 0.5 else float(score > 0.5)
        low, high = wilson_interval(score * n, n, confidence)
    return EloEstimate(n, score, elo_of_score(score), elo_of_score(low), elo_of_score(high), los)


def signed_elo(value: float, digits: int = 1) -> str:
    """An Elo difference with its sign, for people: ``+35.2``, ``-8.0``, ``+∞``, ``-∞``."""
    if math.isinf(value):
        return "+∞" if value > 0 else "-∞"
    return f"{value:+.{digits}f}"


def marks_per_match(value: float | None) -> str:
    """Marks won minus marks conceded, a match, for people: ``+0.94`` (a total over hundreds
    of matches, ``+150``, read like an interval beside the others); — for no match."""
    return "—" if value is None else f"{value:+.2f}"
