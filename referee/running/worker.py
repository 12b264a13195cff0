"""What a worker process (here, or on a Dask worker) does: play one match and return its
results line, keeping the bots that can play many in this process's warm pools, and stopping
the match in hand when Ctrl-C comes or the competition's process dies.

``play`` is the one job function: a match is the same whichever machine plays it — same seed,
same bots, same ``game_digest``. How jobs reach workers is ``referee.running.executors``'s.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import signal
import threading
from pathlib import Path
from types import FrameType

import msgspec
import trio

from referee.match.outcome import MatchOutcome
from referee.match.runner import Terminated, interrupted, run_match
from referee.record.sandbox import Layer
from referee.rules.tiles import Seat
from referee.running.jobs import MatchJob
from referee.running.results import MatchResult, result_of
from referee.running.seating.pool import WarmPool, entrant_key
from referee.sandbox import resident
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.policy import plan as plan_sandbox
from referee.settings import MatchSettings, SandboxSettings

#: Set while this process is not playing a match (see ``stop_with_parent``).
_IDLE = threading.Event()
_IDLE.set()


#: Set once a match here was interrupted: the jobs still queued to this process are refused.
_STOPPED = threading.Event()

#: Set in a ``WorkerPool`` process, where ``play`` runs in the main thread and owns SIGINT.
_LOCAL_WORKER = threading.Event()


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
    if job.after_same_deals and Layer.PAGE_CACHE in plan.report.layers:
        # The marks an earlier match's bots left in the kernel's lookup caches (which names
        # they looked up) would tell this one's bots the deals: wiped, where root may.
        await trio.to_thread.run_sync(resident.forget_lookups)
    source = None
    if job.warm:
        first, second = (
            entrant.name
            + "\0"
            + entrant_key(job.competition, entrant.command, job.settings, job.sandbox)
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
    and every match of a competition between the same entrants gets the same answer."""
    return plan_sandbox(sandbox, limits, dict(commands), [Path(path) for path in secrets])


#: This thread's warm pool (see ``referee.running.seating.pool``: bots die with their thread), and
#: every pool of this process.
_POOL = threading.local()
_POOLS: list[WarmPool] = []
_AT_EXIT = threading.Event()


def warm_pool() -> WarmPool:
    pool: WarmPool | None = getattr(_POOL, "pool", None)
    if pool is None or pool.closed:  # closed: the end of a competition on a Dask cluster
        if not _AT_EXIT.is_set():  # a Dask worker, or a competition played in this process
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
    """``run_match`` in a worker process, stopped by SIGINT (Ctrl-C; or the competition gone,
    see ``stop_with_parent``) as Ctrl-C stops a match — bots closed, log ended
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


def _interrupted_while_idle(signum: int, frame: FrameType | None) -> None:
    """SIGINT in a worker outside a match's signal receiver (between matches): there is no
    match to stop, but the next one is refused. Never ``KeyboardInterrupt``: it would kill
    an idle worker (a traceback, a lost worker), and being not the default handler it keeps
    trio's own Ctrl-C handling out of the way (see ``_play_until_sigint``)."""
    _STOPPED.set()


def stop_with_parent() -> None:
    """In a worker: if the competition's process dies (even by ``kill -9``), stop the match in
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
    # A worker that ends normally (the competition is over) closes its kept bots first.
    multiprocessing.util.Finalize(None, close_pools, exitpriority=100)
