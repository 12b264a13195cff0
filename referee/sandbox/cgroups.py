"""A control group per seat: a memory bound and a process bound for the whole tree of
processes a bot starts, and a kill that reaches every one of them.

Two layouts are handled: the hybrid one (cgroup v1 ``memory`` and ``pids`` hierarchies, plus
the v2 tree for ``cgroup.kill``) and the unified v2 one (controllers enabled in a subtree we
own). Seat groups are made beneath the referee's own group in each hierarchy, so they stay
inside whatever the operator's own limits are. Making groups needs root, or a delegated
subtree; ``find`` says which is missing.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path("/sys/fs/cgroup")
_counter = itertools.count()


@dataclass(frozen=True)
class Hierarchies:
    """Where seat groups go: a directory per job (memory, pids, kill), and the layout."""

    memory: Path
    pids: Path
    kill: Path | None  # a v2 directory whose groups have cgroup.kill
    unified: bool
    #: Where a seat gets an equal share of the CPU with every other seat (v1 ``cpu``, or v2
    #: where the ``cpu`` controller is delegated); None where it cannot.
    cpu: Path | None = None


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy, from /proc/self/cgroup (``""`` is v2)."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as stream:
        for line in stream:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def find() -> Hierarchies:
    """The hierarchies seat groups can be made in; ``OSError`` saying why there are none."""
    own = _own_paths()
    if (ROOT / "cgroup.controllers").exists():  # unified v2 only
        base = ROOT / own.get("", "/").lstrip("/")
        controllers = (base / "cgroup.subtree_control").read_text().split()
        missing = [name for name in ("memory", "pids") if name not in controllers]
        if missing:
            raise OSError(
                errno.ENOTSUP,
                f"cgroup v2: {' and '.join(missing)} not enabled for the children of {base}"
                " (run the referee in a delegated cgroup whose cgroup.subtree_control has"
                " +memory +pids, e.g. under systemd-run -p Delegate=yes)",
            )
        cpu = base if "cpu" in controllers else None
        return Hierarchies(memory=base, pids=base, kill=base, unified=True, cpu=cpu)
    if not (ROOT / "memory").is_dir() or not (ROOT / "pids").is_dir():
        raise OSError(errno.ENOTSUP, f"no memory and pids cgroup hierarchies under {ROOT}")
    kill = None
    if (ROOT / "unified" / "cgroup.procs").exists():
        kill = ROOT / "unified" / own.get("", "/").lstrip("/")
    cpu = ROOT / "cpu" / own.get("cpu", "/").lstrip("/")
    return Hierarchies(
        memory=ROOT / "memory" / own.get("memory", "/").lstrip("/"),
        pids=ROOT / "pids" / own.get("pids", "/").lstrip("/"),
        kill=kill,
        unified=False,
        cpu=cpu if (cpu / "cpu.shares").exists() else None,
    )


class SeatCgroup:
    """One seat's groups. Made in the referee, and kept for the next bot of the same seat
    slot (making and removing a v1 memory group costs milliseconds); each new bot gets its
    bounds written again and the event counters read as a baseline. The child joins the
    groups itself, before it gives up root, by writing its pid into each ``cgroup.procs``.
    """

    def __init__(self, where: Hierarchies) -> None:
        name = f"texas42-{os.getpid()}-{next(_counter)}"
        self.dirs: list[Path] = []
        try:
            if where.unified:
                group = self._make(where.memory / name)
                if (group / "memory.swap.max").exists():
                    (group / "memory.swap.max").write_text("0")
                self.memory = self.pids = group
                kill: Path | None = group
            else:
                self.memory = self._make(where.memory / name)
                self.pids = self._make(where.pids / name)
                kill = self._make(where.kill / name) if where.kill else None
                if where.cpu is not None:  # a group of its own: an equal share with its peers
                    self._make(where.cpu / name)
        except OSError:
            self.remove()
            raise
        self.kill_dir = kill
        self.unified = where.unified
        self.procs_files = [str(directory / "cgroup.procs") for directory in self.dirs]
        self._baseline = (0, 0)

    def _make(self, path: Path) -> Path:
        path.mkdir()
        self.dirs.append(path)
        return path

    def bound(self, memory_bytes: int, max_pids: int) -> None:
        """Make the group ready for its next bot: set the bounds, and take the kernel's
        event counters as that bot's zero."""
        limit = "memory.max" if self.unified else "memory.limit_in_bytes"
        (self.memory / limit).write_text(str(memory_bytes))
        (self.pids / "pids.max").write_text(str(max_pids))
        self.rebase()

    def rebase(self) -> None:
        """Take the kernel's event counters as the zero of what the bot does next (a new bot,
        or a kept bot's next match)."""
        self._baseline = self._counts()

    def _counts(self) -> tuple[int, int]:
        """(allocations that failed at the memory bound, forks refused at the process bound),
        as the kernel counts them: v2's ``oom`` (an allocation about to fail) and ``oom_kill``
        (a process killed for it), v1's ``oom_kill``. Reaching the memory bound alone
        (``max``, v1's ``failcnt``) is not counted: reading files fills the page cache up to
        it, and the kernel reclaims that without harm."""
        if self.unified:
            events = self.memory / "memory.events"
            memory = self._counter(events, "oom") + self._counter(events, "oom_kill")
        else:
            memory = self._counter(self.memory / "memory.oom_control", "oom_kill")
        return memory, self._counter(self.pids / "pids.events", "max")

    def join(self) -> None:
        """Move the calling process into every group (in the child, before ``exec``)."""
        pid = str(os.getpid())
        for procs in self.procs_files:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, pid.encode())
            finally:
                os.close(fd)

    def members(self) -> list[int]:
        try:
            text = (self.pids / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(pid) for pid in text.split()]

    def kill(self) -> None:
        """SIGKILL to every process in the groups, wherever it went in the process tree."""
        if self.kill_dir is not None:
            with contextlib.suppress(OSError):
                (self.kill_dir / "cgroup.kill").write_text("1")
                return
        for pid in self.members():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def _counter(self, path: Path, key: str) -> int:
        try:
            text = path.read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
        return 0

    def hit_memory_bound(self) -> bool:
        """Did an allocation of this bot's tree fail (or a process die) at its memory bound?"""
        return self._counts()[0] > self._baseline[0]

    def hit_process_bound(self) -> bool:
        """Was a fork or thread of this bot refused because the tree reached ``pids.max``?"""
        return self._counts()[1] > self._baseline[1]

    def empty(self) -> bool:
        return not self.members()

    def remove(self) -> bool:
        """Remove the (empty) groups; False while some process is still leaving."""
        left = []
        for directory in reversed(self.dirs):
            try:
                directory.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                left.append(directory)
        self.dirs = left[::-1]
        return not left
