"""One seat's sandbox: made in the referee just before its bot starts, entered by the child
between ``fork`` and ``exec``, undone when the bot has been closed.

Everything that can fail or allocate much is done here in the referee (the control groups,
the Landlock ruleset with its rules, the compiled seccomp filter); the child only makes a
handful of system calls, in an order that matters:

1. join the seat's control groups (while still root: the groups belong to root);
2. set the resource limits;
3. take the seat's uid (``setgroups``, ``setresgid``, ``setresuid``), or, staying root, empty
   the capability bounding set;
4. ask for SIGKILL when the referee's thread dies (after the uid change, which resets it),
   and leave at once if the referee is already gone;
5. the seat's own namespaces (``namespaces.py``): the process that returns from this step
   is PID 1's child in them, and the only one that goes on;
6. ``no_new_privs``, then Landlock, then seccomp last (it refuses calls the steps above make).

A step that fails writes one line to the bot's stderr and exits 125 before ``exec``, so the
referee reports the reason instead of waiting for a bot that never starts.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import signal
from pathlib import Path
from typing import Final

from referee.errors import BotCrashed, BotFault, BotNotReading
from referee.record.sandbox import Layer
from referee.rules.tiles import Seat
from referee.sandbox import (
    cgroups,
    landlock,
    libc,
    overruns,
    paths,
    private_root,
    root_tree,
    scratch,
    seccomp,
)
from referee.sandbox.machine import MOUNTED
from referee.sandbox.namespaces import OVERHEAD, SeatNamespaces
from referee.sandbox.policy import SandboxPlan
from referee.sandbox.reaper import GROUP, MOUNT, Reaper
from referee.sandbox.sysinfo import SysinfoAnswers

Lines = tuple[str, ...]
#: Exit status of a child whose sandbox could not be entered.
SETUP_FAILED: Final = 125
MIB: Final = 1 << 20
OPEN_FILES: Final = 1024
#: What reaches a sandboxed bot of the referee's environment (with ``LC_*`` and the names
#: given with ``--sandbox-env``): what runtimes look for, nothing that could be a secret.
BOT_ENVIRONMENT: Final = frozenset(
    {
        *("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM"),
        *("JAVA_HOME", "NODE_PATH", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUNBUFFERED"),
        *("PYTHONDONTWRITEBYTECODE", "PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV"),
        *("LD_LIBRARY_PATH", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"),
        *("ORT_INTRA_OP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"),
    }
)


def cpu_seconds_used(pid: int) -> float | None:
    """CPU seconds (user and system) process ``pid`` has used, as ``RLIMIT_CPU`` counts
    them; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime and stime, fields 14 and 15
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from each thread's ``children`` list in ``/proc``."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending += [int(child) for child in children.read().split()]
    return found


@functools.cache
def _filter(own_pids_only: bool, shared_uid: bool, answered: bool) -> seccomp.Filter:
    """The compiled filter, made once per process and kept alive; ``own_pids_only`` where the
    seat has no PID namespace of its own, ``shared_uid`` where it has no uid of its own,
    ``answered`` where the seat's init answers ``sysinfo`` (``seccomp.program``)."""
    program = seccomp.program(own_pids_only=own_pids_only, shared_uid=shared_uid, answered=answered)
    return seccomp.Filter(program)


def _seat_root(
    plan: SandboxPlan, readable: list[Path], scratch: Path, tmpdir: Path
) -> private_root.SeatRoot:
    """The seat's own root: what it may read (the referee's secrets left out), its devices,
    its scratch tmpfs at ``tmpdir``, mounted on ``scratch`` until the pivot."""
    tree = root_tree.tree(readable, plan.secrets)
    shown = [target for _, target in MOUNTED if not target.startswith("/proc/")]
    return private_root.SeatRoot(tree, str(scratch), str(tmpdir), shown, paths.DEVICES)


