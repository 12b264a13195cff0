"""Small statistics shared by check-bot, the viewer, the tournament, the strong bot and the
benchmarks."""

from __future__ import annotations

import math
from statistics import NormalDist


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
