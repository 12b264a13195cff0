"""Matches per second through the tournament runner: fresh bots and warm pools, one job and
two, against the rate the pipes allow — all measured in the same run, in alternating rounds.

Matches between instant bots go through the same path as ``referee tournament``: the plan,
worker processes, ``play`` (bot processes or a warm pool, the referee, the log). Each pool
of workers is warmed up with a pair of matches per worker first, so worker start-up is not
counted (a warm pool's first processes are started then, as any tournament's would be). Then
each round plays a short batch of each of the four, and measures the pipes' rate; each figure
is the median over the rounds of a ratio within a round, so a moment when the machine was
busy with other work moves it little.

The pipe limit: a match is a chain of round trips, one per decision, and one chain keeps
about one core busy (the referee and the bot take turns), so ``jobs`` chains reach at most
``jobs`` times the raw round trips per second, over the decisions per match: the raw rate
measured with an echo process over the same pipes (``referee.bench.referee``), the two taking
turns on one CPU, as the model has it.

``startup`` is the case warm pools are for: a bot that takes a second to start, twenty
matches, fresh and warm.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import shlex
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

import trio

from referee.bench.referee import (
    INSTANT_BOT,
    PYTHON,
    median_of,
    middle_half,
    raw_pipe_rate,
    sample_act_lines,
)
from referee.running.executors import local_executor, run_jobs
from referee.running.jobs import Entrant, MatchJob
from referee.running.results import TournamentSettings
from referee.tournament.plan import plan

#: What warm pools should reach on a 2-core machine (issue targets).
TARGET_WARM_OVER_FRESH = 5.0
TARGET_PIPE_SHARE = 0.40
TARGET_SCALING = 1.8


#: The four ways of playing measured: (warm pools, jobs).
WAYS: Final = ((False, 1), (False, 2), (True, 1), (True, 2))
#: Deal seeds (two matches each) per round: a warm pool's matches are short, fresh bots'
#: long, so that each takes a few tenths of a second a round. Two at least: the two legs of a
#: pair are never played at once, so one seed would leave a second job idle.
SEEDS_PER_ROUND: Final = {False: 2, True: 16}
#: Round trips through the echo a round: about as long as the warm batch at jobs=2.
TRIPS_PER_ROUND: Final = 4000
#: Rounds measured however short ``seconds`` is: a median needs a few; and at most (the
#: tournaments are planned for as many).
MIN_ROUNDS: Final = 5
MAX_ROUNDS: Final = 200


@dataclass(frozen=True)
class Batch:
    matches: int
    decisions: int
    seconds: float
    #: (busy, total) jiffies of the whole machine meanwhile (None off Linux).
    jiffies: tuple[int, int] | None

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds


@dataclass(frozen=True)
class Round:
    """A batch of each way of playing, and the pipes' rate, one after the other."""

    batches: dict[tuple[bool, int], Batch]
    raw_per_second: float

    def rate(self, warm: bool, jobs: int) -> float:
        return self.batches[warm, jobs].matches_per_second

    @property
    def limit(self) -> float:
        """Matches per second the pipes allow at jobs=2 (with this round's matches' length)."""
        best = self.batches[True, 2]
        return min(2, cores()) * self.raw_per_second * best.matches / best.decisions


@dataclass(frozen=True)
class TournamentBench:
    rounds: list[Round]

    def median(self, figure: Callable[[Round], float]) -> float:
        return median_of(self.rounds, figure)

    def total(self, warm: bool, jobs: int) -> Batch:
        batches = [r.batches[warm, jobs] for r in self.rounds]
        jiffies = [b.jiffies for b in batches]
        busy = [j for j in jiffies if j is not None]
        return Batch(
            sum(b.matches for b in batches),
            sum(b.decisions for b in batches),
            sum(b.seconds for b in batches),
            (sum(j[0] for j in busy), sum(j[1] for j in busy))
            if len(busy) == len(jiffies)
            else None,
        )


def _jobs(seeds: int, warm: bool, directory: Path, bot: str = "") -> list[MatchJob]:
    command = shlex.join([*PYTHON, str(INSTANT_BOT), *([bot] if bot else [])])
    settings = TournamentSettings(
        entrants=[Entrant("one", command), Entrant("two", command)], seeds=seeds, seed=1
    )
    return plan(settings, directory, warm=warm)


def _batch(pool: cf.Executor, jobs: int, planned: list[MatchJob]) -> Batch:
    before = _cpu_times()
    started = time.perf_counter()
    progress = run_jobs(pool, planned, window=2 * jobs, on_result=lambda result: True)
    seconds = time.perf_counter() - started
    after = _cpu_times()
    jiffies = None
    if before is not None and after is not None:
        jiffies = (after[0] - before[0], after[1] - before[1])
    decisions = sum(result.decisions for result in progress.finished)
    return Batch(len(progress.finished), decisions, seconds, jiffies)


def raw_round_trips_per_second(lines: list[bytes], trips: int) -> float:
    """The pipes' rate as the limit's model has a chain of round trips run: the referee and
    its bot taking turns on one core (this process and the echo pinned to the same CPU; left
    to the scheduler, the echo shared this CPU in some runs and not in others, and the rate
    moved by half)."""
    before = os.sched_getaffinity(0)
    cpu = {min(before)}
    os.sched_setaffinity(0, cpu)
    try:
        return trio.run(raw_pipe_rate, lines, trips, (cpu, cpu))
    finally:
        os.sched_setaffinity(0, before)


