"""Each seat in namespaces of its own — user, PID, mount, IPC, network and UTS — so that no
seat can name another's processes, share an IPC object or a socket with it, or reach a
network interface.

Entered by the bot's child between ``fork`` and ``exec`` (``SeatJail.enter``), once its uid
is the seat's and before Landlock and seccomp:

1. ``unshare`` the six namespaces; the user namespace maps the seat's uid and gid to
   themselves (a seat left as root is ``nobody`` inside, so that an ``exec`` gains no
   capability there; its files are still root's, which Landlock and read-only mounts guard);
2. every mount is made read-only in the seat's view (a read then moves no access time,
   which any seat could ``stat``: a channel between partners and between the legs of a pair),
   the referee's secrets (the logs' directory, the results) are covered by empty mounts (a
   bot could ``stat`` them: a partner's stderr copy has the size its sender chooses), and the
   seat's ``tmp`` gets a tmpfs of its own, bounded in bytes and inodes: the referee sees two
   empty directories, the bot a bounded one that the kernel frees when the seat ends —
   nothing a bot builds is ever walked. (Landlock's rule is on the seat's directory: a rule
   on a mount point itself does not reach the filesystem mounted there, so the tmpfs can be
   mounted afresh beneath it and the rule still holds.)
3. ``RLIMIT_NPROC`` and ``RLIMIT_SIGPENDING``, which the kernel counts per user namespace:
   one seat's processes or queued signals cannot use up another's, or tell it how many it
   has, root or not;
4. two forks. The process the referee started (the *keeper*) stays outside the PID
   namespace, waits, and exits as the bot did; its child is PID 1 of the seat's namespace
   (the *init*): it reaps orphans, empties the scratch directory when the referee asks, and
   its end makes the kernel kill whatever is left of the seat. The init's child returns from
   ``enter`` and execs the bot, once it has mounted the seat's own ``/proc`` (the machine's
   would show every pid to ``stat``, which Landlock does not refuse).

Keeper and init are copies of the referee that never ``exec``: they close every descriptor
but their own pipes at once (another bot's pipe held open would hide its end of input), turn
the garbage collector off (a finaliser could close a descriptor number they reuse), and
block the signals meant for the bot.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import os
import resource
import select
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from referee.sandbox import libc as mounts
from referee.sandbox import private_root
from referee.sandbox.libc import (
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_RDONLY,
    MS_REMOUNT,
    check,
    libc,
)
from referee.sandbox.machine import MOUNTED
from referee.sandbox.private_root import SeatRoot
from referee.sandbox.sysinfo import SysinfoAnswers

CLONE_NEWNS: Final = 0x00020000
CLONE_NEWUTS: Final = 0x04000000
CLONE_NEWIPC: Final = 0x08000000
CLONE_NEWUSER: Final = 0x10000000
CLONE_NEWPID: Final = 0x20000000
CLONE_NEWNET: Final = 0x40000000
#: Every namespace a seat gets.
FLAGS: Final = (
    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS
)
#: The empty file, in the seats' scratch root, bound over each of the referee's files.
BLANK: Final = "blank"
#: What a seat that stays root is inside its namespace.
NOBODY: Final = 65534
#: Processes of a seat beyond the bot's own bound: the keeper and the init.
OVERHEAD: Final = 2
#: Seconds the referee waits for the init to empty the scratch directory.
EMPTY_TIMEOUT: Final = 2.0

#: Signals a seat may have queued (``RLIMIT_SIGPENDING``), counted in its user namespace.
SIGNALS_PENDING: Final = 1024
#: Past any descriptor the referee holds (``closerange`` asks the kernel's ``close_range``).
_MOST_FDS: Final = 1 << 30
_PR_SET_NAME: Final = 15
_PR_SET_DUMPABLE: Final = 4
#: What the keeper and the init keep from the bot: asked to end, they wait for the bot.
_HELD: Final = {
    signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE,
    signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
}  # fmt: skip

libc.unshare.argtypes = [ctypes.c_int]
libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]  # looked up here, never after a fork


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _unshare(uid: int, gid: int) -> tuple[int, int]:
    """Enter new namespaces, ``uid`` and ``gid`` (taken before: after ``unshare`` they read as
    the overflow ids) mapped to themselves, root to ``nobody``; the ids inside."""
    check(libc.unshare(FLAGS), "unshare")
    inside_uid, inside_gid = uid or NOBODY, gid or NOBODY
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inside_uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{inside_gid} {gid} 1\n")
    return inside_uid, inside_gid


def _keep_only(*keep: int) -> None:
    """Close every descriptor but ``keep``; the standard three become ``/dev/null``."""
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    last = 3
    for fd in sorted({*keep, null} - {0, 1, 2}):
        if fd > last:
            os.closerange(last, fd)
        last = fd + 1
    os.closerange(last, _MOST_FDS)
    if null > 2 and null not in keep:
        os.close(null)


def _mirror(status: int) -> None:
    """End this process as a process with ``status`` ended."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        libc.signal(number, ctypes.c_void_p(0))  # SIG_DFL
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


