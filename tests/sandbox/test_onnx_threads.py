"""An onnxruntime bot sizes its thread pool for the CPUs its seat may use, with no warning.

onnxruntime counts cores in ``/proc/cpuinfo`` and ``/sys/devices/system/cpu`` and ignores
the affinity mask: outside a seat, a bot limited to one CPU still starts a pool of one thread
per core of the machine (the control). In a seat it sees the seat's CPUs only; in a seat
without namespaces, which cannot be shown them, it falls back on the affinity. An operator's
``ORT_INTRA_OP_NUM_THREADS`` reaches the bot and sizes the pool. The pool is counted from
outside, as the threads the bot's process gains when it makes its session.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from support.sandboxed import seat_jail

from referee.record.sandbox import Layer
from referee.rules.tiles import SEATS
from referee.sandbox import machine
from referee.sandbox.layers import available
from referee.sandbox.policy import plan
from referee.sandbox.seats import MatchJails
from referee.settings import MatchLimits, SandboxSettings

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


def _pool(
    cpus: set[int], enter: Callable[[], None] | None = None, env: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """The threads onnxruntime's session started, with the caller (which works in its pool
    too), for a bot limited to ``cpus`` (in a seat when ``enter`` is its jail's, ``env`` its
    environment); its stderr."""

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
        env=env,
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
        return _pool(cpus, jail.enter, jail.environment())


def _without_namespaces(cpus: set[int], tmp_path: Path) -> tuple[int, bytes]:
    """``_pool`` in seat A of a match whose seats have no namespaces (as where unprivileged
    user namespaces are off), the referee run on ``cpus``."""
    commands = dict.fromkeys(SEATS, shlex.join(COMMAND))
    sandbox = plan(SandboxSettings(), MatchLimits(), commands, [tmp_path])
    jails = MatchJails(sandbox.lifted((Layer.NAMESPACES,)))
    jail = jails.jail("A")
    assert jail is not None and Layer.NAMESPACES not in jail.layers
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)  # the referee's affinity: what the seat is told it has
    try:
        return _pool(cpus, jail.enter, jail.environment())
    finally:
        os.sched_setaffinity(0, mine)
        jail.kill()
        jails.release(jail)
        jails.close()


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


def test_without_namespaces_the_pool_follows_the_affinity(tmp_path: Path) -> None:
    # No snapshot of the machine to show: onnxruntime cannot read the CPU topology (it says
    # so on stderr, docs/runtimes.md) and falls back on the CPUs the process may use.
    mine = sorted(os.sched_getaffinity(0))
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the machine has one CPU: the pool would have one thread anyway")
    pool, err = _without_namespaces({mine[0]}, tmp_path)
    assert pool == 1, err
    assert b"Error in cpuinfo" in err  # what the snapshot spares a seat with namespaces


def test_the_operators_thread_count_reaches_the_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < 2:
        pytest.skip(f"this process may use {len(mine)} CPU: one thread is its default too")
    monkeypatch.setenv("ORT_INTRA_OP_NUM_THREADS", "1")
    if _pool(set(mine))[0] != 1:  # the control: this onnxruntime reads it (1.32 does)
        pytest.skip("this onnxruntime does not read ORT_INTRA_OP_NUM_THREADS")
    pool, err = _in_seat(set(mine), tmp_path, monkeypatch)
    assert pool == 1, err