def run(seconds: float) -> TournamentBench:
    """Rounds of a batch of each way of playing and the pipes' rate, until the rounds have
    run ``seconds`` (and at least ``MIN_ROUNDS``): each round sees one moment of the
    machine, and the medians shrug off a busy one. Each pool of workers is warmed up with a
    pair of matches per worker first."""
    lines = sample_act_lines(1, 2000)
    rounds: list[Round] = []
    with tempfile.TemporaryDirectory() as directory, contextlib.ExitStack() as stack:
        pools, planned = {}, {}
        for warm, jobs in WAYS:
            # One tournament per way, cut into the rounds: a warm pool keeps its bots for the
            # tournament they were started for.
            seeds = jobs + SEEDS_PER_ROUND[warm] * MAX_ROUNDS
            planned[warm, jobs] = _jobs(seeds, warm, Path(directory, f"{warm}-{jobs}"))
            pools[warm, jobs] = pool = stack.enter_context(local_executor(jobs))[0]
            warm_up = planned[warm, jobs][: 2 * jobs]
            run_jobs(pool, warm_up, window=jobs, on_result=lambda result: True)
        spent = 0.0
        while (spent < seconds or len(rounds) < MIN_ROUNDS) and len(rounds) < MAX_ROUNDS:
            started = time.perf_counter()
            batches = {}
            for warm, jobs in WAYS:
                first = 2 * jobs + 2 * SEEDS_PER_ROUND[warm] * len(rounds)
                batch = planned[warm, jobs][first : first + 2 * SEEDS_PER_ROUND[warm]]
                batches[warm, jobs] = _batch(pools[warm, jobs], jobs, batch)
            raw = raw_round_trips_per_second(lines, TRIPS_PER_ROUND)
            rounds.append(Round(batches, raw))
            spent += time.perf_counter() - started
    return TournamentBench(rounds)


def startup(delay: float, matches: int, warm: bool) -> float:
    """Seconds for ``matches`` matches (one job) between bots that sleep ``delay`` s before
    ``ready``, worker start-up excluded."""
    with tempfile.TemporaryDirectory() as directory:
        planned = _jobs(matches // 2, warm, Path(directory), str(delay))
        with local_executor(1) as (pool, _):
            pool.submit(time.sleep, 0).result()  # the worker process is up
            started = time.perf_counter()
            run_jobs(pool, planned, window=2, on_result=lambda result: True)
            return time.perf_counter() - started


def cores() -> int:
    return len(os.sched_getaffinity(0))


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of the whole machine, from /proc/stat; None where there is none."""
    try:
        with open("/proc/stat") as stat:
            values = [int(value) for value in stat.readline().split()[1:]]
    except OSError:
        return None
    values = values[:8]  # guest time is already counted in user time
    idle = values[3] + values[4]  # idle and iowait
    return sum(values) - idle, sum(values)


def lines(seconds: float) -> Iterator[str]:
    """Run the benchmark; a line for each way of playing, the figure last: medians over the
    rounds of ratios within each round."""
    result = run(seconds)
    raw = result.median(lambda r: r.raw_per_second)
    yield (
        f"raw pipe: {raw:.0f} round trips/s, the median of {len(result.rounds)} rounds"
        " (the referee and the echo taking turns on one CPU)"
    )
    for warm, jobs in WAYS:
        total = result.total(warm, jobs)
        busy = ""
        if total.jiffies is not None:
            busy = f", {total.jiffies[0] / total.jiffies[1] * cores():.2f} cores busy"
        rate = result.median(partial(Round.rate, warm=warm, jobs=jobs))
        yield (
            f"{'warm' if warm else 'fresh'} jobs={jobs}: {rate:.1f} matches/s, the median"
            f" ({total.matches} matches in {total.seconds:.2f} s,"
            f" {total.decisions / total.matches:.0f} decisions a match{busy})"
        )
    limit = result.median(lambda r: r.limit)
    over_fresh = result.median(lambda r: r.rate(True, 2) / r.rate(False, 2))
    share = result.median(lambda r: r.rate(True, 2) / r.limit)
    scaling = result.median(lambda r: r.rate(True, 2) / r.rate(True, 1))
    low, high = middle_half(result.rounds, lambda r: r.rate(True, 2) / r.limit)
    yield f"middle half of the rounds: {low:.0%} to {high:.0%} of the pipe limit"
    yield (
        f"pipe limit at jobs=2: {limit:.0f} matches/s; targets: warm"
        f" {TARGET_WARM_OVER_FRESH:.0f}x fresh, {TARGET_PIPE_SHARE:.0%}"
        f" of the pipe limit, jobs=2 {TARGET_SCALING}x jobs=1"
    )
    best = result.median(lambda r: r.rate(True, 2))
    yield (
        f"tournament: {best:.1f} matches/s at jobs=2 warm ({over_fresh:.1f}x"
        f" fresh, {share:.0%} of the pipe limit, jobs=2 {scaling:.2f}x jobs=1)"
    )


def startup_lines(delay: float, matches: int) -> Iterator[str]:
    """Run the start-up benchmark, fresh then warm, a line as each ends, the figure last."""
    fresh = startup(delay, matches, warm=False)
    yield f"fresh: {matches} matches in {fresh:.1f} s"
    warm = startup(delay, matches, warm=True)
    yield f"warm: {matches} matches in {warm:.1f} s"
    yield (
        f"startup: {matches} matches with a {delay:g} s start-up: fresh {fresh:.1f} s,"
        f" warm {warm:.1f} s ({fresh / warm:.1f}x)"
    )