def _seat_namespaces(
    plan: SandboxPlan,
    seat: Seat,
    scratch: Path,
    tmpdir: Path,
    nproc: int | None,
    root: private_root.SeatRoot | None,
) -> SeatNamespaces:
    """The seat's namespaces, its scratch tmpfs mounted in them; the referee's secrets are
    hidden from the seat, unless its own program lies there (its uid keeps it out of the
    files then), or absent from its own root."""
    mine = plan.readable.get(seat, [])
    hidden = [
        secret for secret in plan.secrets if not any(paths.contains(secret, path) for path in mine)
    ]
    answered = Layer.SECCOMP in plan.report.seats[seat] and plan.view is not None
    return SeatNamespaces(
        scratch,
        tmpdir,
        plan.limits.scratch_mb,
        nproc,
        hidden,
        view=plan.view,
        sysinfo=SysinfoAnswers(plan.limits.memory_mb) if answered else None,
        root=root,
    )


def _rules_in_root(ruleset: landlock.Ruleset, directories: list[str], scratch: Path) -> None:
    """In the child, once in its own root, where the skeleton's directories stand for the
    machine's (a rule holds for the directory it was made on): every directory it may read,
    read-only, its scratch directory whole, and listing directories (the names of what it
    may read, its own /proc). Its files, devices and view are the machine's, bound in: their
    rules hold already. Nothing more may be written or run than before."""
    ruleset.allow("/", landlock.READ_DIR)
    for path in directories:
        ruleset.allow(path, landlock.READ_ONLY)
    ruleset.allow_all(scratch)


