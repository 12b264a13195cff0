"""Running the planned matches: in worker processes here, or on a Dask cluster.

Both run the same job function, ``play``, through a ``concurrent.futures`` executor (Dask's
``Client.get_executor()`` is one), so a match is the same whichever machine plays it: same
seed, same bots, same ``game_digest``. Only a bounded window of matches is submitted ahead,
so stopping (an SPRT verdict, Ctrl-C) wastes little.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.runner import run_match
from referee.tournament.plan import MatchJob
from referee.tournament.results import MatchResult, result_of


def play(job: MatchJob) -> MatchResult:
    """Play one match where this runs (a worker process, a Dask worker) and return its line."""
    outcome = trio.run(run_match, job.settings, job.commands, Path(job.log))
    return result_of(job, outcome)


def default_jobs() -> int:
    """One match per core: a match has one bot thinking at a time, so a core per match keeps
    parallel load from slowing any bot's answers."""
    return max(1, len(os.sched_getaffinity(0)))


@contextmanager
def local_executor(jobs: int) -> Iterator[cf.Executor]:
    """Worker processes on this machine (spawned: no state shared with this process)."""
    executor = cf.ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("spawn")
    )
    try:
        yield executor
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


@contextmanager
def dask_executor(address: str, jobs: int) -> Iterator[cf.Executor]:
    """A Dask cluster at ``address``, or ``"local"``: a LocalCluster of ``jobs`` workers."""
    from distributed import Client, LocalCluster

    cluster = None
    if address == "local":
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)  # type: ignore[no-untyped-call]
    else:
        client = Client(address)  # type: ignore[no-untyped-call]
    try:
        yield client.get_executor(pure=False)  # type: ignore[no-untyped-call]
    finally:
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()


@dataclass
class Progress:
    """What the driver reports after each finished match."""

    finished: list[MatchResult] = field(default_factory=list)
    stopped: str | None = None


def run_jobs(
    executor: cf.Executor,
    jobs: list[MatchJob],
    window: int,
    on_result: Callable[[MatchResult], bool],
) -> Progress:
    """Run ``jobs`` with at most ``window`` in flight; ``on_result`` is called for each finished
    match, in the order they finish, and returns False to stop submitting more."""
    progress = Progress()
    queue = iter(jobs)
    running: set[cf.Future[MatchResult]] = set()
    submitting = True

    def fill() -> None:
        while submitting and len(running) < window:
            job = next(queue, None)
            if job is None:
                return
            running.add(executor.submit(play, job))

    fill()
    while running:
        done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
        for future in done:
            running.discard(future)
            result = future.result()
            progress.finished.append(result)
            if not on_result(result) and submitting:
                submitting = False
                progress.stopped = "stopped by the caller"
        fill()
    return progress
