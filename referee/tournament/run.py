"""Running the planned matches: in worker processes here, or on a Dask cluster.

Both run the same job function, ``play``, through a ``concurrent.futures`` executor (Dask's
``Client.get_executor()`` is one), so a match is the same whichever machine plays it: same
seed, same bots, same ``game_digest``. Only a bounded window of matches is submitted ahead,
so stopping (an SPRT verdict, Ctrl-C) wastes little.

A worker process that dies (``kill -9``, the OOM killer, a hostile bot signalling its parent)
loses only the match it was playing: ``WorkerPool`` starts a new process in its place and
``run_jobs`` plays the match again, up to ``MAX_ATTEMPTS`` times in all.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import functools
import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import queue
import signal
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Final, ParamSpec, TypeVar

import msgspec
import trio

from referee.match.runner import Terminated, interrupted, leaf_error, run_match
from referee.match.table import MatchOutcome
from referee.rules.tiles import Seat
from referee.sandbox import resident
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.policy import plan as plan_sandbox
from referee.seating.pool import WarmPool, entrant_key
from referee.settings import MatchSettings, SandboxSettings
from referee.tournament.plan import MatchJob
from referee.tournament.results import MatchResult, result_of

#: How many times a match is started before a lost worker process gives it up.
MAX_ATTEMPTS: Final = 3

#: Set while this process is not playing a match (see ``_stop_with_parent``).
_IDLE = threading.Event()
_IDLE.set()


_STOPPED = threading.Event()

#: Set in a ``WorkerPool`` process, where ``play`` runs in the main thread and owns SIGINT.
_LOCAL_WORKER = threading.Event()

_P = ParamSpec("_P")
_T = TypeVar("_T")


class WorkerLost(Exception):
    """The worker process playing a match died before it could say how the match ended."""


def play(job: MatchJob) -> MatchResult:
    """Play one match where this runs (a worker process, a Dask worker) and return its line.

    Once a match here has been interrupted (Ctrl-C), the jobs already queued to this process
    are refused rather than played and then thrown away.
    """
    if _STOPPED.is_set():
        raise KeyboardInterrupt
    _IDLE.clear()
    try:
        if _LOCAL_WORKER.is_set():
            outcome = trio.run(_play_until_sigint, job)
        else:
            outcome = trio.run(_play_job, job)
    except BaseException as exc:
        if interrupted(exc):
            _STOPPED.set()
            close_pools()  # nothing more will be played here
            raise KeyboardInterrupt from None
        raise
    finally:
        _IDLE.set()
    return result_of(job, outcome)


async def _play_job(job: MatchJob) -> MatchOutcome:
    plan = _sandbox(job)
    if job.after_same_deals and "page-cache" in plan.report.layers:
        # The marks an earlier match's bots left in the kernel's lookup caches (which names
        # they looked up) would tell this one's bots the deals: wiped, where root may.
        await trio.to_thread.run_sync(resident.forget_lookups)
    source = None
    if job.warm:
        first, second = (
            entrant.name
            + "\0"
            + entrant_key(job.tournament, entrant.command, job.settings, job.sandbox)
            for entrant in (job.first, job.second)
        )
        keys: dict[Seat, str] = {"A": first, "B": second, "C": first, "D": second}
        source = warm_pool().seating(keys, job.deals, plan)
    return await run_match(job.settings, job.commands, Path(job.log), plan, source)


def _sandbox(job: MatchJob) -> SandboxPlan:
    """The sandbox for a match, decided where it is played (a Dask worker may be another
    machine, with other layers); the logs and the results file are the bots' secrets."""
    limits = msgspec.structs.replace(job.settings, seed=0)
    commands = tuple(job.commands.items())
    secrets = (str(Path(job.log).parent), *job.secrets)
    return _sandbox_for(job.sandbox, limits, commands, secrets)


@functools.lru_cache(maxsize=64)
def _sandbox_for(
    sandbox: SandboxSettings,
    limits: MatchSettings,
    commands: tuple[tuple[Seat, str], ...],
    secrets: tuple[str, ...],
) -> SandboxPlan:
    """Planned once per worker for each set of bots: it reads the bots' files (milliseconds),
    and every match of a tournament between the same entrants gets the same answer."""
    return plan_sandbox(sandbox, limits, dict(commands), [Path(path) for path in secrets])


