"""Files that hold what bots must never see: logs, stderr copies, results."""

from __future__ import annotations

import contextlib
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
