"""Running the planned matches: in worker processes here, or on a Dask cluster.

Both run the same job function, ``play``, through a ``concurrent.futures`` executor (Dask's
``Client.get_executor()`` is one), so a match is the same whichever machine plays it: same
seed, same bots, same ``game_digest``. Only a bounded window of matches is submitted ahead,
so stopping (an SPRT verdict, Ctrl-C) wastes little.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.runner import interrupted, leaf_error, run_match
from referee.tournament.plan import MatchJob
from referee.tournament.results import MatchResult, result_of

#: Set while this process is not playing a match (see ``_stop_with_parent``).
_IDLE = threading.Event()
_IDLE.set()


_STOPPED = threading.Event()


def play(job: MatchJob) -> MatchResult:
    """Play one match where this runs (a worker process, a Dask worker) and return its line.

    Once a match here has been interrupted (Ctrl-C), the jobs already queued to this process
    are refused rather than played and then thrown away.
    """
    if _STOPPED.is_set():
        raise KeyboardInterrupt
    _IDLE.clear()
    try:
        outcome = trio.run(run_match, job.settings, job.commands, Path(job.log))
    except BaseException as exc:
        if interrupted(exc):
            _STOPPED.set()
            raise KeyboardInterrupt from None
        raise
    finally:
        _IDLE.set()
    return result_of(job, outcome)


def default_jobs() -> int:
    """One match per core: a match has one bot thinking at a time, so a core per match keeps
    parallel load from slowing any bot's answers."""
    return max(1, len(os.sched_getaffinity(0)))


def _stop_with_parent() -> None:
    """In a worker: if the tournament process dies (even by ``kill -9``), stop the match in
    hand as Ctrl-C would — its bots are closed and its log ends — then leave."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    # Started in the background, a worker may inherit SIGINT ignored: take it back.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        if not _IDLE.is_set():
            os.kill(os.getpid(), signal.SIGINT)  # the match closes its bots and its log
            _IDLE.wait()
        os._exit(1)  # nobody is left to take results or give work

    threading.Thread(target=watch, name="stop-with-parent", daemon=True).start()


@contextmanager
def local_executor(jobs: int) -> Iterator[tuple[cf.Executor, int]]:
    """Worker processes on this machine (spawned: no state shared with this process), and how
    many matches they play at once."""
    executor = cf.ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_stop_with_parent,
    )
    try:
        yield executor, jobs
    except BaseException:
        # Interrupted: don't wait for queued matches; the workers stop their own (see play).
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown(wait=True)


@contextmanager
def dask_executor(address: str, jobs: int) -> Iterator[tuple[cf.Executor, int]]:
    """A Dask cluster at ``address``, or ``"local"``: a LocalCluster of ``jobs`` workers; and
    how many matches the cluster plays at once (its threads)."""
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
        slots = sum(client.nthreads().values()) or jobs  # type: ignore[no-untyped-call]
        yield client.get_executor(pure=False), slots  # type: ignore[no-untyped-call]
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
    on_error: Callable[[MatchJob, BaseException], None] = lambda job, exc: None,
) -> Progress:
    """Run ``jobs`` with at most ``window`` in flight; ``on_result`` is called for each finished
    match, in the order they finish, and returns False to stop submitting more. A match the
    referee failed to play goes to ``on_error`` (it stays missing, for ``--resume``); an
    interrupted one raises ``KeyboardInterrupt`` here."""
    progress = Progress()
    queue = iter(jobs)
    running: dict[cf.Future[MatchResult], MatchJob] = {}
    submitting = True

    def fill() -> None:
        while submitting and len(running) < window:
            job = next(queue, None)
            if job is None:
                return
            running[executor.submit(play, job)] = job

    fill()
    while running:
        done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
        for future in done:
            job = running.pop(future)
            error = future.exception()
            if error is not None:
                if interrupted(error):
                    raise KeyboardInterrupt
                on_error(job, leaf_error(error))
                continue
            result = future.result()
            progress.finished.append(result)
            if not on_result(result) and submitting:
                submitting = False
                progress.stopped = "stopped by the caller"
        fill()
    return progress
