"""Running the planned matches: in worker processes here, or on a Dask cluster.

Both run the same job function, ``worker.play``, through a ``concurrent.futures`` executor
(Dask's ``Client.get_executor()`` is one), so a match is the same whichever machine plays it.
Only a bounded window of matches is submitted ahead, so stopping (an SPRT verdict, Ctrl-C)
wastes little.

A worker process that dies (``kill -9``, the OOM killer, a hostile bot signalling its parent)
loses only the match it was playing: ``WorkerPool`` starts a new process in its place and
``run_jobs`` plays the match again, up to ``MAX_ATTEMPTS`` times in all.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import multiprocessing
import os
import queue
import signal
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Final, ParamSpec, TypeVar

import msgspec

from referee.match.runner import interrupted, leaf_error
from referee.running.cluster import connected
from referee.running.jobs import MatchJob
from referee.running.results import MatchResult
from referee.running.worker import close_pools, play, stop_with_parent

#: How many times a match is started before a lost worker process gives it up.
MAX_ATTEMPTS: Final = 3

_P = ParamSpec("_P")
_T = TypeVar("_T")


class WorkerLost(Exception):
    """The worker process playing a match died before it could say how the match ended."""


def default_jobs() -> int:
    """One match per core: a match has one bot thinking at a time, so a core per match keeps
    parallel load from slowing any bot's answers."""
    return max(1, len(os.sched_getaffinity(0)))