class SeatJail:
    """What one seat's bot runs under."""

    def __init__(
        self,
        plan: SandboxPlan,
        seat: Seat,
        scratch: Path,
        uid: int | None,
        nproc: int | None,
        cgroup: cgroups.SeatCgroup | None,
    ) -> None:
        self.seat = seat
        self.layers = plan.report.seats[seat]
        self.limits = plan.limits
        self.scratch = scratch
        self.uid = uid
        # RLIMIT_NPROC does not bind root; in a user namespace the kernel counts the seat's
        # own processes, the keeper and the init among them.
        if uid is None and os.geteuid() == 0:
            nproc = None
        elif Layer.NAMESPACES in self.layers:
            nproc = self.limits.max_processes + OVERHEAD
        self.nproc = nproc
        self.parent = os.getpid()
        self.last_cap = libc.last_capability()
        self.env_names = plan.settings.env
        #: Where the bot may write (its ``TMPDIR``).
        self.tmpdir = scratch / "tmp" if Layer.NAMESPACES in self.layers else scratch
        for directory in dict.fromkeys((scratch, self.tmpdir)):
            directory.mkdir(mode=0o700)
            if uid is not None:
                os.chown(directory, uid, uid)
        #: What the bot may read (Landlock's allow-list, where it is in force).
        self.readable: list[Path] = [
            *map(Path, paths.SYSTEM),
            paths.PACKAGE,
            *plan.readable.get(seat, []),
        ]
        self.mounted = False
        self.cgroup: cgroups.SeatCgroup | None = None
        self.ruleset: landlock.Ruleset | None = None
        self.namespaces: SeatNamespaces | None = None
        #: The directories among ``readable``, whose Landlock rules the seat's own root needs
        #: again: a rule holds for the directory it was made on, and the root's are others.
        self.root_directories: list[str] = []
        try:
            root = None
            if Layer.NAMESPACES in self.layers and Layer.PRIVATE_ROOT in self.layers:
                root = _seat_root(plan, self.readable, scratch, self.tmpdir)
                self.root_directories = list(root.tree.allowed_directories)
            if Layer.NAMESPACES in self.layers:  # the scratch tmpfs is mounted in them
                self.namespaces = _seat_namespaces(
                    plan, seat, scratch, self.tmpdir, self.nproc, root
                )
            elif Layer.TMPFS in self.layers:
                self.mounted = True  # first: an interrupt just after the mount must undo it
                Reaper.get().watch(MOUNT, scratch)
                libc.mount_tmpfs(
                    str(scratch), self.limits.scratch_mb, os.getuid() if uid is None else uid
                )
            if Layer.CGROUP in self.layers:
                assert cgroup is not None
                self.cgroup = cgroup
                cgroup.bound(self.limits.memory_mb * MIB, self.limits.max_processes)
            if Layer.LANDLOCK in self.layers:
                self.ruleset = landlock.Ruleset(landlock.abi())
                for path in self.readable:
                    self.ruleset.allow(path, landlock.READ_ONLY, keep=True)
                for device in paths.DEVICES:
                    self.ruleset.allow(device, landlock.DEVICE, keep=True)
                self.ruleset.allow_all(scratch)
            own_pids_only, shared_uid = self.namespaces is None, uid is None
            answered = self.namespaces is not None and self.namespaces.sysinfo is not None
            on = Layer.SECCOMP in self.layers
            self.filter = _filter(own_pids_only, shared_uid, answered) if on else None
        except BaseException:
            self.close()
            raise

    def environment(self) -> dict[str, str]:
        """What a bot needs of the referee's environment (``BOT_ENVIRONMENT``, ``LC_*`` and
        the ``--sandbox-env`` names) — never the rest, which may hold an operator's tokens —
        with the scratch directory as its ``TMPDIR``."""
        passed = {*BOT_ENVIRONMENT, *self.env_names}
        kept = {
            name: value
            for name, value in os.environ.items()
            if name in passed or name.startswith("LC_")
        }
        return {**kept, "TMPDIR": str(self.tmpdir)}

    # -- in the child, between fork and exec ---------------------------------------------

    def enter(self) -> None:
        """Apply every layer to this (child) process; exit 125 with a reason if one fails."""
        step = "start"
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, ())  # the referee held some off
            if self.cgroup is not None:
                step = "joining the control group"
                self.cgroup.join()
            step = "setting resource limits"
            self._limit()
            if self.uid is not None:
                step = "switching uid"
                os.setgroups([])
                os.setresgid(self.uid, self.uid, self.uid)
                os.setresuid(self.uid, self.uid, self.uid)
            elif Layer.NO_CAPS in self.layers:
                step = "dropping capabilities"
                libc.drop_bounding_set(self.last_cap)
            if Layer.REAPER in self.layers:
                step = "asking for the parent-death signal"
                libc.parent_death_signal(signal.SIGKILL)
                if os.getppid() != self.parent:
                    os._exit(SETUP_FAILED)
            if self.namespaces is not None:
                step = "making the seat's namespaces"
                self.namespaces.enter()
            step = "no_new_privs"
            libc.no_new_privs()
            if self.ruleset is not None:
                if self.namespaces is not None and self.namespaces.root is not None:
                    step = "Landlock's rules in the seat's root"
                    _rules_in_root(self.ruleset, self.root_directories, self.scratch)
                step = "entering Landlock"
                self.ruleset.restrict_self()
            if self.filter is not None:
                step = "installing the seccomp filter"
                answers = None if self.namespaces is None else self.namespaces.sysinfo
                listener = self.filter.install(listener=answers is not None)
                if answers is not None and listener is not None:
                    step = "handing sysinfo to the seat's init"
                    answers.hand_over(listener)
        except BaseException as exc:
            message = f"referee sandbox: {step} failed: {exc}\n".encode(errors="replace")
            os.write(2, message)
            os._exit(SETUP_FAILED)

    def _limit(self) -> None:
        limits = self.limits
        memory = limits.memory_mb * MIB
        if self.cgroup is not None:  # the group bounds the tree; a process hits it first
            memory *= 2
        cpu = limits.cpu_seconds
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        size = limits.file_size_mb * MIB
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        files = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.nproc is not None and self.namespaces is None:  # else counted in them
            resource.setrlimit(resource.RLIMIT_NPROC, (self.nproc, self.nproc))

    # -- in the referee ------------------------------------------------------------------

    def started(self, pid: int) -> None:
        if self.namespaces is not None:
            self.namespaces.started()
        if Layer.REAPER in self.layers:
            Reaper.get().watch(GROUP, pid)

    def kill(self) -> None:
        """SIGKILL to the seat's whole tree, wherever its processes went."""
        if self.cgroup is not None:
            self.cgroup.kill()

    def explain(
        self, fault: BotFault, returncode: int | None, stdout: Lines = (), stderr: Lines = ()
    ) -> BotFault:
        """The precise fault when the bot went over one of its bounds (``overruns.charged``):
        ``stdout`` is what it wrote in the exchange that failed, ``stderr`` its last words.
        The control group's counters are read for a bot gone away, never one answering."""
        gone = returncode is not None or isinstance(fault, BotCrashed | BotNotReading)
        cgroup = self.cgroup if gone else None
        oom, forks = (cgroup.hit_memory_bound(), cgroup.hit_process_bound()) if cgroup else (0, 0)
        binds = self.cgroup is not None or self.nproc is not None  # else root's: unbounded
        bounds = overruns.BOUNDS if binds else overruns.BOUNDS - {"processes"}
        evidence = overruns.Evidence(returncode, bool(oom), bool(forks), stdout, stderr, bounds)
        precise = overruns.charged(fault, evidence, self.limits)
        if precise is fault and returncode == SETUP_FAILED:
            return type(fault)(
                f"{fault}; exit status {SETUP_FAILED}: the sandbox could not be entered, or the"
                " bot exited with that status (its stderr says which)"
            )
        return precise

    def next_match(self, pid: int) -> str | None:
        """Make a kept bot's sandbox ready for its next match: its scratch directory emptied,
        its control group's event counters taken as the new zero. Returns why the bot must be
        retired instead, or None.

        ``RLIMIT_CPU`` bounds each process over its whole life, and raising it again would
        need ``CAP_SYS_RESOURCE`` (and would pass the raised bound to every child forked
        later): so a kept bot is retired instead, once one of its processes has used half of
        its CPU bound, and each match it plays leaves it at least the other half."""
        if not self._empty_scratch():
            return "its scratch directory could not be emptied"
        if self.cgroup is not None:
            self.cgroup.rebase()
        members = self.cgroup.members() if self.cgroup is not None else _tree(pid)
        used = max((cpu_seconds_used(member) or 0.0 for member in members), default=0.0)
        if used * 2 > self.limits.cpu_seconds:
            return f"a process of it has used {used:.1f} s of its {self.limits.cpu_seconds} s CPU"
        return None

    def _empty_scratch(self) -> bool:
        """A fresh tmpfs in the seat's namespaces, never a walk of what the bot built; else
        the bounded, non-recursive walk of ``scratch``."""
        if self.namespaces is not None:
            return self.namespaces.empty_scratch()
        # The referee's own tmpfs carries the bot's Landlock rule on its root: it stays, and
        # its contents go by the bounded walk.
        return scratch.remove(self.scratch, keep=True)

    def ended(self, pgid: int) -> None:
        """The bot's process group has been killed and its leader reaped: the reaper must
        forget the group id, which the kernel may now give to another process. Whatever of
        the bot is still leaving is its control group's business."""
        if Layer.REAPER in self.layers:
            Reaper.get().forget(GROUP, pgid)

    def empty(self) -> bool:
        """Is every process of the bot gone (its control group empty)?"""
        return self.cgroup is None or self.cgroup.empty()

    def close(self) -> None:
        """Undo what was made for this seat in the referee (safe to repeat)."""
        if self.namespaces is not None:
            self.namespaces.close()
        if self.ruleset is not None:
            self.ruleset.close()
            self.ruleset = None
        if self.mounted:
            with contextlib.suppress(OSError):
                libc.unmount(str(self.scratch))
            Reaper.get().forget(MOUNT, self.scratch)
            self.mounted = False
