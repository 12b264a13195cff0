"""Tournaments against hostile workers' fates: a worker process killed in mid-match is replaced
and its match played again, a match that can never be played is given up and named (exit 1),
a lost Dask worker fails its match without a traceback, and ``run_jobs`` against executors that
lose workers, fail, cancel or refuse work; the worker pool itself."""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support.tournaments import INSTANT, PYTHON, entrants_of, made_up_jobs, mode, result_of

from referee.record.log import read_log
from referee.running.executors import MAX_ATTEMPTS, WorkerLost, WorkerPool, run_jobs
from referee.running.jobs import MatchJob
from referee.running.results import TournamentSettings, read_results
from referee.running.worker import play, stop_with_parent
from referee.tournament.plan import plan


def _start(
    args: list[str], directory: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "referee", "tournament", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=directory,
        env=None if env is None else {**os.environ, **env},
    )


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = entry.joinpath("stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _holds_open(pid: int, path: Path) -> bool:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == str(path):
                return True
        except OSError:
            continue
    return False


@contextmanager
def _oom_killer(referee: subprocess.Popen[str], log: Path, times: int) -> Iterator[list[int]]:
    """Plays the OOM killer (or an operator's ``kill -9``) against one match: each worker
    process of ``referee`` caught with the match's log open is killed with SIGKILL, up to
    ``times`` of them. Yields the pids killed so far."""
    killed: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set() and len(killed) < times:
            for pid in _children(referee.pid):
                if pid not in killed and _holds_open(pid, log):
                    with suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
            time.sleep(0.002)

    thread = threading.Thread(target=watch, name="oom-killer", daemon=True)
    thread.start()
    try:
        yield killed
    finally:
        stop.set()
        thread.join()


def _bots(tmp_path: Path) -> list[str]:
    return [
        "--bot",
        f"a={INSTANT}",
        "--bot",
        f"b={INSTANT}",
        "--results",
        str(tmp_path / "results.jsonl"),
    ]


# -- a worker killed in mid-match -------------------------------------------------------------


def test_a_killed_worker_is_replaced_and_its_match_played_again(tmp_path: Path) -> None:
    """A worker is killed in mid-match: a new worker plays the match again, the other match in
    flight is not disturbed, and the tournament ends complete, exit status 0."""
    args = [*_bots(tmp_path), "--seeds", "2", "--seed", "3", "--jobs", "2", "--json"]
    referee = _start(args, tmp_path)
    with _oom_killer(referee, tmp_path / "logs" / "a~b~s0~1.jsonl", times=1) as killed:
        stdout, stderr = referee.communicate(timeout=120)
    assert len(killed) == 1, "the match was never caught in a worker"
    assert referee.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    # Exactly one match was lost — the one whose worker died — and it was played again.
    assert stderr.count("playing it again") == 1, stderr
    assert "match a~b~s0~1: its worker process died" in stderr
    assert "(attempt 2)" in stderr
    header, recorded = read_results(tmp_path / "results.jsonl")
    planned = [job.match_id for job in plan(header.settings, tmp_path / "logs")]
    assert sorted(result.match_id for result in recorded) == sorted(planned)
    assert len(recorded) == len(planned) == 4
    for result in recorded:  # each log is whole: the new attempt overwrote the lost one's
        log = read_log(Path(result.log))
        assert log.broken_at is None and log.truncated is None, result.log
        assert log.head == result.log_digest
    assert msgspec.json.decode(stdout)["matches"] == 4
    assert mode(tmp_path / "results.jsonl") == 0o600
    assert mode(tmp_path / "logs") == 0o700


def test_a_match_that_can_never_be_played_is_given_up_and_named(tmp_path: Path) -> None:
    """Every worker that plays one match is killed: it is given up after ``MAX_ATTEMPTS``, the
    other match is played, the exit status is 1 and the missing match is named with the way
    to retry it; ``--resume`` then plays exactly that match."""
    args = [*_bots(tmp_path), "--seeds", "1", "--seed", "5", "--jobs", "2"]
    lost, played = "a~b~s0~1", "a~b~s0~2"
    referee = _start(args, tmp_path)
    with _oom_killer(referee, tmp_path / "logs" / f"{lost}.jsonl", times=10) as killed:
        _, stderr = referee.communicate(timeout=120)
    assert len(killed) == MAX_ATTEMPTS
    assert referee.returncode == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.count(f"match {lost}: its worker process died") == MAX_ATTEMPTS - 1, stderr
    assert f"match {lost} failed: WorkerLost" in stderr
    assert f"given up after {MAX_ATTEMPTS} attempts" in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"1 of 2 matches not played: {lost};"), last
    assert "--resume" in last
    assert [result.match_id for result in read_results(tmp_path / "results.jsonl")[1]] == [played]
    resumed = _start([*args, "--resume"], tmp_path)
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    recorded = read_results(tmp_path / "results.jsonl")[1]
    assert [result.match_id for result in recorded] == [played, lost]


