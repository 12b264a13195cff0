"""What a seat sees of the machine: a snapshot of its own size, never the live machine.

Runtimes size themselves from the machine they think they run on: a JVM takes a quarter of
its memory for the heap, onnxruntime and BLAS start a thread per core, node sizes its heap
from ``/proc/meminfo``. In a seat, the live files that say so are closed (``/proc`` and
``/sys`` show the machine's load, free memory and other processes: channels between seats),
and ``sysinfo`` is refused for the same reason — and a program that does not look at the
error (glibc's ``sysconf(_SC_PHYS_PAGES)``, the JVM) then reads whatever its stack held:
Temurin 25 sized its heap for petabytes and died at start.

So each seat with namespaces of its own is shown a snapshot the referee writes once per
process (``view``): ``/proc/meminfo`` whose total, free and available memory are the seat's
memory bound; ``/proc/cpuinfo`` and ``/sys/devices/system/cpu`` with only the CPUs the seat
may use (the referee's affinity mask, which the seat inherits), their topology and caches
but nothing that moves (no clock speeds, idle counters or times); and an empty
``/sys/bus/pci/devices`` (the seat has no device). They are bound over the machine's in
the seat's mount namespace (``MOUNTED``), read-only, and Landlock lets the seat read them
(``shown``).
``sysinfo`` stays refused, but the seat's init fills the caller's buffer with the same
snapshot first (``sysinfo_answer``): the seat's bound as total and free memory, no swap,
no load, one process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import struct
import tempfile
import threading
from pathlib import Path
from typing import Final

from referee.sandbox.reaper import SCRATCH, Reaper

#: Each file or directory of the view, and where the seat sees it.
MOUNTED: Final = (
    ("proc/meminfo", "/proc/meminfo"),
    ("proc/cpuinfo", "/proc/cpuinfo"),
    ("sys/devices/system/cpu", "/sys/devices/system/cpu"),
    ("sys/bus/pci/devices", "/sys/bus/pci/devices"),
)
_CPUS: Final = Path("/sys/devices/system/cpu")
#: Files of a CPU's ``topology`` and ``cache/index*`` directories that never change (no
#: ``ppin``: a processor's serial number is root's business).
_TOPOLOGY: Final = (
    *("core_id", "physical_package_id", "die_id", "cluster_id", "book_id", "drawer_id"),
    *("core_cpus", "core_cpus_list", "thread_siblings", "thread_siblings_list"),
    *("core_siblings", "core_siblings_list", "package_cpus", "package_cpus_list"),
    *("die_cpus", "die_cpus_list", "cluster_cpus", "cluster_cpus_list"),
)
_CACHE: Final = (
    *("level", "type", "size", "coherency_line_size", "ways_of_associativity"),
    *("number_of_sets", "physical_line_partition", "shared_cpu_list", "shared_cpu_map", "id"),
    *("allocation_policy", "write_policy"),
)
#: Lines of ``/proc/cpuinfo`` that move (the clock speed): left out.
_MOVING: Final = ("cpu MHz",)
#: ``/proc/meminfo``'s fields, in its order: the first three are the seat's bound, the rest 0.
_MEMINFO: Final = (
    *("MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapCached", "Active"),
    *("Inactive", "SwapTotal", "SwapFree", "Dirty", "Writeback", "AnonPages", "Mapped"),
    *("Shmem", "Slab", "SReclaimable", "SUnreclaim", "CommitLimit", "Committed_AS"),
)

_lock = threading.Lock()
_root: Path | None = None
_watched = False


def cpu_list(cpus: set[int] | frozenset[int]) -> str:
    """``{0, 1, 2, 5}`` -> ``"0-2,5"``, as the kernel writes CPU lists."""
    ranges: list[str] = []
    for cpu in sorted(cpus):
        if ranges and "-" not in ranges[-1] and int(ranges[-1]) == cpu - 1:
            ranges[-1] = f"{ranges[-1]}-{cpu}"
        elif ranges and "-" in ranges[-1] and int(ranges[-1].split("-")[1]) == cpu - 1:
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{cpu}"
        else:
            ranges.append(str(cpu))
    return ",".join(ranges)


def seat_cpus() -> frozenset[int]:
    """The CPUs a seat may use: the referee's own affinity, which its children inherit."""
    return frozenset(os.sched_getaffinity(0))


