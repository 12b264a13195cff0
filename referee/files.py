"""Files that hold what bots must never see: logs, stderr copies, results."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path
from typing import BinaryIO


def private_file(path: Path, append: bool = False) -> BinaryIO:
    """A new file (or an emptied one; with ``append``, one written on at its end) only its
    owner can read or write, whatever the umask: logs, stderr copies and results hold what
    bots must never see."""
    keep = os.O_APPEND if append else os.O_TRUNC
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | keep | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "wb")


def private_directory(path: Path) -> None:
    """``mkdir -p``; the directories it makes are the owner's alone."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)


def replace_private(path: Path, text: str) -> None:
    """Write ``path`` whole, owner-only: written beside it, then moved into place, so a
    reader never sees half of it and a link at ``path`` is replaced, never followed. An
    ``OSError`` names ``path``."""
    try:
        fd, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)  # 0600
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OSError(exc.errno, exc.strerror, str(path)) from None


class Held(Exception):
    """Another process holds the lock; ``holder`` is the pid it wrote (or "?")."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def writer_lock(path: Path) -> int:
    """An exclusive lock on ``path`` (made owner-only if missing) for as long as this process
    keeps the descriptor: the kernel drops it when the process ends, however it ends
    (``kill -9`` included). It holds the writer's pid, so a second writer can say whose it
    is: ``Held`` then."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip() or "?"
        os.close(descriptor)
        raise Held(holder) from None
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return descriptor