class WorkerPool(cf.Executor):
    """``size`` worker processes (spawned: no state shared with this one), each playing one
    match at a time; a worker that dies is replaced.

    Each worker is a ``ProcessPoolExecutor`` of its own with one process, given one call at a
    time; calls beyond ``size`` wait here. So when a worker dies only its own call is lost — its
    future fails with ``WorkerLost`` — and the next call for that place starts a new process.
    (In one shared ``ProcessPoolExecutor`` a dead worker breaks the whole pool: every call in it
    fails, whoever was playing it, and the other workers are terminated in mid-match.)

    One thread owns all the state and does all the handing out; ``submit``, ``shutdown`` and
    the workers' completions only post to it, so no lock is held across a worker's calls.
    """

    def __init__(self, size: int, initializer: Callable[[], object] | None = None) -> None:
        self._size = size
        self._initializer = initializer
        self._inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._closed = False
        #: The processes started so far, for tests and diagnostics (lost ones included).
        self.started = 0
        self._thread = threading.Thread(target=self._serve, name="worker-pool", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> cf.Future[_T]:
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: cf.Future[_T] = cf.Future()
        self._inbox.put(("submit", future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more calls; with ``cancel_futures``, drop those not handed out yet; with
        ``wait``, return once every call handed out has ended and the workers are gone."""
        self._closed = True
        self._inbox.put(("shutdown", cancel_futures))
        if wait:
            self._thread.join()

    def _new_worker(self) -> cf.ProcessPoolExecutor:
        self.started += 1
        return cf.ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=self._initializer,
        )

    def _done(self, place: int, outer: cf.Future[Any], inner: cf.Future[Any]) -> None:
        """A worker's call ended (in that worker's manager thread, perhaps holding its locks:
        post, nothing more)."""
        self._inbox.put(("done", place, outer, inner))

    def _serve(self) -> None:
        workers: list[cf.ProcessPoolExecutor | None] = [None] * self._size
        idle = list(range(self._size - 1, -1, -1))
        waiting: deque[tuple[cf.Future[Any], Callable[..., Any], tuple[Any, ...], Any]] = deque()
        running = 0
        closing = False
        while True:
            message = self._inbox.get()
            if message[0] == "submit":
                waiting.append(message[1:])
            elif message[0] == "done":
                _, place, outer, inner = message
                running -= 1
                idle.append(place)
                error = cf.CancelledError() if inner.cancelled() else inner.exception()
                if isinstance(error, BrokenProcessPool):
                    workers[place] = None  # dead; it has cleaned up after itself
                    error = WorkerLost("its worker process died (killed, or out of memory)")
                if error is not None:
                    outer.set_exception(error)
                else:
                    outer.set_result(inner.result())
            else:
                closing = True
                if message[1]:
                    while waiting:
                        waiting.popleft()[0].cancel()
            while waiting and idle:
                outer, fn, args, kwargs = waiting.popleft()
                if not outer.set_running_or_notify_cancel():
                    continue  # cancelled while it waited
                place = idle.pop()
                try:
                    worker = workers[place]
                    if worker is None:
                        worker = workers[place] = self._new_worker()
                    inner = worker.submit(fn, *args, **kwargs)
                except BaseException as exc:  # e.g. at interpreter shutdown
                    idle.append(place)
                    outer.set_exception(exc)
                    continue
                running += 1
                inner.add_done_callback(functools.partial(self._done, place, outer))
            if closing and not waiting and not running:
                for worker in workers:
                    if worker is not None:
                        worker.shutdown(wait=True)
                return


@contextmanager
def local_executor(jobs: int) -> Iterator[tuple[cf.Executor, int]]:
    """Worker processes on this machine, replaced when they die, and how many matches they
    play at once."""
    executor = WorkerPool(jobs, initializer=stop_with_parent)
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
    how many matches the cluster plays at once (its threads). A Dask worker that dies is
    Dask's to handle: it runs the match elsewhere, or fails it (``KilledWorker``)."""
    with connected(address, jobs) as client:
        try:
            slots = sum(client.nthreads().values()) or jobs
            yield client.get_executor(pure=False), slots
        finally:
            # The cluster's workers outlive the competition: its bots don't.
            with suppress(Exception):
                client.run(close_pools)


def executor(dask: str | None, jobs: int) -> AbstractContextManager[tuple[cf.Executor, int]]:
    """Where the matches run: on the Dask cluster ``dask`` names, else in worker processes
    here (with their seats apart on a cluster's workers: ``referee.apart.pool``)."""
    return dask_executor(dask, jobs) if dask else local_executor(jobs)


class Stopping:
    """While entered, SIGTERM and SIGHUP stop the work as Ctrl-C does (a
    ``KeyboardInterrupt``); ``signal`` is the one that stopped it."""

    def __init__(self) -> None:
        self.signal = signal.SIGINT
        self._previous: dict[signal.Signals, Any] = {}

    def _stop(self, signum: int, frame: object) -> None:
        self.signal = signal.Signals(signum)
        raise KeyboardInterrupt

    def __enter__(self) -> Stopping:
        stops = (signal.SIGTERM, signal.SIGHUP)
        self._previous = {sig: signal.signal(sig, self._stop) for sig in stops}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


@dataclass
class Progress:
    """What the driver reports after each finished match."""

    finished: list[MatchResult] = field(default_factory=list)
    stopped: str | None = None
    #: Matches that went to ``on_error``: the referee failed, or lost workers gave them up.
    failed: list[MatchJob] = field(default_factory=list)


def run_jobs(
    executor: cf.Executor,
    jobs: Iterable[MatchJob],
    window: int,
    on_result: Callable[[MatchResult], bool],
    on_error: Callable[[MatchJob, BaseException], None] = lambda job, exc: None,
    on_retry: Callable[[MatchJob, BaseException, int], None] = lambda job, exc, attempt: None,
) -> Progress:
    """Run ``jobs`` with at most ``window`` in flight; ``on_result`` is called for each finished
    match, in the order they finish, and returns False to stop submitting more.

    A match whose worker process was lost is played again at once (``on_retry`` is told the
    attempt about to start), up to ``MAX_ATTEMPTS`` starts in all. A match the referee failed
    to play, given up, or that the executor refused goes to ``on_error`` and stays missing,
    for ``--resume``; an executor that refuses work (broken, shut down) gets no more. An
    interrupted match raises ``KeyboardInterrupt`` here.

    ``jobs`` is read as matches are started, after the results so far were handed to
    ``on_result``: a league's generator chooses each next pair from the ratings they made."""
    progress = Progress()
    upcoming = iter(jobs)
    #: Jobs passed over while a match on the same deals was in flight, in plan order.
    held: list[MatchJob] = []
    running: dict[cf.Future[MatchResult], MatchJob] = {}
    attempts: Counter[str] = Counter()
    played_deals: set[str] = set()
    submitting = True

    def fail(job: MatchJob, error: BaseException) -> None:
        progress.failed.append(job)
        on_error(job, error)

    def start(job: MatchJob) -> None:
        nonlocal submitting
        attempts[job.match_id] += 1
        try:
            running[executor.submit(play, job)] = job
        except Exception as exc:
            submitting = False
            progress.stopped = f"the executor refused work: {type(exc).__name__}: {exc}"
            fail(job, exc)

    def next_job() -> MatchJob | None:
        """The first job in plan order whose deals no match in flight plays: two matches on
        the same deals never run at once, so neither can hear the other live."""
        busy = {job.deals for job in running.values()}
        for job in held:
            if job.deals not in busy:
                held.remove(job)
                return job
        for job in upcoming:
            if job.deals not in busy:
                return job
            held.append(job)
        return None

    def fill() -> None:
        while submitting and len(running) < window:
            job = next_job()
            if job is None:
                return
            if job.deals in played_deals:
                job = msgspec.structs.replace(job, after_same_deals=True)
            played_deals.add(job.deals)
            start(job)

    fill()
    while running:
        done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
        for future in done:
            job = running.pop(future)
            if future.cancelled():  # e.g. by a Dask cluster
                fail(job, cf.CancelledError("the executor cancelled the match"))
                continue
            error = future.exception()
            if error is not None:
                if interrupted(error):
                    raise KeyboardInterrupt
                if isinstance(error, WorkerLost):
                    if attempts[job.match_id] < MAX_ATTEMPTS:
                        on_retry(job, error, attempts[job.match_id] + 1)
                        start(job)
                        continue
                    error = WorkerLost(f"{error}; given up after {MAX_ATTEMPTS} attempts")
                fail(job, leaf_error(error))
                continue
            result = future.result()
            progress.finished.append(result)
            if not on_result(result) and submitting:
                submitting = False
                progress.stopped = "stopped by the caller"
        fill()
    return progress
