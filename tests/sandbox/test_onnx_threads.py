"""An onnxruntime bot sizes its thread pool for the CPUs its seat may use, with no warning.

onnxruntime counts cores in ``/proc/cpuinfo`` and ``/sys/devices/system/cpu`` and ignores
the affinity mask: outside a seat, a bot limited to one CPU still starts a pool of one thread
per core of the machine (the control). In a seat it sees the seat's CPUs only. The pool is
counted from outside, as the threads the bot's process gains when it makes its session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from support.sandboxed import seat_jail

from referee.sandbox import machine
from referee.sandbox.layers import available

BOT = Path(__file__).resolve().parents[1] / "bots" / "runtimes" / "onnx_bot.py"
#: The bot makes its session at its first move: its threads are counted before and after.
COMMAND = [sys.executable, str(BOT), "--late"]
HELLO = b'{"type":"hello","protocol":1,"seat":"A"}\n'
ACT = b'{"type":"act","id":1,"legal_actions":[{"type":"pass"}]}\n'

pytestmark = pytest.mark.skipif(
    available()["namespaces"] is not None,
    reason=f"a seat is shown its CPUs only with namespaces: {available()['namespaces']}",
)


def _threads(pid: int) -> int:
    """The threads of ``pid`` and of every process under it (in a seat, the bot runs under
    the seat's init)."""
    tasks = os.listdir(f"/proc/{pid}/task")
    children = [
        int(child)
        for task in tasks
        for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
    ]
    return len(tasks) + sum(_threads(child) for child in children)


def _pool(cpus: set[int], enter: Callable[[], None] | None = None) -> tuple[int, bytes]:
    """The threads onnxruntime's session started, with the caller (which works in its pool
    too), for a bot limited to ``cpus`` (in a seat when ``enter`` is its jail's); its stderr."""

    def start() -> None:
        os.sched_setaffinity(0, cpus)
        if enter is not None:
            enter()

    child = subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=start,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        _say(child.stdin, HELLO)
        assert b"ready" in child.stdout.readline()
        before = _threads(child.pid)
        _say(child.stdin, ACT)
        assert b"action" in child.stdout.readline()
        pool = _threads(child.pid) - before + 1
    finally:
        child.kill()
        _, err = child.communicate(timeout=30)
    return pool, err


def _say(stream: IO[bytes], line: bytes) -> None:
    stream.write(line)
    stream.flush()


def _in_seat(cpus: set[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes]:
    """``_pool`` in seat A, with the referee's affinity taken to be ``cpus``."""
    monkeypatch.setattr(machine, "seat_cpus", lambda: frozenset(cpus))
    with seat_jail(COMMAND, tmp_path) as jail:
        assert jail is not None
        return _pool(cpus, jail.enter)


def _warnings(stderr: bytes) -> list[str]:
    """onnxruntime's lines but its telemetry's (see test_runtime_matrix.ORT_TELEMETRY)."""
    lines = stderr.decode(errors="replace").splitlines()
    return [line for line in lines if "telemetry" not in line and "Killed" not in line]


@pytest.mark.parametrize("count", [1, 2])
def test_the_pool_has_a_thread_per_seat_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < count:
        pytest.skip(f"this process may use {len(mine)} CPU, the test needs {count}")
    cpus = set(mine[:count])
    pool, err = _in_seat(cpus, tmp_path, monkeypatch)
    assert pool == count
    assert _warnings(err) == []  # no "cannot read the CPU topology", no affinity error


def test_outside_a_seat_the_pool_ignores_the_affinity() -> None:
    mine = sorted(os.sched_getaffinity(0))
    cores = os.cpu_count() or 1
    if cores < 2 or len(mine) < 1:
        pytest.skip("the machine has one CPU: the pool would have one thread anyway")
    pool, _ = _pool({mine[0]})
    assert pool > 1  # the machine's cores, though the process may use one
