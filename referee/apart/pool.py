"""A competition's matches with their seats apart: each match refereed here, in a thread of
its own, its four seats on free workers of the cluster.

``SeatsApartPool`` is a ``concurrent.futures`` executor, so ``running.executors.run_jobs``
drives it as it drives the others: a match whose seat was lost (its worker died) comes back
as ``WorkerLost`` and is played again, on workers placed afresh. A worker runs at most as many
seats at once as it has threads.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any, Final

import trio

from referee.apart.placement import Apart, PlacementError, Worker, place, where, workers_of
from referee.apart.seating import play_apart
from referee.record.records import Placement
from referee.running.cluster import ClusterError, connected
from referee.running.executors import WorkerLost
from referee.running.executors import executor as whole_matches
from referee.running.jobs import MatchJob
from referee.running.results import MatchResult, result_of

#: Seconds between looks at the cluster while a match waits for four free workers.
WAIT_FOR_WORKERS: Final = 1.0
#: Seconds the matches in hand have to end their logs and close their bots once the
#: competition is interrupted.
STOP_GRACE: Final = 15.0
#: Seconds a match waits for a cluster that lost workers to have enough again.
WAIT_FOR_CLUSTER: Final = 60.0


class Seating:
    """The cluster's workers, and the seats each runs now."""

    def __init__(self, client: Any, apart: Apart) -> None:
        self.client = client
        self.apart = apart
        self.busy: Counter[str] = Counter()
        self._changed = threading.Condition()
        #: Each worker's host name and kernel, by address, as it said.
        self._where: dict[str, tuple[str, str]] = {}

    def matches_at_once(self) -> int:
        """How many matches the cluster seats at once (``PlacementError``: none)."""
        workers = self.survey()
        place(workers, self.apart)  # refused here, before any match, if it never can
        return max(1, sum(w.slots for w in workers) // 4)

    def described(self, size: int) -> str:
        """How the seats will be placed, in a line."""
        workers = self.survey()
        hosts = len({w.kernel for w in workers})
        where = (
            "partners on different hosts"
            if self.apart == "hosts"
            else "one host allowed (--seats-apart=workers: a trial)"
        )
        return (
            f"seats apart ({self.apart}): {len(workers)} workers on {hosts} host"
            f"{'s' if hosts != 1 else ''}, {size} match{'es' if size != 1 else ''} at once,"
            f" each seat on a worker of its own, {where}; each log's header says where"
        )

    def take(self, stopping: threading.Event) -> Placement:
        """Four free workers for a match, waiting for them if need be — and, up to
        ``WAIT_FOR_CLUSTER`` seconds, for workers the cluster lost to come back (a nanny
        restarts a killed one)."""
        lacking = time.monotonic() + WAIT_FOR_CLUSTER
        while True:
            workers = self.survey()  # outside the lock: the cluster may be slow to answer
            with self._changed:
                try:
                    placement = place(workers, self.apart, self.busy)
                except PlacementError:
                    try:
                        place(workers, self.apart)  # could it, were every worker free?
                    except PlacementError:
                        if time.monotonic() > lacking:
                            raise
                else:
                    self.busy.update(place.worker for place in placement.seats.values())
                    return placement
                if stopping.is_set():
                    raise cf.CancelledError("the competition is stopping")
                self._changed.wait(WAIT_FOR_WORKERS)

    def survey(self) -> list[Worker]:
        """The cluster's workers now; where each runs is asked once per worker."""
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        new = [address for address in info if address not in self._where]
        if new:
            self._where.update(where(self.client, new))
        return workers_of(info, self._where)

    def give_back(self, placement: Placement) -> None:
        with self._changed:
            self.busy.subtract(place.worker for place in placement.seats.values())
            self._changed.notify_all()


class SeatsApartPool(cf.Executor):
    """Plays each ``MatchJob`` submitted with its seats apart (whatever the job function:
    this executor has its own), up to ``size`` at once.

    Each match has a daemon thread of its own (at most ``size`` play at once): interrupted,
    the competition gives the matches in hand ``STOP_GRACE`` seconds to end their logs and
    close their bots, and never waits on a thread that Ctrl-C left blocked (a
    ``concurrent.futures`` waiter's lock can be left held by ``KeyboardInterrupt``).
    """

    def __init__(self, client: Any, apart: Apart, size: int) -> None:
        self.client = client
        self.seating = Seating(client, apart)
        self._slots = threading.Semaphore(size)
        self._stopping = threading.Event()
        self._threads: set[threading.Thread] = set()
        self._running: dict[int, tuple[trio.lowlevel.TrioToken, trio.CancelScope]] = {}
        self._lock = threading.Lock()
        self._attempts: Counter[str] = Counter()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        (job,) = args
        assert isinstance(job, MatchJob)
        if self._stopping.is_set():
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: cf.Future[MatchResult] = cf.Future()
        thread = threading.Thread(
            target=self._run, args=(job, future), name="match-apart", daemon=True
        )
        with self._lock:
            self._threads.add(thread)
        thread.start()
        return future

    def _run(self, job: MatchJob, future: cf.Future[MatchResult]) -> None:
        try:
            with self._slots:
                if not future.set_running_or_notify_cancel():
                    return
                try:
                    result = self._play(job)
                except BaseException as exc:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _play(self, job: MatchJob) -> MatchResult:
        if self._stopping.is_set():
            raise KeyboardInterrupt
        placement = self.seating.take(self._stopping)
        self._attempts[job.match_id] += 1
        try:
            played = trio.run(self._referee, job, placement)
        finally:
            self.seating.give_back(placement)
        if played.lost is not None:
            kept = _set_aside(Path(job.log), self._attempts[job.match_id])
            raise WorkerLost(f"{played.lost.detail} (the void log: {kept})")
        return result_of(job, played.outcome)

    async def _referee(self, job: MatchJob, placement: Placement) -> Any:
        """The match, cancelled (its log ended ``interrupted``) when the pool shuts down."""
        with trio.CancelScope() as scope:
            key = threading.get_ident()
            with self._lock:
                self._running[key] = (trio.lowlevel.current_trio_token(), scope)
            try:
                if self._stopping.is_set():
                    scope.cancel()
                secrets = [str(Path(job.log).resolve().parent), *job.secrets]
                return await play_apart(
                    self.client, placement, job.settings, job.commands,
                    Path(job.log).resolve(), job.sandbox, secrets,
                    after_same_deals=job.after_same_deals,
                )  # fmt: skip
            finally:
                with self._lock:
                    self._running.pop(key, None)
        raise KeyboardInterrupt  # cancelled: the competition is stopping

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more matches; with ``cancel_futures``, stop those in hand (each ends its
        log ``interrupted``); with ``wait``, wait for them — up to ``STOP_GRACE`` seconds
        once stopping."""
        if cancel_futures:
            self._stopping.set()
            with self._lock:
                running = list(self._running.values())
            for token, scope in running:
                with suppress(trio.RunFinishedError):
                    token.run_sync_soon(scope.cancel)
        if not wait:
            return
        deadline = time.monotonic() + STOP_GRACE if cancel_futures else None
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))


def _set_aside(log: Path, attempt: int) -> Path:
    """Keep a void log (and its stderr copies) under another name: the match is played
    again under its own."""
    kept = log.with_name(f"{log.name}.void{attempt}")
    for path in [log, *log.parent.glob(f"{log.name}.?.stderr")]:
        if path.exists():
            path.rename(path.with_name(path.name.replace(log.name, kept.name, 1)))
    return kept


@contextmanager
def apart_executor(
    address: str, jobs: int, apart: Apart, say: Callable[[str], None] = lambda line: None
) -> Iterator[tuple[cf.Executor, int]]:
    """Matches refereed here with their seats on the Dask cluster at ``address`` (``local``:
    a LocalCluster of four workers a match, ``jobs`` matches), and how many at once; ``say``
    is told how the seats will be placed."""
    with connected(address, 4 * jobs) as client:
        seating = Seating(client, apart)
        try:
            size = seating.matches_at_once()
        except PlacementError as exc:
            raise ClusterError(str(exc)) from None
        say(seating.described(size))
        pool = SeatsApartPool(client, apart, size)
        try:
            yield pool, size
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)


def executor(
    dask: str | None,
    jobs: int,
    seats_apart: Apart | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> AbstractContextManager[tuple[cf.Executor, int]]:
    """Where a competition's matches run: with their seats apart on the Dask cluster
    ``dask`` names (``seats_apart``; ``say`` is told how), else as
    ``running.executors.executor`` says."""
    if dask and seats_apart:
        return apart_executor(dask, jobs, seats_apart, say)
    return whole_matches(dask, jobs)
