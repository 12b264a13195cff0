"""Real Dask clusters for the tests: ``dask`` processes started in a session of their own,
a scheduler's address read from its file, and a seat's worker killed as a machine dies."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: ``prctl``'s option that names the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _die_with_the_tests() -> None:
    """In the child: killed when the test process dies, even by ``kill -9`` (a cluster left
    running would hold its ports and its workers' bots)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def dask(
    *args: str, cwd: Path, log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``python -m dask ARGS`` in ``cwd``, its output to ``log``, in a session of its own (so
    ``os.killpg`` ends it and whatever it started), killed with the test process."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_the_tests,
        )


def scheduler_address(file: Path, log: Path, within: float = 60) -> str:
    """The address a scheduler started with ``--scheduler-file FILE`` wrote there."""
    deadline = time.monotonic() + within
    while not file.exists() or not file.read_text().strip():
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    return str(json.loads(file.read_text())["address"])


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Kill each ``dask`` process's session, last started first."""
    for process in reversed(processes):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def moves(log: Path) -> int:
    """How many ``move`` records a log being written holds so far."""
    try:
        return sum('"type":"move"' in line for line in log.read_text().splitlines())
    except OSError:
        return 0


def wait_for(found: Callable[[], Path | None], running: Callable[[], bool], within: float) -> Path:
    """The log ``found`` returns once it has one, while ``running`` stays true."""
    deadline = time.monotonic() + within
    while (log := found()) is None:
        assert time.monotonic() < deadline and running(), "no log got far enough"
        time.sleep(0.05)
    return log


def seat_worker(log: Path, seat: str) -> str:
    """The worker a log's header says ``seat`` ran on (``--seats-apart``)."""
    header = json.loads(log.read_text().splitlines()[0])
    return str(header["placement"]["seats"][seat]["worker"])
