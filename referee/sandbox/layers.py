"""The sandbox's layers: what each protects, what it needs, and whether this machine has it.

``available`` probes the machine once per process with cheap system calls (the Landlock ABI,
the seccomp mode, a trial control group, the credentials); ``referee sandbox`` goes further
and attacks a real sandboxed child with each layer (``probe.py``).
"""

from __future__ import annotations

import functools
import os
from typing import Final

#: Every layer, in the order they are applied to a starting bot, with what it protects.
PROTECTS: Final = {
    "cgroup": "memory and process bounds and an equal CPU share for the bot's whole tree; a kill"
    " that reaches all of it",
    "rlimits": "memory (data segment), CPU seconds and file size per process, open files, no core",
    "tmpfs": "a private, size-bounded tmpfs as each seat's scratch directory: no filling the disk,"
    " emptied by mounting it afresh",
    "uid": "a uid per seat: file permissions, signals and /proc of other processes, process count",
    "no-caps": "a bot left as root gets no capability (empty bounding set)",
    "reaper": "nothing outlives the referee: parent-death signal and a reaper process (kill -9)",
    "namespaces": "user, PID, mount, IPC, network and UTS namespaces per seat: no other seat's"
    " processes to name or read, no network interface, its own process count; the seat's tree"
    " ends with it",
    "page-cache": "every page a bot may read is read, and as root locked in memory, before its"
    " first match: no read makes a page hotter, no seat can evict one (a timing channel)",
    "landlock": "files: only the bot's runtime, its own files and its scratch directory",
    "landlock-net": "no TCP bind or connect",
    "landlock-scope": "no signals and no abstract unix sockets outside the bot's own tree",
    "seccomp": "no setsid/setpgid, ptrace, process_vm_*, sockets, System V IPC, locks, mounts,"
    " new namespaces; without a PID namespace, no call on another process's pid",
}
#: What a competition cannot do without (``--sandbox strict``); as root, a uid per seat too
#: (a seat left as root still owns the referee's files and processes).
REQUIRED: Final = ("rlimits", "landlock", "landlock-net", "landlock-scope", "seccomp", "reaper")


def is_root() -> bool:
    return os.geteuid() == 0


def _capabilities() -> int:
    try:
        with open("/proc/self/status") as stream:
            for line in stream:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


@functools.cache
def available() -> dict[str, str | None]:
    """Each layer: None when this machine supports it, else the exact reason it does not."""
    from referee.sandbox import landlock, seccomp

    status: dict[str, str | None] = dict.fromkeys(PROTECTS)
    try:
        version = landlock.abi()
    except OSError as exc:
        status["landlock"] = status["landlock-net"] = status["landlock-scope"] = exc.strerror
    else:
        if version < 4:
            status["landlock-net"] = f"Landlock ABI {version}: TCP rules need ABI 4 (Linux 6.7)"
        if version < 6:
            status["landlock-scope"] = f"Landlock ABI {version}: scoping needs ABI 6 (Linux 6.12)"
    try:
        seccomp.program()
        with open("/proc/self/status") as stream:
            if "Seccomp:" not in stream.read():
                status["seccomp"] = "this kernel has no seccomp (CONFIG_SECCOMP_FILTER)"
    except OSError as exc:
        status["seccomp"] = exc.strerror
    from referee.sandbox import namespaces

    status["namespaces"] = namespaces.probe()
    if status["namespaces"] is not None:
        status["namespaces"] += "; seccomp limits calls taking a pid to the bot itself instead"
    root = is_root()
    if not root:
        status["cgroup"] = "making control groups needs root (or a delegated cgroup v2 subtree)"
        status["uid"] = "switching to a uid per seat needs root"
        status["no-caps"] = "not root: the bots hold no capability anyway"
        if status["namespaces"] is not None:
            status["tmpfs"] = (
                "mounting a tmpfs needs root or a mount namespace: scratch is bounded per file only"
            )
    else:
        if _capabilities() & 0b11000000 != 0b11000000:  # CAP_SETGID (6), CAP_SETUID (7)
            status["uid"] = "root without CAP_SETUID and CAP_SETGID"
        status["cgroup"] = _try_cgroup()
        if status["namespaces"] is not None:  # else mounted in the seat's mount namespace
            status["tmpfs"] = _try_tmpfs()
    return status


def _try_tmpfs() -> str | None:
    import tempfile

    from referee.sandbox import libc

    folder = tempfile.mkdtemp(prefix="texas42-probe-")
    try:
        libc.mount_tmpfs(folder, 1, 0)
        libc.unmount(folder)
    except OSError as exc:
        return f"cannot mount a tmpfs: {exc.strerror or exc}"
    finally:
        os.rmdir(folder)
    return None


def _try_cgroup() -> str | None:
    from referee.sandbox import cgroups

    try:
        where = cgroups.find()
        trial = cgroups.SeatCgroup(where)
        trial.bound(64 << 20, 16)
        trial.remove()
    except OSError as exc:
        return f"cannot make a control group: {exc.strerror or exc}"
    return None