def view(memory_mb: int) -> Path:
    """The snapshot a seat with a bound of ``memory_mb`` MiB sees, written once per process
    (and per bound and set of CPUs) in a directory every seat may read. No seat may write
    it: Landlock allows it read-only, and the seat's mounts are read-only."""
    cpus = seat_cpus()
    with _lock:
        folder = _process_root() / f"{memory_mb}m-{cpu_list(cpus)}"
        if not folder.exists():
            building = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".building-"))
            try:
                building.chmod(0o755)
                _write(building, memory_mb, cpus)
                building.rename(folder)
            except BaseException:
                shutil.rmtree(building, ignore_errors=True)
                raise
        return folder


def shown(view: Path) -> list[Path]:
    """The files and directories of ``view`` a seat is shown: each needs a Landlock rule of
    its own, since a rule is looked for along the path the seat opens (``/proc/meminfo``),
    where the view's own directory is not."""
    return [view / source for source, _ in MOUNTED if (view / source).exists()]


def _process_root() -> Path:
    """This process's directory of views, made at first use and removed at its exit (by the
    reaper, once a seat has been made, if it dies first: ``watched``)."""
    global _root, _watched
    if _root is None or not _root.exists():
        root = Path(tempfile.mkdtemp(prefix="texas42-machine-"))
        root.chmod(0o755)
        atexit.register(_remove, root)
        _root, _watched = root, False
    return _root


def watched() -> None:
    """Have the reaper remove this process's views if it dies: called when seats are made
    (a process that only plans starts no reaper, and removes them at its exit)."""
    global _watched
    with _lock:
        if _root is not None and not _watched:
            Reaper.get().watch(SCRATCH, _root)
            _watched = True


def _remove(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
    if _watched and root == _root:
        Reaper.get().forget(SCRATCH, root)


def _write(folder: Path, memory_mb: int, cpus: frozenset[int]) -> None:
    proc = folder / "proc"
    proc.mkdir()
    kilobytes = memory_mb * 1024
    (proc / "meminfo").write_text(
        "".join(
            f"{name + ':':<16}{kilobytes if index < 3 else 0:>8} kB\n"
            for index, name in enumerate(_MEMINFO)
        )
    )
    (proc / "cpuinfo").write_text(_cpuinfo(cpus))
    system = folder / "sys" / "devices" / "system" / "cpu"
    system.mkdir(parents=True)
    listed = cpu_list(cpus) + "\n"
    for name in ("possible", "present", "online"):
        (system / name).write_text(listed)
    (system / "offline").write_text("\n")
    _copy(_CPUS / "kernel_max", system / "kernel_max")
    for cpu in sorted(cpus):
        source, target = _CPUS / f"cpu{cpu}", system / f"cpu{cpu}"
        (target / "topology").mkdir(parents=True)
        for name in _TOPOLOGY:
            _copy(source / "topology" / name, target / "topology" / name)
        if cpu:
            (target / "online").write_text("1\n")
        with contextlib.suppress(OSError):
            for index in sorted((source / "cache").glob("index*")):
                (target / "cache" / index.name).mkdir(parents=True)
                for name in _CACHE:
                    _copy(index / name, target / "cache" / index.name / name)
    (folder / "sys" / "bus" / "pci" / "devices").mkdir(parents=True)


def _copy(source: Path, target: Path) -> None:
    """``source``'s text as ``target`` (nothing when it cannot be read)."""
    with contextlib.suppress(OSError):
        target.write_bytes(source.read_bytes())


def _cpuinfo(cpus: frozenset[int]) -> str:
    """The machine's ``/proc/cpuinfo`` for ``cpus``, without the lines that move."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "".join(f"processor\t: {cpu}\n\n" for cpu in sorted(cpus))
    kept: list[str] = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith(_MOVING)]
        number = next((line for line in lines if line.startswith("processor")), None)
        if number is None:
            continue
        with contextlib.suppress(ValueError):
            if int(number.split(":", 1)[1]) in cpus:
                kept.append("\n".join(lines) + "\n")
    return "\n".join(kept) + "\n"


#: ``struct sysinfo`` on 64-bit Linux: uptime, three loads, six memory counts, the process
#: count (and padding), two high-memory counts, the unit (and padding): 112 bytes.
_SYSINFO: Final = struct.Struct("<q3Q6QHH4xQQI4x")
SYSINFO_SIZE: Final = _SYSINFO.size


def sysinfo_answer(memory_mb: int, uptime: int) -> bytes:
    """What a seat's ``sysinfo`` buffer is filled with: the seat's bound as total and free
    memory, no swap, no load, one process, in bytes (``mem_unit`` 1)."""
    bound = memory_mb << 20
    return _SYSINFO.pack(uptime, 0, 0, 0, bound, bound, 0, 0, 0, 0, 1, 0, 0, 0, 1)
