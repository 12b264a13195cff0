"""The C library through ctypes, and the few ``prctl`` calls a sandboxed child makes."""

from __future__ import annotations

import ctypes
import os
import platform
from typing import Final

libc: Final = ctypes.CDLL(None, use_errno=True)
# Resolved here, in the referee: a child between fork and exec must not look symbols up
# (the dynamic loader's lock may be held by a thread that did not survive the fork).
libc.syscall.restype = ctypes.c_long
libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
]
libc.prctl.restype = ctypes.c_int

_PR_SET_PDEATHSIG: Final = 1
_PR_CAPBSET_DROP: Final = 24
_PR_SET_NO_NEW_PRIVS: Final = 38
_CAP_LAST_CAP: Final = "/proc/sys/kernel/cap_last_cap"


def check(result: int, what: str) -> int:
    """``result`` of a libc call, or ``OSError`` with its errno."""
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def no_new_privs() -> None:
    """No exec may ever gain privileges again (set-uid bits, file capabilities)."""
    check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def parent_death_signal(signum: int) -> None:
    """``signum`` to this process when the thread that started it exits."""
    check(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0), "pdeathsig")


def last_capability() -> int:
    try:
        with open(_CAP_LAST_CAP) as stream:
            return int(stream.read())
    except (OSError, ValueError):
        return 40


def drop_bounding_set(last: int) -> None:
    """Empty the capability bounding set: a root process that execs gets no capability."""
    for cap in range(last + 1):
        check(libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), "capbset_drop")


#: Flags and numbers of the mount calls (``mount``, ``umount2``, ``mount_setattr``).
MS_RDONLY: Final = 1
MS_NOSUID: Final = 2
MS_NODEV: Final = 4
MS_NOEXEC: Final = 8
MS_REMOUNT: Final = 32
MS_BIND: Final = 4096
MS_REC: Final = 16384
MS_PRIVATE: Final = 1 << 18
MNT_DETACH: Final = 2
MOUNT_SETATTR: Final = 442  # the same number on every architecture
AT_FDCWD: Final = -100
AT_RECURSIVE: Final = 0x8000
MOUNT_ATTR_RDONLY: Final = 1
#: ``pivot_root``'s number where it is known (None: the private root is not offered).
PIVOT_ROOT: Final = {"x86_64": 155, "aarch64": 41, "riscv64": 41}.get(platform.machine())

libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


class MountAttr(ctypes.Structure):
    """``struct mount_attr``, as ``mount_setattr`` takes it."""

    _fields_ = [
        (name, ctypes.c_uint64) for name in ("attr_set", "attr_clr", "propagation", "userns_fd")
    ]


#: Made before any fork: a child between ``fork`` and ``exec`` allocates nothing it can avoid.
_READ_ONLY: Final = MountAttr(attr_set=MOUNT_ATTR_RDONLY)


def read_only_mounts(path: bytes) -> None:
    """Every mount at and beneath ``path`` read-only (``mount_setattr``, Linux 5.12)."""
    check(
        libc.syscall(
            MOUNT_SETATTR, AT_FDCWD, path, AT_RECURSIVE, ctypes.byref(_READ_ONLY),
            ctypes.sizeof(_READ_ONLY),
        ),
        "read-only mounts",
    )  # fmt: skip


#: Inodes per MiB of a scratch tmpfs: a file costs kernel memory whatever its size.
INODES_PER_MB: Final = 64


def tmpfs_options(size_mb: int, uid: int, gid: int) -> bytes:
    """A scratch tmpfs of ``size_mb`` MiB, its inodes bounded too, ``uid``'s alone."""
    inodes = max(1024, size_mb * INODES_PER_MB)
    return f"size={size_mb}m,nr_inodes={inodes},mode=0700,uid={uid},gid={gid}".encode()


def mount_tmpfs(path: str, size_mb: int, uid: int, gid: int | None = None) -> None:
    """A tmpfs of ``size_mb`` MiB on ``path``, owned by ``uid`` (and ``gid``, by default
    ``uid``) and closed to everyone else."""
    options = tmpfs_options(size_mb, uid, uid if gid is None else gid)
    check(
        libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options),
        f"mount tmpfs on {path}",
    )


def unmount(path: str) -> None:
    """Detach the filesystem on ``path`` (lazily: a process still inside cannot keep it)."""
    check(libc.umount2(path.encode(), MNT_DETACH), f"umount {path}")