#: This thread's warm pool (see ``referee.seating.pool``: bots die with their thread), and
#: every pool of this process.
_POOL = threading.local()
_POOLS: list[WarmPool] = []
_AT_EXIT = threading.Event()


def warm_pool() -> WarmPool:
    pool: WarmPool | None = getattr(_POOL, "pool", None)
    if pool is None or pool.closed:  # closed: the end of a tournament on a Dask cluster
        if not _AT_EXIT.is_set():  # a Dask worker, or a tournament played in this process
            _AT_EXIT.set()
            atexit.register(close_pools)
        pool = _POOL.pool = WarmPool()
        _POOLS.append(pool)
    return pool


def close_pools() -> None:
    """Close every kept bot of this process (a worker that ends, or was interrupted)."""
    while _POOLS:
        pool = _POOLS.pop()
        pool.close()
    _POOL.__dict__.clear()


async def _play_until_sigint(job: MatchJob) -> MatchOutcome:
    """``run_match`` in a worker process, stopped by SIGINT (Ctrl-C; or the tournament gone,
    see ``_stop_with_parent``) as Ctrl-C stops a match — bots closed, log ended
    ``interrupted`` — but always at a checkpoint. (Raised wherever the signal lands, as trio's
    own Ctrl-C handling does, ``KeyboardInterrupt`` can hit code that swallows it, such as an
    at-fork hook while a bot starts, and the match would play on.)"""
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        if _STOPPED.is_set():  # Ctrl-C came just before: see _interrupted_while_idle
            raise Terminated(signal.SIGINT)
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    raise Terminated(signum)

            nursery.start_soon(watch)
            outcome = await _play_job(job)
            nursery.cancel_scope.cancel()
    return outcome


def default_jobs() -> int:
    """One match per core: a match has one bot thinking at a time, so a core per match keeps
    parallel load from slowing any bot's answers."""
    return max(1, len(os.sched_getaffinity(0)))


def _interrupted_while_idle(signum: int, frame: FrameType | None) -> None:
    """SIGINT in a worker outside a match's signal receiver (between matches): there is no
    match to stop, but the next one is refused. Never ``KeyboardInterrupt``: it would kill
    an idle worker (a traceback, a lost worker), and being not the default handler it keeps
    trio's own Ctrl-C handling out of the way (see ``_play_until_sigint``)."""
    _STOPPED.set()


def _stop_with_parent() -> None:
    """In a worker: if the tournament process dies (even by ``kill -9``), stop the match in
    hand as Ctrl-C would — its bots are closed and its log ends — then leave."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    _LOCAL_WORKER.set()
    # Started in the background, a worker may inherit SIGINT ignored: take it back.
    signal.signal(signal.SIGINT, _interrupted_while_idle)

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        if not _IDLE.is_set():
            os.kill(os.getpid(), signal.SIGINT)  # the match closes its bots and its log
            _IDLE.wait()
        for pool in _POOLS:
            pool.kill_now()
        os._exit(1)  # nobody is left to take results or give work

    threading.Thread(target=watch, name="stop-with-parent", daemon=True).start()
    # A worker that ends normally (the tournament is over) closes its kept bots first.
    multiprocessing.util.Finalize(None, close_pools, exitpriority=100)


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
    executor = WorkerPool(jobs, initializer=_stop_with_parent)
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
        with suppress(Exception):  # the cluster's workers outlive the tournament: its bots don't
            client.run(close_pools)
        client.close()  # type: ignore[no-untyped-call]
        if cluster is not None:
            cluster.close()


@dataclass
class Progress:
    """What the driver reports after each finished match."""

    finished: list[MatchResult] = field(default_factory=list)
    stopped: str | None = None
    #: Matches that went to ``on_error``: the referee failed, or lost workers gave them up.
    failed: list[MatchJob] = field(default_factory=list)


def run_jobs(
    executor: cf.Executor,
    jobs: list[MatchJob],
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
    interrupted match raises ``KeyboardInterrupt`` here."""
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
