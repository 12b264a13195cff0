"""Matches per second through the tournament runner: fresh bots and warm pools, one job and
two, against the rate the pipes allow — all measured in the same run.

Matches between instant bots go through the same path as ``referee tournament``: the plan,
worker processes, ``play`` (bot processes or a warm pool, the referee, the log). Each pool
of workers is warmed up with a pair of matches per worker first, so worker start-up is not
counted (a warm pool's first processes are started then, as any tournament's would be).

The pipe limit: a match is a chain of round trips, one per decision, and one chain keeps
about one core busy (the referee and the bot take turns), so ``jobs`` chains reach at most
``jobs`` times the raw round trips per second, over the decisions per match: the raw rate
measured here with an echo process over the same pipes (``referee.bench.referee``).

``startup`` is the case warm pools are for: a bot that takes a second to start, twenty
matches, fresh and warm.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.bench.referee import INSTANT_BOT, PYTHON, raw_pipe_rate, sample_act_lines
from referee.running.executors import local_executor, run_jobs
from referee.running.jobs import Entrant, MatchJob
from referee.running.results import TournamentSettings
from referee.tournament.plan import plan

#: What warm pools should reach on a 2-core machine (issue targets).
TARGET_WARM_OVER_FRESH = 5.0
TARGET_PIPE_SHARE = 0.40
TARGET_SCALING = 1.8


@dataclass(frozen=True)
class TournamentBench:
    jobs: int
    warm: bool
    matches: int
    decisions: int
    seconds: float
    #: Cores the whole machine kept busy during the timed matches (None off Linux).
    busy_cores: float | None

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds

    @property
    def decisions_per_match(self) -> float:
        return self.decisions / self.matches


def _jobs(seeds: int, jobs: int, warm: bool, directory: Path, bot: str = "") -> list[MatchJob]:
    command = shlex.join([*PYTHON, str(INSTANT_BOT), *([bot] if bot else [])])
    settings = TournamentSettings(
        entrants=[Entrant("one", command), Entrant("two", command)], seeds=seeds, seed=1
    )
    return plan(settings, directory, warm=warm)


def run(seeds: int, jobs: int, warm: bool) -> TournamentBench:
    with tempfile.TemporaryDirectory() as directory:
        planned = _jobs(seeds + jobs, jobs, warm, Path(directory))
        warm_up, timed = planned[: 2 * jobs], planned[2 * jobs :]
        with local_executor(jobs) as (pool, _):
            run_jobs(pool, warm_up, window=jobs, on_result=lambda result: True)
            before = _cpu_times()
            started = time.perf_counter()
            progress = run_jobs(pool, timed, window=2 * jobs, on_result=lambda result: True)
            seconds = time.perf_counter() - started
            after = _cpu_times()
    busy = None
    if before is not None and after is not None:
        busy = (after[0] - before[0]) / (after[1] - before[1]) * cores()
    decisions = sum(result.decisions for result in progress.finished)
    return TournamentBench(jobs, warm, len(progress.finished), decisions, seconds, busy)


def raw_round_trips_per_second(rounds: int = 20_000) -> float:
    trips, seconds = trio.run(raw_pipe_rate, sample_act_lines(1, 2000), rounds)
    return trips / seconds


def startup(delay: float, matches: int, warm: bool) -> float:
    """Seconds for ``matches`` matches (one job) between bots that sleep ``delay`` s before
    ``ready``, worker start-up excluded."""
    with tempfile.TemporaryDirectory() as directory:
        planned = _jobs(matches // 2, 1, warm, Path(directory), str(delay))
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


def lines(seeds: int) -> Iterator[str]:
    """Run the benchmark, a line as each measurement ends, the figure last."""
    raw = raw_round_trips_per_second()
    yield f"raw pipe: {raw:.0f} round trips/s"
    runs = {}
    for warm in (False, True):
        for jobs in (1, 2):
            result = runs[warm, jobs] = run(seeds, jobs, warm)
            busy = "" if result.busy_cores is None else f", {result.busy_cores:.2f} cores busy"
            yield (
                f"{'warm' if warm else 'fresh'} jobs={jobs}: {result.matches} matches in"
                f" {result.seconds:.2f} s = {result.matches_per_second:.1f}/s"
                f" ({result.decisions_per_match:.0f} decisions a match{busy})"
            )
    best = runs[True, 2]
    limit = min(2, cores()) * raw / best.decisions_per_match
    over_fresh = best.matches_per_second / runs[False, 2].matches_per_second
    share = best.matches_per_second / limit
    scaling = best.matches_per_second / runs[True, 1].matches_per_second
    yield (
        f"pipe limit at jobs=2: {limit:.0f} matches/s; targets: warm"
        f" {TARGET_WARM_OVER_FRESH:.0f}x fresh, {TARGET_PIPE_SHARE:.0%}"
        f" of the pipe limit, jobs=2 {TARGET_SCALING}x jobs=1"
    )
    yield (
        f"tournament: {best.matches_per_second:.1f} matches/s at jobs=2 warm ({over_fresh:.1f}x"
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