class SeatNamespaces:
    """One seat's namespaces: made by its child, and the referee's line to the seat's init."""

    def __init__(
        self,
        directory: Path,
        scratch: Path,
        scratch_mb: int,
        nproc: int | None,
        hidden: Sequence[Path] = (),
        view: Path | None = None,
        sysinfo: SysinfoAnswers | None = None,
        root: SeatRoot | None = None,
    ) -> None:
        #: The referee's files no seat may even ``stat``: each directory gets an empty
        #: read-only tmpfs over it, each file an empty one that the seat may not open.
        self.hidden = [(str(path).encode(), path.is_dir()) for path in hidden if path.exists()]
        #: An empty file beside the seats' directories, which no seat may open.
        self.blank = str(directory.parent / BLANK).encode()
        #: What the seat sees of the machine (``machine.view``), bound over the machine's.
        self.view = [
            (str(view / source).encode(), target.encode())
            for source, target in MOUNTED
            if view is not None and (view / source).exists()
        ]
        self.sysinfo = sysinfo
        #: The seat's own root (``private_root``), or None: it sees the machine's.
        self.root = root

        self.scratch = str(scratch)
        self.scratch_mb = scratch_mb
        self.nproc = nproc
        self.owner = (0, 0)  # the scratch's uid and gid inside, once the maps are written
        # The referee asks on one pipe and the init answers on the other.
        self._ask_read, self._ask = os.pipe()
        self._answer, self._answer_write = os.pipe()

    # -- in the child, between fork and exec ---------------------------------------------

    def enter(self) -> None:
        """Make the seat's namespaces and fork the keeper and the init: returns in the process
        that is to exec the bot, never in the others. ``OSError`` when a step fails."""
        uid, gid = os.geteuid(), os.getegid()
        if uid != 0:
            # After a change of uid the process is no longer dumpable, and its /proc files
            # belong to root: it could not write its own user namespace's maps.
            check(libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
        inside_uid, inside_gid = _unshare(uid, gid)
        self.owner = (inside_uid, inside_gid)
        root = self.root
        if root is not None:  # the old root goes at the pivot: nothing to hide in it
            root.build(inside_uid, inside_gid)
            self._mount(root.inside(self.scratch.encode()))
        else:
            mounts.read_only_mounts(b"/")
            for path, is_directory in self.hidden:
                if is_directory:
                    hidden = libc.mount(b"none", path, b"tmpfs", MS_RDONLY, b"size=4k")
                else:
                    hidden = libc.mount(self.blank, path, None, MS_BIND, None)
                if hidden != 0 and ctypes.get_errno() not in (errno.EACCES, errno.ENOENT):
                    check(hidden, "hide")  # else the seat cannot even reach it: hidden already
            self._mount()
        if self.nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (self.nproc, self.nproc))
        resource.setrlimit(resource.RLIMIT_SIGPENDING, (SIGNALS_PENDING, SIGNALS_PENDING))
        status_read, status_write = os.pipe()
        lifeline, lifeline_write = os.pipe()
        init = os.fork()
        if init:
            libc.prctl(_PR_SET_NAME, b"texas42-keeper", 0, 0, 0)
            gc.disable()
            signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
            _keep_only(status_read, lifeline_write)
            self._keep(init, status_read)
        os.close(lifeline_write)
        os.close(status_read)
        bot = os.fork()
        if bot:
            libc.prctl(_PR_SET_NAME, b"texas42-init", 0, 0, 0)
            gc.disable()
            signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
            # Out of the keeper's process group, which the referee stops between matches:
            # the init must still answer then. The bot stays in the group.
            os.setpgid(0, 0)
            sysinfo = self.sysinfo.kept() if self.sysinfo is not None else ()
            _keep_only(self._ask_read, self._answer_write, lifeline, status_write, *sysinfo)
            self._init(bot, lifeline, status_write)
        # The bot's process, in the seat's PID namespace: its own /proc, or none at all (its
        # own ends of the pipes close at exec). In a root of its own, they are mounted there
        # before the pivot: a new /proc needs the machine's still in sight.
        at = (lambda path: path) if root is None else root.inside
        proc = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
        if libc.mount(b"proc", at(b"/proc"), b"proc", proc, None) != 0:
            check(libc.mount(b"none", at(b"/proc"), b"tmpfs", proc, b"size=4k"), "hide /proc")
        for source, target in self.view:  # the seat's size, over the machine's (read-only)
            if root is not None and os.path.lexists(at(source)):
                # its copy in the seat's root, whose directories are the seat's own: the
                # view's folder is every seat's, and a failed lookup in it would be shared
                source = at(source)
            if libc.mount(source, at(target), None, MS_BIND, None) != 0:
                if ctypes.get_errno() == errno.ENOENT:
                    continue  # the machine has no such file: the seat does not need one
                check(-1, f"show {target.decode()}")
            check(libc.mount(None, at(target), None, MS_REMOUNT | MS_BIND | proc, None), "view")
        if root is not None:
            root.enter()

    def _mount(self, at: bytes | None = None) -> None:
        """The scratch tmpfs, on its path (``at``: where that path is before the pivot)."""
        where = self.scratch if at is None else at.decode()
        mounts.mount_tmpfs(where, self.scratch_mb, *self.owner)

    def _keep(self, init: int, status: int) -> None:
        """The keeper: wait for the init, then end as the bot ended (as the init did, when it
        could not say)."""
        said = b""
        while chunk := os.read(status, 64):
            said += chunk
        _, ended = os.waitpid(init, 0)
        _mirror(int(said) if said.strip().isdigit() else ended)

    def _init(self, bot: int, lifeline: int, status: int) -> None:
        """PID 1 of the seat: reap every process that ends, answer the referee, and when the
        bot has ended tell the keeper how and leave — the kernel then ends the rest."""
        try:
            bot_exit: int = os.pidfd_open(bot)
        except OSError:
            bot_exit = -1
        # poll, not select: the descriptors keep the referee's numbers, which may pass 1,024.
        watched = select.poll()
        for fd in (bot_exit, lifeline, self._ask_read):
            if fd >= 0:
                watched.register(fd, select.POLLIN)
        if self.sysinfo is not None:
            self.sysinfo.watch(watched)
        while True:
            readable = {fd for fd, _ in watched.poll(1000)}
            if self.sysinfo is not None:
                for fd in readable:
                    self.sysinfo.ready(fd, bot_exit, watched)
            while True:
                try:
                    pid, ended = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    os._exit(1)
                if pid == 0:
                    break
                if pid == bot:
                    os.write(status, str(ended).encode())
                    os._exit(0)
            if lifeline in readable:  # the keeper is gone
                os._exit(1)
            if self._ask_read in readable:
                asked = os.read(self._ask_read, 1)
                if not asked:
                    watched.unregister(self._ask_read)
                elif asked == b"e":
                    os.write(self._answer_write, b"y" if self._remount() else b"n")

    def _remount(self) -> bool:
        """A fresh tmpfs over the scratch directory. Not while the bot holds the old one open
        (a descriptor, its working directory): detached, it would live on, outside every
        bound, for as long as the bot — so the bot is retired instead. In a root of its own
        the path is the same: the bot's pivot moved the init's root with its own."""
        if libc.umount2(self.scratch.encode(), 0) != 0:
            return False
        try:
            self._mount()
        except OSError:
            return False
        return True

    # -- in the referee ------------------------------------------------------------------

    def started(self) -> None:
        """The child has its ends of the pipes: close the referee's copies."""
        for fd in (self._ask_read, self._answer_write):
            os.close(fd)
        self._ask_read = self._answer_write = -1
        if self.sysinfo is not None:
            self.sysinfo.close()

    def empty_scratch(self) -> bool:
        """Ask the seat's init for a fresh scratch tmpfs; False when it did not make one."""
        try:
            os.write(self._ask, b"e")
            answer = select.poll()
            answer.register(self._answer, select.POLLIN)
            if not answer.poll(EMPTY_TIMEOUT * 1000):
                return False
            return os.read(self._answer, 1) == b"y"
        except OSError:
            return False

    def close(self) -> None:
        for fd in (self._ask, self._answer, self._ask_read, self._answer_write):
            if fd >= 0:
                os.close(fd)
        self._ask = self._answer = self._ask_read = self._answer_write = -1
        if self.sysinfo is not None:
            self.sysinfo.close()


