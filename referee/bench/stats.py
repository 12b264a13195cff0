"""How fast ``referee stats`` counts a tournament: matches per second, against the rate at
which the same logs can merely be read — measured in the same run.

A real tournament is played first (``referee tournament``: instant bots, two jobs, the
sandbox off: only the logs matter here), then, in alternating rounds, its logs are read
alone (parsed and their chains checked, as every reader of a log must) and counted as the
command does (results file, every log read and walked once, the numbers, the tables drawn).
Reading is the floor no count can go under; the walk re-plays every move through the rules
engine. The goal: a tournament of a few thousand matches in seconds (3,000 in 10 s).
"""

from __future__ import annotations

import io
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from rich.console import Console

from referee.bench.referee import INSTANT_BOT, PYTHON
from referee.record.log import read_log
from referee.tally.sources import tally_paths
from referee.tally.summary import summarize
from referee.tally.terminal import print_summary

#: A tournament of this many matches must be counted within ``GOAL_SECONDS``.
GOAL_MATCHES: Final = 3000
GOAL_SECONDS: Final = 10.0


def play(seeds: int, folder: Path) -> Path:
    """A tournament of ``2 * seeds`` matches between instant bots; its results file."""
    bot = shlex.join([*PYTHON, str(INSTANT_BOT)])
    results = folder / "results.jsonl"
    command = [sys.executable, "-m", "referee", "tournament", "--bot", f"one={bot}",
               "--bot", f"two={bot}", "--seeds", str(seeds), "--seed", "1", "--jobs", "2",
               "--sandbox", "off", "--results", str(results)]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True)
    return results


def read_alone(logs: list[Path]) -> float:
    """Seconds to read every log (parse and chain), nothing more."""
    started = time.perf_counter()
    for path in logs:
        read_log(path)
    return time.perf_counter() - started


def count(results: Path) -> float:
    """Seconds for what ``referee stats RESULTS`` does, the tables drawn into memory."""
    started = time.perf_counter()
    summary = summarize(tally_paths([results]))
    sink = Console(file=io.StringIO(), width=100)
    print_summary(summary, sink, sink)
    return time.perf_counter() - started


def lines(seeds: int, rounds: int = 3) -> Iterator[str]:
    """Play the tournament, then time reading and counting in alternating rounds; the figure
    last."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        started = time.perf_counter()
        results = play(seeds, folder)
        logs = sorted((folder / "logs").glob("*.jsonl"))
        matches = len(logs)
        yield (
            f"tournament: {matches} matches in {time.perf_counter() - started:.1f} s"
            f" ({sum(p.stat().st_size for p in logs) / 2**20:.0f} MiB of logs)"
        )
        reading, counting = [], []
        for _ in range(rounds):
            reading.append(read_alone(logs))
            counting.append(count(results))
        read_s, count_s = statistics.median(reading), statistics.median(counting)
        yield f"reading the logs alone: {read_s:.2f} s = {matches / read_s:.0f} matches/s"
        yield f"counting them (referee stats): {count_s:.2f} s = {matches / count_s:.0f} matches/s"
    rate = matches / count_s
    yield (
        f"stats: {rate:.0f} matches/s ({rate / (matches / read_s):.0%} of the reading rate;"
        f" {GOAL_MATCHES:,} matches in {GOAL_MATCHES / rate:.1f} s, goal {GOAL_SECONDS:g} s)"
    )
