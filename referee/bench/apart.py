"""``referee bench apart``: what placing the seats on Dask workers adds to a decision.

Rounds alternate the same match between instant bots (same seed, same bots, same sandbox)
played here and played with its seats apart on the cluster, so that both halves of a round
see the same moment of the machine. Two figures per round: the relay's own share of each
decision as the log records it (``timing.relay_ms``: the referee's round trip less the bot's
time on its host), and the median decision's latency apart less here. The figure is the
median over rounds of the first, set against the goal (``GOAL_MS``); the second says what a
bot sees of it.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import trio

from referee.apart.placement import Apart, place, survey
from referee.apart.seating import play_apart
from referee.bench.referee import INSTANT_BOT, PYTHON
from referee.match.runner import run_match
from referee.record.log import read_log
from referee.record.records import MoveRecord
from referee.rules.tiles import SEATS, Seat
from referee.settings import MatchSettings, SandboxSettings

#: Milliseconds the relay may add to a decision on one host (the issue's goal).
GOAL_MS: Final = 2.0


@dataclass(frozen=True)
class Round:
    """One match here and the same match apart: medians per decision, in milliseconds."""

    here_ms: float
    apart_ms: float
    relay_ms: float
    relay_p99_ms: float
    decisions: int


def _latencies(log: Path) -> tuple[list[float], list[float]]:
    """Each move's latency and, apart, its relay time."""
    latency, relay = [], []
    for record in read_log(log).records:
        if isinstance(record, MoveRecord) and record.timing is not None:
            if record.timing.latency_ms is not None:
                latency.append(record.timing.latency_ms)
            if record.timing.relay_ms is not None:
                relay.append(record.timing.relay_ms)
    return latency, relay


def rounds(client: Any, apart: Apart, count: int, seed: int) -> Iterator[Round]:
    """``count`` rounds, each one seed's match here then apart."""
    command = " ".join([*PYTHON, str(INSTANT_BOT)])
    commands: dict[Seat, str] = dict.fromkeys(SEATS, command)
    sandbox = SandboxSettings()
    with tempfile.TemporaryDirectory(prefix="bench-apart-") as folder:
        for number in range(count):
            settings = MatchSettings(seed=seed + number)
            here = Path(folder) / f"here{number}.jsonl"
            there = Path(folder) / f"apart{number}.jsonl"
            trio.run(run_match, settings, commands, here)
            placement = place(survey(client), apart)
            trio.run(
                play_apart, client, placement, settings, commands, there, sandbox, [folder]
            )  # fmt: skip
            here_latency, _ = _latencies(here)
            apart_latency, relay = _latencies(there)
            ordered = sorted(relay)
            yield Round(
                here_ms=statistics.median(here_latency),
                apart_ms=statistics.median(apart_latency),
                relay_ms=statistics.median(relay),
                relay_p99_ms=ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
                decisions=len(relay),
            )


def lines(client: Any, apart: Apart, count: int, seed: int) -> Iterator[str]:
    """A line per round, then the figure (last)."""
    played = []
    for number, played_round in enumerate(rounds(client, apart, count, seed), 1):
        played.append(played_round)
        r = played_round
        yield (
            f"round {number}: {r.decisions} decisions; decision here {r.here_ms:.2f} ms, apart"
            f" {r.apart_ms:.2f} ms; relay median {r.relay_ms:.2f} ms, p99 {r.relay_p99_ms:.2f} ms"
        )
    relay = statistics.median(r.relay_ms for r in played)
    added = statistics.median(r.apart_ms - r.here_ms for r in played)
    low, high = min(r.relay_ms for r in played), max(r.relay_ms for r in played)
    verdict = "ok" if relay <= GOAL_MS else "over"
    yield (
        f"seats apart: relay {relay:.2f} ms a decision (median of {len(played)} rounds,"
        f" {low:.2f} to {high:.2f}), {added:+.2f} ms on the median decision against here"
        f" (goal {GOAL_MS:g} ms): {verdict}"
    )
