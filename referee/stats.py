"""Small statistics shared by check-bot, the viewer, the strong bot and the benchmarks."""

from __future__ import annotations

import math


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]
