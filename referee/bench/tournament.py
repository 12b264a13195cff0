"""Matches per second through the tournament runner, at one and at two jobs.

Matches between instant bots go through the same path as ``referee tournament``: the plan,
worker processes, ``play`` (bot processes, the referee, the log). Each pool is warmed up with
one match per worker first, so worker start-up is not counted. The limit it measures in the
same run: how many of the machine's cores one job already keeps busy (a match starts four
bot interpreters at once), so the speed-up two jobs can reach is cores / busy cores at one.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from referee.bench.referee import INSTANT_BOT, PYTHON
from referee.tournament.plan import Entrant, TournamentSettings, plan
from referee.tournament.run import local_executor, run_jobs


@dataclass(frozen=True)
class TournamentBench:
    jobs: int
    matches: int
    seconds: float
    #: Cores the whole machine kept busy during the timed matches (None off Linux).
    busy_cores: float | None

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds


def run(seeds: int, jobs: int, seed: int = 1) -> TournamentBench:
    command = shlex.join([*PYTHON, str(INSTANT_BOT)])
    settings = TournamentSettings(
        entrants=[Entrant("one", command), Entrant("two", command)], seeds=seeds + jobs, seed=seed
    )
    with tempfile.TemporaryDirectory() as directory:
        planned = plan(settings, Path(directory))
        warm_up, timed = planned[:jobs], planned[jobs : jobs + 2 * seeds]
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
    return TournamentBench(jobs, len(progress.finished), seconds, busy)


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
