"""How fast the compiled rules core plays against the Python engine, in one run.

Random legal play of whole matches with the exact seeded deals: the Python engine through
its public API (as ``bench engine``) and the core batched (``Batch``: many matches stepped at
once, the actions drawn in C), in alternating rounds — both halves of a round see the same
moment of a shared machine, so the ratio, the median of the rounds', moves little when other
work takes a CPU. Then the core one match at a time, and the deal's SHA-256 alone: its share
of the batched time. The last line is the ratio.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

from referee.bench import engine

#: Hands the Python engine plays a round (a few tenths of a second).
PYTHON_HANDS = 3_000


def lines(hands: int, seed: int, batch: int, rounds: int = 5) -> Iterator[str]:
    from referee.core import _texas42  # type: ignore[attr-defined]

    games = _texas42.Batch(batch, seed, seed + 1)
    python_rates, core_rates, step_rates, ratios = [], [], [], []
    for number in range(rounds):
        python = engine.run(PYTHON_HANDS, seed + number * PYTHON_HANDS).hands_per_second
        played = steps = 0
        start = time.perf_counter()
        while played < hands // rounds:
            played += games.random(16)
            steps += 16 * batch
        seconds = time.perf_counter() - start
        python_rates.append(python)
        core_rates.append(played / seconds)
        step_rates.append(steps / seconds)
        ratios.append(played / seconds / python)
    batched = statistics.median(core_rates)
    yield f"python engine: {statistics.median(python_rates):,.0f} hands/s (median of {rounds})"
    yield (
        f"core, batched ({batch:,} matches): {batched:,.0f} hands/s,"
        f" {statistics.median(step_rates):,.0f} steps/s (medians)"
    )

    start = time.perf_counter()
    played = _texas42.random_matches(seed, max(hands // (6 * rounds), 1), seed + 1)
    yield f"core, one match at a time: {played / (time.perf_counter() - start):,.0f} hands/s"

    count = max(hands // rounds, 1)
    start = time.perf_counter()
    _texas42.deals(seed, count)
    deal = (time.perf_counter() - start) / count
    yield f"the deal (SHA-256) alone: {1 / deal:,.0f} deals/s, {deal * batched:.0%} of the batched"
    spread = f"rounds {min(ratios):,.0f}x to {max(ratios):,.0f}x"
    yield f"core batched / python engine: {statistics.median(ratios):,.0f}x ({spread})"
