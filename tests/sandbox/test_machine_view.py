"""What a seat sees of the machine: its own memory bound and CPUs — in ``/proc/meminfo``,
``/proc/cpuinfo``, ``/sys/devices/system/cpu`` and the buffer of a refused ``sysinfo`` — never
the live machine, and nothing it can change (a real program run in a seat's sandbox; the
referee's own view of the machine is the control)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.processes import BOTS
from support.sandboxed import in_seat

from referee.sandbox import machine
from referee.sandbox.layers import available
from referee.settings import SandboxSettings

PROBE = ["/usr/bin/python3", str(BOTS / "machine_probe.py")]
needs_namespaces = pytest.mark.skipif(
    available()["namespaces"] is not None or available()["landlock"] is not None,
    reason=f"no namespaces or Landlock here: {available()['namespaces']}",
)
pytestmark = pytest.mark.skipif(
    not Path(PROBE[0]).exists(), reason="no /usr/bin/python3 that a seat's uid can run"
)


def _probe(tmp_path: Path, **limits: Any) -> dict[str, Any]:
    run = in_seat(PROBE, tmp_path, **limits)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert run.stderr == b""  # nothing a runtime would have to say about it
    seen: dict[str, Any] = json.loads(run.stdout)
    return seen


def _processors(cpuinfo: str) -> list[int]:
    return [
        int(line.split(":")[1]) for line in cpuinfo.splitlines() if line.startswith("processor")
    ]


@needs_namespaces
def test_a_seat_sees_its_memory_bound_and_its_cpus(tmp_path: Path) -> None:
    seen = _probe(tmp_path, memory_mb=300)
    bound = 300 << 20
    cpus = sorted(os.sched_getaffinity(0))
    assert seen["meminfo"].startswith(f"{'MemTotal:':<16}{300 * 1024:>8} kB\n")
    assert Path("/proc/meminfo").read_text().split()[1] != str(300 * 1024)  # the control
    assert seen["phys_bytes"] == bound  # sysconf(_SC_PHYS_PAGES), as the JVM reads it
    assert _processors(seen["cpuinfo"]) == cpus
    assert "cpu MHz" not in seen["cpuinfo"] and "cpu MHz" in Path("/proc/cpuinfo").read_text()
    assert seen["online"] == machine.cpu_list(frozenset(cpus)) + "\n"
    assert seen["cpu_count"] == len(cpus) and seen["affinity"] == cpus
    # Nothing that moves: no clock speeds, idle counters, hot-plug or power state.
    assert not {"cpufreq", "cpuidle", "power", "hotplug"} & set(seen["cpus"])
    assert seen["pci"] == []  # no device
    assert (seen["write_meminfo"], seen["write_online"]) == ("PermissionError", "PermissionError")


@needs_namespaces
def test_sysinfo_is_refused_with_the_seats_answer_in_its_buffer(tmp_path: Path) -> None:
    answer = _probe(tmp_path, memory_mb=300)["sysinfo"]
    assert (answer["returned"], answer["errno"]) == (-1, 1)  # EPERM, as it always was
    assert answer["totalram"] == answer["freeram"] == 300 << 20
    assert (answer["loads"], answer["procs"], answer["mem_unit"]) == ([0, 0, 0], 1, 1)


@pytest.fixture
def one_cpu() -> Iterator[int]:
    """This process (the referee) on one CPU, as an organiser gives a seat fewer CPUs."""
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("one CPU here: a seat cannot be shown fewer")
    cpu = max(before)
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, before)


@needs_namespaces
def test_a_seat_on_fewer_cpus_is_shown_fewer(tmp_path: Path, one_cpu: int) -> None:
    seen = _probe(tmp_path)
    assert _processors(seen["cpuinfo"]) == [one_cpu]
    assert seen["online"] == f"{one_cpu}\n" and seen["cpu_count"] == 1
    assert [name for name in seen["cpus"] if name.startswith("cpu")] == [f"cpu{one_cpu}"]


def test_without_namespaces_sysinfo_is_refused_outright(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.sandbox import policy

    status = {**available(), "namespaces": "off for the test"}
    monkeypatch.setattr(policy, "available", lambda: status)
    seen = _probe(tmp_path, memory_mb=300)
    assert seen["sysinfo"]["returned"] == -1 and seen["sysinfo"]["totalram"] != 300 << 20
    assert seen["meminfo"] == "PermissionError"  # no view to show: the machine's stays closed


def test_off_shows_the_machine(tmp_path: Path) -> None:
    seen = _probe(tmp_path, settings=SandboxSettings(mode="off"), memory_mb=300)
    assert seen["sysinfo"]["returned"] == 0 and seen["sysinfo"]["totalram"] != 300 << 20


def test_cpu_lists_are_written_as_the_kernel_writes_them() -> None:
    assert machine.cpu_list(frozenset({0, 1, 2, 5, 7, 8})) == "0-2,5,7-8"
    assert machine.cpu_list(frozenset({3})) == "3"
    assert machine.cpu_list(frozenset()) == ""


@needs_namespaces
def test_the_views_are_removed_when_the_referee_is_killed(tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from referee.sandbox import machine;"
        " from referee.sandbox.seats import Jails; view = machine.view(64);"
        " Jails().open(); print(view.parent, flush=True); sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdout is not None
    root = Path(child.stdout.readline().decode().strip())
    assert (root / f"64m-{machine.cpu_list(machine.seat_cpus())}" / "proc" / "meminfo").exists()
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 10
    while root.exists():
        assert time.monotonic() < deadline, f"{root} outlived the referee"
        time.sleep(0.05)
