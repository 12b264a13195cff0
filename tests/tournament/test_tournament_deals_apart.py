"""Two matches on the same deals never run at once, and the later ones are marked so that
what the earlier bots left in the kernel's caches is wiped first: a bot cannot hear, live or
after, the match that holds the hands it faces."""

from __future__ import annotations

import concurrent.futures as cf
import random
import threading
import time
from pathlib import Path
from typing import Any

from support.tournaments import result_of

from referee.running.executors import run_jobs
from referee.running.jobs import Entrant, MatchJob
from referee.running.results import TournamentSettings
from referee.tournament.plan import plan


class _Threads(cf.Executor):
    """Plays each job in a thread for a few milliseconds, noting which deals are in flight."""

    def __init__(self) -> None:
        self.pool = cf.ThreadPoolExecutor(4)
        self.lock = threading.Lock()
        self.flying: list[str] = []
        self.overlaps: list[str] = []
        self.started: list[MatchJob] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        (job,) = args

        def play() -> Any:
            with self.lock:
                if job.deals in self.flying:
                    self.overlaps.append(job.match_id)
                self.flying.append(job.deals)
                self.started.append(job)
            time.sleep(random.uniform(0.001, 0.01))
            with self.lock:
                self.flying.remove(job.deals)
            return result_of(job)

        return self.pool.submit(play)


def test_matches_on_the_same_deals_never_overlap(tmp_path: Path) -> None:
    entrants = [Entrant(name, f"bot-{name}") for name in "abcd"]
    jobs = plan(TournamentSettings(entrants=entrants, seeds=3, seed=1), tmp_path)
    executor = _Threads()
    progress = run_jobs(executor, jobs, window=4, on_result=lambda result: True)
    assert len(progress.finished) == len(jobs) == 36  # 6 pairings, 3 seeds, 2 legs
    assert executor.overlaps == []
    first_of = {}
    for job in executor.started:
        first_of.setdefault(job.deals, job.match_id)
        assert job.after_same_deals == (first_of[job.deals] != job.match_id), job.match_id


def test_holding_matches_apart_still_fills_the_window(tmp_path: Path) -> None:
    # With as many deal seeds as places in flight, none waits for want of a free one.
    entrants = [Entrant(name, f"bot-{name}") for name in "ab"]
    jobs = plan(TournamentSettings(entrants=entrants, seeds=4, seed=1), tmp_path)
    executor = _Threads()
    most = 0

    def on_result(result: Any) -> bool:
        nonlocal most
        with executor.lock:
            most = max(most, len(executor.flying) + 1)
        return True

    run_jobs(executor, jobs, window=4, on_result=on_result)
    assert executor.overlaps == [] and most >= 3
