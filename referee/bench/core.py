"""How fast the compiled rules core plays against the Python engine, in one run.

Random legal play of whole matches with the exact seeded deals: the Python engine through
its public API (as ``bench engine``), the core one match at a time, and the core batched
(``Batch``: many matches stepped at once, the actions drawn in C). The deal's SHA-256 is
timed apart, so its share of the batched figure is known. The last line is the ratio of the
batched core to the Python engine.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from referee.bench import engine


def lines(hands: int, seed: int, batch: int) -> Iterator[str]:
    from referee.core import _texas42  # type: ignore[attr-defined]

    python = engine.run(max(hands // 100, 1_000), seed)
    python_rate = python.hands_per_second
    yield f"python engine: {python.hands:,} hands, {python_rate:,.0f} hands/s"

    start = time.perf_counter()
    matches = max(hands // 6, 1)
    played = _texas42.random_matches(seed, matches, seed + 1)
    single = played / (time.perf_counter() - start)
    yield f"core, one match at a time: {played:,} hands, {single:,.0f} hands/s"

    games = _texas42.Batch(batch, seed, seed + 1)
    steps = 0
    played = 0
    start = time.perf_counter()
    while played < hands:
        played += games.random(64)
        steps += 64 * batch
    seconds = time.perf_counter() - start
    batched = played / seconds
    yield (
        f"core, batched ({batch:,} matches): {played:,} hands, {batched:,.0f} hands/s,"
        f" {steps / seconds:,.0f} steps/s"
    )

    start = time.perf_counter()
    _texas42.deals(seed, hands)
    deal_seconds = (time.perf_counter() - start) / hands
    share = deal_seconds * batched
    yield f"the deal (SHA-256) alone: {1 / deal_seconds:,.0f} deals/s, {share:.0%} of the batched"
    yield f"core batched / python engine: {batched / python_rate:,.0f}x"
