"""Matches per second through the tournament runner, at one and at two jobs.

Matches between instant bots go through the same path as ``referee tournament``: the plan,
worker processes, ``play`` (bot processes, the referee, the log). Each pool is warmed up with
one match per worker first, so worker start-up is not counted.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from referee.bench.referee import INSTANT_BOT
from referee.tournament.plan import Entrant, TournamentSettings, plan
from referee.tournament.run import local_executor, run_jobs


@dataclass(frozen=True)
class TournamentBench:
    jobs: int
    matches: int
    seconds: float

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds


def run(seeds: int, jobs: int, seed: int = 1) -> TournamentBench:
    command = shlex.join([sys.executable, str(INSTANT_BOT)])
    settings = TournamentSettings(
        entrants=[Entrant("one", command), Entrant("two", command)], seeds=seeds + jobs, seed=seed
    )
    with tempfile.TemporaryDirectory() as directory:
        planned = plan(settings, Path(directory))
        warm_up, timed = planned[:jobs], planned[jobs : jobs + 2 * seeds]
        with local_executor(jobs) as pool:
            run_jobs(pool, warm_up, window=jobs, on_result=lambda result: True)
            started = time.perf_counter()
            progress = run_jobs(pool, timed, window=2 * jobs, on_result=lambda result: True)
            seconds = time.perf_counter() - started
    return TournamentBench(jobs, len(progress.finished), seconds)