#: The trial child's exit status when its namespaces work and a root of its own does not.
_NO_PIVOT: Final = 3


def probe() -> tuple[str | None, str | None]:
    """(None when a child can make a seat's namespaces here, else why not; None when it can
    then pivot into a root of its own, ``private_root``, else why not). As root the child
    first takes an unused uid, as a seat does: unprivileged user namespaces may be off. The
    child leaves without ``exec``: its root is an empty tmpfs by then."""
    import subprocess

    def make() -> None:
        try:
            if os.geteuid() == 0:
                spare = 0x3FFFFFFF
                os.setgroups([])
                os.setresgid(spare, spare, spare)
                os.setresuid(spare, spare, spare)
                check(libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
            _unshare(os.geteuid(), os.getegid())
            mounts.read_only_mounts(b"/")
            check(libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=4k"), "mount a tmpfs")
        except OSError as exc:
            os.write(2, (exc.strerror or str(exc)).encode())
            os._exit(1)
        try:
            os.chdir("/tmp")
            pivot = private_root.probe()
        except OSError as exc:
            pivot = exc.strerror or str(exc)
        if pivot is not None:
            os.write(2, pivot.encode())
            os._exit(_NO_PIVOT)
        os._exit(0)

    try:
        run = subprocess.run(
            ["/bin/true"], preexec_fn=make, capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot start a trial child: {exc}", None
    said = run.stderr.decode(errors="replace").strip() or f"exit status {run.returncode}"
    if run.returncode == _NO_PIVOT:
        return None, f"cannot make a tmpfs the seat's root: {said}"
    if run.returncode != 0:
        return f"cannot make user, PID, mount, IPC, network and UTS namespaces: {said}", None
    return None, None
