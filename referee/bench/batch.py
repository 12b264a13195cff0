"""How fast the batched environment of the compiled core steps, in one run.

A round steps every one of ``batch`` matches once per step, as a training loop does, the
random legal actions drawn in C; each step writes, for every match, the seat to act, its
legal-action mask, the rewards and the ends, and (the figure) each seat's information state,
kept up to date in place. The same batch without the information states runs in alternating
rounds, so the tensors' cost is read against a rate measured at the same moment of a shared
machine. Then, once each: the acting seat's observation written whole as well, and a loop
driven from Python (numpy picks a legal action per match, ``Batch.step``). The last line is
the figure with the goal.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

import numpy as np

from referee.core import _texas42  # type: ignore[attr-defined]
from referee.core.batch import Batch

#: The issue's goal for the batched environment at a batch of 1,024, on one core.
GOAL = 5_000_000


def _rate(batch: Batch, steps: int) -> float:
    start = time.perf_counter()
    batch.random(steps)
    return batch.size * steps / (time.perf_counter() - start)


def lines(batch: int, steps: int, seed: int, rounds: int = 5) -> Iterator[str]:
    bare, full = Batch(batch, seed), Batch(batch, seed, states=True)
    bare.random(8), full.random(8)  # the pages touched once
    bare_rates, full_rates = [], []
    for _ in range(rounds):
        bare_rates.append(_rate(bare, steps))
        full_rates.append(_rate(full, steps))
    size = _texas42.STATE_SIZE
    yield (
        f"masks, rewards and ends only: {statistics.median(bare_rates):,.0f} steps/s"
        f" (median of {rounds} rounds)"
    )
    seen = Batch(batch, seed, states=True, observations=True)
    seen.random(8)
    yield (
        f"with the acting seat's observation ({_texas42.OBSERVATION_SIZE} float32) written"
        f" whole too: {_rate(seen, steps):,.0f} steps/s"
    )
    driven, rng = Batch(batch, seed, states=True), np.random.default_rng(seed)
    start, count = time.perf_counter(), max(steps // 4, 1)
    for _ in range(count):
        driven.step((rng.random(driven.masks.shape) * driven.masks).argmax(axis=1))
    python = batch * count / (time.perf_counter() - start)
    yield f"driven from Python (numpy picks each action, Batch.step): {python:,.0f} steps/s"
    rate, share = (
        statistics.median(full_rates),
        statistics.median(f / b for f, b in zip(full_rates, bare_rates, strict=True)),
    )
    verdict = "ok" if rate >= GOAL else "short"
    yield (
        f"batched environment ({batch:,} matches, actions drawn in C, masks and every seat's"
        f" information state of {size:,} float32 written each step): {rate:,.0f} steps/s,"
        f" {share:.0%} of the rate without the states; goal {GOAL:,}: {verdict}"
    )
