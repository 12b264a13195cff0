"""Landlock through ctypes: a filesystem allow-list, no TCP, and signal/abstract-socket scoping.

The kernel interface is three system calls (the same numbers on every architecture) and two
structs. ``Ruleset`` is built in the referee, once per seat; the child only calls
``restrict_self`` between ``fork`` and ``exec``, where the ruleset's descriptor is still open
(it closes on ``exec``). Rights the running kernel does not know are masked away by its ABI,
so one program runs on every Landlock version and says which parts it got.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Final

from referee.sandbox.libc import check, libc

_CREATE_RULESET: Final = 444
_ADD_RULE: Final = 445
_RESTRICT_SELF: Final = 446
_CREATE_RULESET_VERSION: Final = 1
_RULE_PATH_BENEATH: Final = 1

# Filesystem rights, by the ABI that introduced them.
EXECUTE: Final = 1 << 0
WRITE_FILE: Final = 1 << 1
READ_FILE: Final = 1 << 2
READ_DIR: Final = 1 << 3
_FS_V1: Final = (1 << 13) - 1  # execute ... make_sym
_REFER: Final = 1 << 13  # ABI 2
_TRUNCATE: Final = 1 << 14  # ABI 3
_IOCTL_DEV: Final = 1 << 15  # ABI 5
#: Rights that may be granted on a file (the others only make sense on a directory).
_FILE_RIGHTS: Final = EXECUTE | WRITE_FILE | READ_FILE | _TRUNCATE | _IOCTL_DEV

_NET_BIND_TCP: Final = 1 << 0  # ABI 4
_NET_CONNECT_TCP: Final = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET: Final = 1 << 0  # ABI 6
_SCOPE_SIGNAL: Final = 1 << 1

#: What a bot may do with its runtime, its program and the extra allowed paths.
READ_ONLY: Final = EXECUTE | READ_FILE | READ_DIR
#: Device files such as /dev/null: read, write, ioctl.
DEVICE: Final = READ_FILE | WRITE_FILE | _IOCTL_DEV


class LandlockError(OSError):
    """Landlock refused a request (the errno says why)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; ``LandlockError`` when there is none."""
    version = int(libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION))
    if version < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, _why_not(errno))
    return version


def _why_not(errno: int) -> str:
    import errno as codes

    if errno == codes.ENOSYS:
        return "this kernel has no Landlock (Linux 5.13 or newer, CONFIG_SECURITY_LANDLOCK)"
    if errno == codes.EOPNOTSUPP:
        return "Landlock is built in but not enabled (add landlock to the lsm= boot parameter)"
    return os.strerror(errno)


def fs_rights(version: int) -> int:
    rights = _FS_V1
    if version >= 2:
        rights |= _REFER
    if version >= 3:
        rights |= _TRUNCATE
    if version >= 5:
        rights |= _IOCTL_DEV
    return rights


#: Path -> (an ``O_PATH`` descriptor of it, whether it is a directory), kept for the life of
#: the process for the paths every seat of a runtime is allowed (``Ruleset.allow(keep=)``).
_KEPT: dict[str, tuple[int, bool]] = {}


class Ruleset:
    """An open Landlock ruleset: every filesystem right is denied but beneath the allowed
    paths; TCP bind and connect are denied (ABI 4); signals and abstract unix sockets cannot
    reach outside the sandboxed process tree (ABI 6)."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.handled_fs = fs_rights(version)
        self.network = version >= 4
        self.scoped = version >= 6
        attr = _RulesetAttr(
            handled_access_fs=self.handled_fs,
            handled_access_net=(_NET_BIND_TCP | _NET_CONNECT_TCP) if self.network else 0,
            scoped=(_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if self.scoped else 0,
        )
        size = 24 if self.scoped else 16 if self.network else 8
        self.fd = check(
            libc.syscall(_CREATE_RULESET, ctypes.byref(attr), size, 0), "landlock_create_ruleset"
        )

    def allow(self, path: Path | str, rights: int, keep: bool = False) -> None:
        """Allow ``rights`` on ``path`` and everything beneath it (a missing path is skipped).
        ``keep``: the path is one every seat's ruleset names (a runtime's file): its
        descriptor stays open for the next ruleset, which then costs one call per rule."""
        key = os.fspath(path)
        known = _KEPT.get(key) if keep else None
        if known is None:
            try:
                target = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                return
            known = (target, os.path.isdir(path))
            if keep:
                _KEPT[key] = known
        target, directory = known
        try:
            rights &= self.handled_fs
            if not directory:
                rights &= _FILE_RIGHTS
            rule = _PathBeneath(allowed_access=rights, parent_fd=target)
            check(
                libc.syscall(_ADD_RULE, self.fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0),
                f"landlock_add_rule {path}",
            )
        finally:
            if not keep:
                os.close(target)

    def allow_all(self, path: Path | str) -> None:
        """Every right beneath ``path`` (a seat's scratch directory)."""
        self.allow(path, self.handled_fs)

    def restrict_self(self) -> None:
        """Enforce the ruleset on the calling process and all it starts (no way back).

        The caller must have set ``no_new_privs`` (or hold CAP_SYS_ADMIN).
        """
        check(libc.syscall(_RESTRICT_SELF, self.fd, 0), "landlock_restrict_self")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
