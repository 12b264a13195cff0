"""The reaper: a small process that outlives the referee to end what the referee started.

Run as ``python -I -S reaper_main.py`` in its own session, so neither Ctrl-C nor a SIGKILL of
the referee's process group reaches it, and nothing of the referee's is imported. It reads
lines on stdin: ``+ g PGID`` / ``- g PGID`` (a bot's process group), ``+ c DIR`` / ``- c DIR``
(a seat's cgroup), ``+ m DIR`` / ``- m DIR`` (a seat's tmpfs), ``+ d DIR`` / ``- d DIR`` (a
scratch directory). When stdin reaches its end —
the referee exited, however it died — it SIGKILLs every group and cgroup still registered,
removes the cgroups and the scratch directories, and exits. Bots cannot signal it where
Landlock scopes their signals to their own tree (ABI 6, Linux 6.12) or they run under uids
of their own (root); elsewhere a bot of the operator's uid could, and ``referee sandbox``
shows ``landlock-scope`` off.
"""

import contextlib
import ctypes
import importlib.util
import os
import signal
import sys
import time

#: The bounded, non-recursive remover (a bot may have nested directories without end).
_spec = importlib.util.spec_from_file_location(
    "texas42_scratch", os.path.join(os.path.dirname(os.path.abspath(__file__)), "scratch.py")
)
assert _spec is not None and _spec.loader is not None
scratch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scratch)


def kill_cgroup(directory: str) -> None:
    try:
        with open(os.path.join(directory, "cgroup.kill"), "w") as stream:
            stream.write("1")
        return
    except OSError:
        pass
    try:
        with open(os.path.join(directory, "cgroup.procs")) as stream:
            pids = [int(pid) for pid in stream.read().split()]
    except (OSError, ValueError):
        return
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    registered: dict[str, set[str]] = {"g": set(), "c": set(), "m": set(), "d": set()}
    for line in sys.stdin:
        sign, _, rest = line.rstrip("\n").partition(" ")
        kind, path = rest.partition(" ")[0], rest.partition(" ")[2]
        if kind in registered and sign in ("+", "-"):
            (registered[kind].add if sign == "+" else registered[kind].discard)(path)
    for pgid in registered["g"]:
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(pgid), signal.SIGKILL)
    for directory in registered["c"]:
        kill_cgroup(directory)
    libc = ctypes.CDLL(None)
    for mount in registered["m"]:
        libc.umount2(mount.encode(), 2)  # MNT_DETACH
    deadline = time.monotonic() + 2.0
    groups = sorted(registered["c"], reverse=True)
    while groups and time.monotonic() < deadline:
        left = []
        for directory in groups:
            try:
                os.rmdir(directory)
            except FileNotFoundError:
                pass
            except OSError:
                kill_cgroup(directory)
                left.append(directory)
        groups = left
        if groups:
            time.sleep(0.01)
    for directory in registered["d"]:
        scratch.remove(directory)


if __name__ == "__main__":
    main()