def test_a_lost_dask_worker_fails_its_match_without_a_traceback(tmp_path: Path) -> None:
    """On Dask a lost worker is Dask's business: here (no retries allowed) it fails the match
    with ``KilledWorker``, which is reported like any failed match."""
    pytest.importorskip("distributed")
    args = [*_bots(tmp_path), "--seeds", "1", "--seed", "5", "--jobs", "2", "--dask", "local"]
    referee = _start(args, tmp_path, env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"})
    with _oom_killer(referee, tmp_path / "logs" / "a~b~s0~1.jsonl", times=5) as killed:
        _, stderr = referee.communicate(timeout=120)
    assert len(killed) == 1
    assert referee.returncode == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert "match a~b~s0~1 failed: KilledWorker" in stderr
    assert "1 of 2 matches not played: a~b~s0~1;" in stderr
    recorded = read_results(tmp_path / "results.jsonl")[1]
    assert [result.match_id for result in recorded] == ["a~b~s0~2"]


# -- run_jobs against failing executors (no processes) ----------------------------------------


class _Scripted(cf.Executor):
    """Answers each submitted job with ``outcome(job, attempt)``: a result or an exception."""

    def __init__(self, outcome: Callable[[MatchJob, int], Any]) -> None:
        self.outcome = outcome
        self.attempts: dict[str, int] = {}

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        (job,) = args
        self.attempts[job.match_id] = self.attempts.get(job.match_id, 0) + 1
        value = self.outcome(job, self.attempts[job.match_id])
        future: cf.Future[Any] = cf.Future()
        if value == "cancel":
            future.cancel()
            future.set_running_or_notify_cancel()
        elif isinstance(value, BaseException):
            future.set_exception(value)
        else:
            future.set_result(value)
        return future


def test_lost_workers_are_retried_then_given_up(tmp_path: Path) -> None:
    jobs = made_up_jobs(tmp_path)
    unlucky, once = jobs[0].match_id, jobs[1].match_id

    def outcome(job: MatchJob, attempt: int) -> Any:
        if job.match_id == unlucky or (job.match_id == once and attempt == 1):
            return WorkerLost("its worker process died")
        return result_of(job)

    executor = _Scripted(outcome)
    retries: list[tuple[str, int]] = []
    errors: list[tuple[str, BaseException]] = []
    progress = run_jobs(
        executor,
        jobs,
        window=2,
        on_result=lambda result: True,
        on_error=lambda job, error: errors.append((job.match_id, error)),
        on_retry=lambda job, error, attempt: retries.append((job.match_id, attempt)),
    )
    assert executor.attempts == {
        unlucky: MAX_ATTEMPTS,
        once: 2,
        jobs[2].match_id: 1,
        jobs[3].match_id: 1,
    }
    assert sorted(retries) == sorted([(unlucky, 2), (unlucky, 3), (once, 2)])
    assert [match_id for match_id, _ in errors] == [unlucky]
    assert isinstance(errors[0][1], WorkerLost) and "given up" in str(errors[0][1])
    assert [job.match_id for job in progress.failed] == [unlucky]
    assert sorted(r.match_id for r in progress.finished) == sorted(j.match_id for j in jobs[1:])


def test_referee_errors_and_cancelled_matches_are_not_retried(tmp_path: Path) -> None:
    jobs = made_up_jobs(tmp_path)
    failing = {jobs[0].match_id: RuntimeError("the referee broke"), jobs[1].match_id: "cancel"}
    executor = _Scripted(lambda job, attempt: failing.get(job.match_id) or result_of(job))
    errors: list[tuple[str, BaseException]] = []
    progress = run_jobs(
        executor,
        jobs,
        window=4,
        on_result=lambda result: True,
        on_error=lambda job, error: errors.append((job.match_id, error)),
    )
    assert set(executor.attempts.values()) == {1}
    assert dict(errors).keys() == failing.keys()
    assert isinstance(dict(errors)[jobs[1].match_id], cf.CancelledError)
    assert len(progress.finished) == 2


def test_an_executor_that_refuses_work_gets_no_more(tmp_path: Path) -> None:
    class Broken(cf.Executor):
        calls = 0

        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
            Broken.calls += 1
            raise RuntimeError("cannot schedule new futures after shutdown")

    errors: list[str] = []
    progress = run_jobs(
        Broken(),
        made_up_jobs(tmp_path),
        window=2,
        on_result=lambda result: True,
        on_error=lambda job, error: errors.append(job.match_id),
    )
    assert Broken.calls == 1 and len(errors) == 1
    assert progress.stopped is not None and "refused" in progress.stopped


# -- WorkerPool itself --------------------------------------------------------------------------


def test_worker_pool_replaces_only_the_dead_worker() -> None:
    pool = WorkerPool(2)
    try:
        both = [pool.submit(time.sleep, 0.3) for _ in range(2)]  # one on each worker
        assert [future.result(timeout=60) for future in both] == [None, None]
        assert pool.started == 2
        with pytest.raises(WorkerLost):
            pool.submit(os._exit, 1).result(timeout=60)  # a worker dies abruptly
        again = [pool.submit(time.sleep, 0.3) for _ in range(2)]
        assert [future.result(timeout=60) for future in again] == [None, None]
        assert pool.started == 3  # a new process in the dead one's place; the other lives on
    finally:
        pool.shutdown(wait=True)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(time.sleep, 0)


def test_ctrl_c_between_matches_leaves_the_worker_alive_and_refusing() -> None:
    """SIGINT reaching an idle worker must not kill it (a traceback on the terminal, a lost
    worker): the worker lives on and refuses its next match instead of playing it to be
    thrown away."""
    job = plan(TournamentSettings(entrants=entrants_of("a", "b"), seeds=1, seed=1), Path("logs"))[0]
    pool = WorkerPool(1, initializer=stop_with_parent)
    try:
        pid = pool.submit(os.getpid).result(timeout=60)
        os.kill(pid, signal.SIGINT)
        time.sleep(0.3)
        assert pool.submit(os.getpid).result(timeout=60) == pid
        assert isinstance(pool.submit(play, job).exception(timeout=60), KeyboardInterrupt)
        assert pool.started == 1
    finally:
        pool.shutdown(wait=True)
