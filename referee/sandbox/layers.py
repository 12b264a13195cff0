"""The sandbox's layers: what each protects, what it needs, and whether this machine has it.

``LAYERS`` holds each layer's facts, one row per ``Layer``: adding a layer is a member of
``Layer``, its row here and its mechanism (in ``jail``, and a check in ``available``).
``available`` probes the machine once per process with cheap system calls (the Landlock ABI,
the seccomp mode, a trial control group, the credentials); ``referee sandbox`` goes further
and attacks a real sandboxed child with each layer (``probe.py``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Final

from referee.record.sandbox import Layer


@dataclass(frozen=True)
class LayerFacts:
    """What one layer is for, what it takes, and what to do when it stops a bot."""

    #: What it protects (``referee sandbox``, check-bot's diagnosis).
    protects: str
    #: What this machine must give for it, in words (``available`` says so when it does not).
    needs: str
    #: A competition cannot do without it: ``--sandbox strict`` refuses to start without it
    #: (as root, without a uid per seat too: a seat left as root still owns the referee's
    #: files and processes).
    required: bool = False
    #: The layer whose mechanism holds this one (Landlock's one ruleset holds its TCP and
    #: scoping rules): lifted with it by check-bot's diagnosis, measured with it by the bench.
    part_of: Layer | None = None
    #: What to change when it alone stops a bot (check-bot's diagnosis); None: the bot must
    #: do without what it refuses.
    fix: str | None = None


#: Every layer's facts, keyed by ``Layer`` (whose order is the order of everything: a test
#: holds the two together).
LAYERS: Final[dict[Layer, LayerFacts]] = {
    Layer.CGROUP: LayerFacts(
        "memory and process bounds and an equal CPU share for the bot's whole tree; a kill"
        " that reaches all of it",
        needs="root (or a delegated cgroup v2 subtree)",
        fix="raise --memory-limit MIB or --max-processes N (the seat's memory and processes)",
    ),
    Layer.RLIMITS: LayerFacts(
        "memory (data segment), CPU seconds and file size per process, open files, no core",
        needs="nothing: every Linux has them",
        required=True,
        fix="raise --memory-limit, --cpu-limit or --max-processes; a bot may also keep at"
        " most 1,024 files open and write files of at most 64 MiB",
    ),
    Layer.TMPFS: LayerFacts(
        "a private, size-bounded tmpfs as each seat's scratch directory: no filling the disk,"
        " emptied by mounting it afresh",
        needs="root or a mount namespace",
        fix="its scratch directory (TMPDIR) is a tmpfs of --scratch-limit MiB: raise it",
    ),
    Layer.UID: LayerFacts(
        "a uid per seat: file permissions, signals and /proc of other processes, process"
        " count, and the kernel's per-user counters (pipe buffers), which seats of one uid"
        " share: a channel between them",
        needs="root",
        required=True,
        fix="the bot runs as a user of its own: make its files readable by other users (its"
        " own folder, not your home), or run it with a runtime every user can read",
    ),
    Layer.NO_CAPS: LayerFacts(
        "a bot left as root gets no capability (empty bounding set)",
        needs="root (a bot of another user holds no capability anyway)",
    ),
    Layer.REAPER: LayerFacts(
        "nothing outlives the referee: parent-death signal and a reaper process (kill -9)",
        needs="nothing: every Linux has it",
        required=True,
    ),
    Layer.NAMESPACES: LayerFacts(
        "user, PID, mount, IPC, network and UTS namespaces per seat: no other seat's"
        " processes to name or read, no network interface, its own process count; the seat's"
        " tree ends with it",
        needs="root, or user namespaces open to every user",
        fix="the bot has no network and sees only its own processes: it must do without them",
    ),
    Layer.PRIVATE_ROOT: LayerFacts(
        "a root of its own per seat (--sandbox-private-root): a tmpfs with each file it may read"
        " bound in, so that its failed name lookups are cached in its own directories, where"
        " no other seat can time them",
        needs="the namespaces layer (and pivot_root into a tmpfs)",
        part_of=Layer.NAMESPACES,
        fix="it sees only the files it may read: allow what it needs with --sandbox-allow PATH",
    ),
    Layer.PAGE_CACHE: LayerFacts(
        "every page a bot may read is read, and as root locked in memory, before its"
        " first match: no read makes a page hotter, no seat can evict one (a timing channel)",
        needs="room in memory for the pages a seat may read (to lock them, root)",
    ),
    Layer.LANDLOCK: LayerFacts(
        "files: only the bot's runtime, its own files and its scratch directory",
        needs="Landlock (Linux 5.13)",
        required=True,
    ),
    Layer.LANDLOCK_NET: LayerFacts(
        "no TCP bind or connect",
        needs="ABI 4 (Linux 6.7)",
        required=True,
        part_of=Layer.LANDLOCK,
    ),
    Layer.LANDLOCK_SCOPE: LayerFacts(
        "no signals and no abstract unix sockets outside the bot's own tree",
        needs="ABI 6 (Linux 6.12)",
        required=True,
        part_of=Layer.LANDLOCK,
    ),
    Layer.SECCOMP: LayerFacts(
        "no setsid/setpgid, ptrace, process_vm_*, sockets, System V IPC, locks, mounts,"
        " new namespaces; without a PID namespace, no call on another process's pid",
        needs="seccomp filters (CONFIG_SECCOMP_FILTER)",
        required=True,
    ),
}
#: What a competition cannot do without (``--sandbox strict``).
REQUIRED: Final = tuple(layer for layer in Layer if LAYERS[layer].required)


def held_by(layer: Layer) -> tuple[Layer, ...]:
    """``layer`` and the layers its mechanism holds (``landlock``: its TCP and scoping rules)."""
    return (layer, *(other for other in Layer if LAYERS[other].part_of == layer))


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
def available() -> dict[Layer, str | None]:
    """Each layer: None when this machine supports it, else the exact reason it does not."""
    from referee.sandbox import landlock, seccomp

    status: dict[Layer, str | None] = dict.fromkeys(Layer)
    try:
        version = landlock.abi()
    except OSError as exc:
        for layer in held_by(Layer.LANDLOCK):
            status[layer] = exc.strerror
    else:
        net, scope = LAYERS[Layer.LANDLOCK_NET].needs, LAYERS[Layer.LANDLOCK_SCOPE].needs
        if version < 4:
            status[Layer.LANDLOCK_NET] = f"Landlock ABI {version}: TCP rules need {net}"
        if version < 6:
            status[Layer.LANDLOCK_SCOPE] = f"Landlock ABI {version}: scoping needs {scope}"
    try:
        seccomp.program()
        with open("/proc/self/status") as stream:
            if "Seccomp:" not in stream.read():
                status[Layer.SECCOMP] = "this kernel has no seccomp (CONFIG_SECCOMP_FILTER)"
    except OSError as exc:
        status[Layer.SECCOMP] = exc.strerror
    from referee.sandbox import namespaces

    unshared, pivot = namespaces.probe()
    if unshared is not None:
        pivot = f"it needs the {Layer.NAMESPACES} layer, which is off here ({unshared})"
        unshared += "; seccomp limits calls taking a pid to the bot itself instead"
    status[Layer.NAMESPACES] = unshared
    status[Layer.PRIVATE_ROOT] = pivot
    if not is_root():
        status[Layer.CGROUP] = f"making control groups needs {LAYERS[Layer.CGROUP].needs}"
        status[Layer.UID] = (
            f"switching to a uid per seat needs {LAYERS[Layer.UID].needs}: the seats share"
            f" your kernel uid, whose per-user counters (pipe buffers) carry bits between them"
        )
        status[Layer.NO_CAPS] = "not root: the bots hold no capability anyway"
        if unshared is not None:
            status[Layer.TMPFS] = (
                f"mounting a tmpfs needs {LAYERS[Layer.TMPFS].needs}: scratch is bounded per"
                " file only"
            )
    else:
        if _capabilities() & 0b11000000 != 0b11000000:  # CAP_SETGID (6), CAP_SETUID (7)
            status[Layer.UID] = "root without CAP_SETUID and CAP_SETGID"
        status[Layer.CGROUP] = _try_cgroup()
        if unshared is not None:  # else mounted in the seat's mount namespace
            status[Layer.TMPFS] = _try_tmpfs()
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
